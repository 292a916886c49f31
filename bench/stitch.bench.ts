// node-flags: --max-old-space-size=6144
/**
 * Stitch 1,000,000 parsed blocks of one trace (messages with thinks, tool calls, results, some
 * streamed as deltas with seq), read from JSONL lines in the locally shuffled order files have
 * when several writers append. Prints CPU and wall time (CPU is the steadier figure on a shared
 * machine) and peak memory against the input's JSON bytes, and the same for a naive stitch (one
 * global sort with a Date-parsing comparator, then attach) measured in the same run on the first
 * 200,000 blocks and scaled to 1,000,000 linearly (so the whole bench stays well under a minute).
 */
import type { Block, StitchedTrace } from '@tracewarden/core';
import { stitchBlocks } from '@tracewarden/core';
import { mib } from './lib.js';

const total = 1_000_000;
const naiveTotal = 200_000;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const start = Date.UTC(2025, 0, 1);
const words =
  'the quick brown fox jumps over the lazy dog while the agent reads the inbox and drafts a reply'.split(
    ' ',
  );

function sentence(n: number, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i++) out += `${words[(n + i * 7) % words.length]} `;
  return out.trimEnd();
}

let random = 42;
function next(): number {
  random = (Math.imul(random ^ (random >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
  return random / 2 ** 32;
}

/** Blocks in creation order: a user turn, an assistant turn with a think and two tool calls. */
function* generate(): Generator<Record<string, unknown>> {
  let n = 0;
  const base = (subType: string, blockType: string, parent: string | null, payload: object) => {
    const createdAt = new Date(start + n).toISOString();
    const id = `tb_${String(n++).padStart(26, '0')}`;
    return {
      id,
      trace_id: 'tr_bench',
      block_type: blockType,
      sub_type: subType,
      payload,
      parent_block_id: parent,
      metadata: {},
      raw: null,
      extra: {},
      created_at: createdAt,
      updated_at: createdAt,
    };
  };
  for (let turn = 0; n < total; turn++) {
    yield base('MESSAGE', 'MESSAGE', null, { role: 'user', content: sentence(turn, 80) });
    const assistant = base('MESSAGE', 'MESSAGE', null, {
      role: 'assistant',
      content: sentence(turn + 1, 40),
    });
    yield assistant;
    yield base('THINK', 'ACT', assistant.id, { text: sentence(turn + 2, 60) });
    for (let c = 0; c < 2; c++) {
      const callId = `call_${turn}_${c}`;
      const call = base('TOOL_CALL', 'ACT', assistant.id, {
        call_id: callId,
        name: c === 0 ? 'search_inbox' : 'read_email',
        arguments: { query: sentence(turn + c, 20), limit: 10 },
      });
      yield call;
      if (turn % 10 === 0 && c === 1) {
        for (let seq = 0; seq < 3; seq++) {
          yield base('TOOL_RESULT', 'OBSERVE', call.id, {
            call_id: callId,
            delta: sentence(turn + seq, 30),
            seq,
          });
        }
      } else {
        yield base('TOOL_RESULT', 'OBSERVE', call.id, {
          call_id: callId,
          output: sentence(turn + c + 3, 100),
        });
      }
    }
  }
}

/** JSONL lines, shuffled within windows of 16 lines, parsed one by one. */
function readBlocks(): { blocks: Block[]; jsonBytes: number } {
  const blocks: Block[] = [];
  let jsonBytes = 0;
  let window: string[] = [];
  const flush = () => {
    for (let i = window.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [window[i], window[j]] = [window[j] as string, window[i] as string];
    }
    for (const line of window) {
      jsonBytes += Buffer.byteLength(line) + 1;
      blocks.push(JSON.parse(line) as Block);
    }
    window = [];
  };
  for (const block of generate()) {
    if (blocks.length + window.length >= total) break;
    window.push(JSON.stringify(block));
    if (window.length === 16) flush();
  }
  flush();
  return { blocks, jsonBytes };
}

function seqOf(block: Block): number | null {
  const seq = (block.payload as { seq?: unknown }).seq;
  return typeof seq === 'number' ? seq : null;
}

/** The straightforward version: one global sort with a comparator that parses dates, then attach. */
function naiveStitch(blocks: readonly Block[]): StitchedTrace {
  const sorted = [...blocks].sort((a, b) => {
    const seqA = seqOf(a);
    const seqB = seqOf(b);
    if (seqA !== seqB) {
      if (seqA === null) return 1;
      if (seqB === null) return -1;
      return seqA - seqB;
    }
    const time = new Date(a.created_at).getTime() - new Date(b.created_at).getTime();
    if (time !== 0) return time;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  const nodes = new Map<
    string,
    { block: Block; thinks: Block[]; tool_calls: unknown[]; results: Block[] }
  >();
  for (const block of sorted)
    nodes.set(block.id, { block, thinks: [], tool_calls: [], results: [] });
  const tree = {
    trace_id: 'tr_bench',
    messages: [] as unknown[],
    orphans: { tool_calls: [] as unknown[], tool_results: [] as Block[] },
  };
  for (const block of sorted) {
    const node = nodes.get(block.id);
    const parent = block.parent_block_id ? nodes.get(block.parent_block_id) : undefined;
    if (block.sub_type === 'MESSAGE') tree.messages.push(node);
    else if (block.sub_type === 'THINK') parent?.thinks.push(block);
    else if (block.sub_type === 'TOOL_CALL')
      (parent ? parent.tool_calls : tree.orphans.tool_calls).push(node);
    else if (parent) parent.results.push(block);
    else tree.orphans.tool_results.push(block);
  }
  return tree as unknown as StitchedTrace;
}

/** Wall and CPU milliseconds of one call; CPU time is the steadier figure on a shared machine. */
function timed<T>(fn: () => T): { wall: number; cpu: number; value: T } {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const value = fn();
  const wall = performance.now() - wallBefore;
  const cpuUsed = process.cpuUsage(cpuBefore);
  return { wall, cpu: (cpuUsed.user + cpuUsed.system) / 1000, value };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function run(
  name: string,
  stitch: (blocks: readonly Block[]) => StitchedTrace,
  blocks: readonly Block[],
  repeats: number,
) {
  stitch(blocks.slice(0, 50_000));
  gc();
  const before = process.memoryUsage();
  const first = timed(() => stitch(blocks));
  const after = process.memoryUsage();
  // The stitch's own typed arrays live outside the JS heap: count them too.
  const grown =
    after.heapUsed - before.heapUsed + Math.max(0, after.arrayBuffers - before.arrayBuffers);
  gc();
  const retained = process.memoryUsage().heapUsed - before.heapUsed;
  const tree = first.value;
  const walls = [first.wall];
  const cpus = [first.cpu];
  for (let i = 1; i < repeats; i++) {
    gc();
    const again = timed(() => stitch(blocks));
    walls.push(again.wall);
    cpus.push(again.cpu);
  }
  return { name, wall: median(walls), cpu: median(cpus), runs: repeats, grown, retained, tree };
}

const { blocks, jsonBytes } = readBlocks();
gc();
const inputHeap = process.memoryUsage().heapUsed;
console.log(
  `${blocks.length} blocks, ${mib(jsonBytes)} of JSONL, ${mib(inputHeap)} heap once parsed`,
);

const fast = run('stitchBlocks', (b) => stitchBlocks(b), blocks, 7);
const naiveBlocks = blocks.slice(0, naiveTotal);
const naive = run('naive sort-based stitch', naiveStitch, naiveBlocks, 1);
const check = stitchBlocks(naiveBlocks);
if (check.messages.length !== naive.tree.messages.length) {
  throw new Error(
    `message counts differ: ${check.messages.length} vs ${naive.tree.messages.length}`,
  );
}
const scale = blocks.length / naiveBlocks.length;

console.log('\n## stitch 1,000,000 parsed blocks (time: median of the runs)');
console.log(
  `${'naive sort-based stitch'.padEnd(24)} ${(naive.wall * scale).toFixed(0).padStart(6)} ms wall ${(naive.cpu * scale).toFixed(0).padStart(6)} ms CPU ` +
    `(measured on ${naiveBlocks.length} blocks: ${naive.wall.toFixed(0)} ms wall, ${naive.cpu.toFixed(0)} ms CPU; x${scale} scaled)`,
);
const peak = inputHeap + fast.grown;
console.log(
  `${fast.name.padEnd(24)} ${fast.wall.toFixed(0).padStart(6)} ms wall ${fast.cpu.toFixed(0).padStart(6)} ms CPU (${fast.runs} runs)  stitch memory +${mib(fast.grown)} (retained ${mib(fast.retained)})  ` +
    `peak heap ${mib(peak)} = x${(peak / jsonBytes).toFixed(2)} JSON bytes, stitch alone x${(fast.grown / jsonBytes).toFixed(2)}`,
);
console.log(
  `speed-up x${((naive.wall * scale) / fast.wall).toFixed(1)} wall, x${((naive.cpu * scale) / fast.cpu).toFixed(1)} CPU  (target: < 1000 ms, peak < 2.5x JSON bytes)`,
);
console.log(`process max RSS ${mib(process.resourceUsage().maxRSS * 1024)}`);
