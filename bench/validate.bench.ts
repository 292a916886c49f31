// node-flags: --max-old-space-size=4096 --expose-gc
/**
 * Parse + validate of 1,000,000 JSONL blocks against `JSON.parse` alone of the same lines
 * (target: at most 1.3x), with zod's `BlockSchema.safeParse` for reference, then streaming
 * validation of a JSONL file far larger than the heap of the child process that reads it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BlockSchema, type BlockValidator, createBlockValidator } from '@tracewarden/core';
import { type Measurement, mib, report, time } from './lib.js';

const gc = (globalThis as { gc?: () => void }).gc;
const blocksPerTrace = 100;
const lineCount = 1_000_000;
const streamLineCount = 1_000_000;

/** Deterministic pseudo-random numbers, so every run measures the same lines. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const words = [
  'the',
  'weather',
  'in',
  'bogotá',
  'is',
  'cloudy',
  'forecast',
  'tool',
  'result',
  'search',
  'file',
  'read',
  'price',
  'user',
  '22°C',
  'order',
  'status',
  'shipped',
];

function sentence(random: () => number, count: number): string {
  let text = '';
  for (let i = 0; i < count; i++)
    text += `${i === 0 ? '' : ' '}${words[Math.floor(random() * words.length)]}`;
  return text;
}

/**
 * Yields realistic block lines: per trace a user message, then turns of an assistant message
 * (sometimes without content), a think, a tool call and one or two results (some streamed with seq).
 */
function* generateLines(count: number, seed: number): Generator<string> {
  const random = createRandom(seed);
  let produced = 0;
  let traceNumber = 0;
  const start = Date.UTC(2025, 0, 31, 12);
  while (produced < count) {
    const traceId = `tr_01JD3X4Y5Z6A7B8C9D${String(traceNumber++).padStart(8, '0')}`;
    let n = 0;
    let messageId = '';
    const block = (
      subType: string,
      parent: string | null,
      payload: unknown,
      extra = '',
    ): string => {
      const id = `tb_01JD3X4Y5Z${String(traceNumber).padStart(8, '0')}${String(n).padStart(8, '0')}`;
      const createdAt = new Date(start + traceNumber * 1000 + n).toISOString();
      n++;
      produced++;
      const parentField = parent === null ? '' : `,"parent_block_id":"${parent}"`;
      return `{"id":"${id}","trace_id":"${traceId}","sub_type":"${subType}","payload":${JSON.stringify(payload)}${parentField}${extra},"created_at":"${createdAt}"}`;
    };
    const first = block('MESSAGE', null, { role: 'user', content: sentence(random, 20) });
    messageId = first.slice(7, 7 + 29);
    yield first;
    while (n < blocksPerTrace && produced < count) {
      const hasContent = random() < 0.6;
      const assistant = block(
        'MESSAGE',
        null,
        { role: 'assistant', content: hasContent ? sentence(random, 30) : null },
        ',"metadata":{"model":"gpt-4.1","usage":{"input_tokens":812,"output_tokens":64}}',
      );
      messageId = assistant.slice(7, 7 + 29);
      yield assistant;
      if (n >= blocksPerTrace || produced >= count) break;
      yield block('THINK', messageId, { text: sentence(random, 25) });
      if (n >= blocksPerTrace || produced >= count) break;
      const callId = `call_${traceNumber}_${n}`;
      const call = block('TOOL_CALL', messageId, {
        call_id: callId,
        name: 'get_weather',
        arguments:
          random() < 0.5
            ? { city: 'bogotá', units: 'celsius' }
            : '{"city":"bogotá","units":"celsius"}',
      });
      const callBlockId = call.slice(7, 7 + 29);
      yield call;
      if (n >= blocksPerTrace || produced >= count) break;
      if (random() < 0.7) {
        yield block(
          'TOOL_RESULT',
          callBlockId,
          { call_id: callId, output: { forecast: sentence(random, 12), temperature: 22 } },
          ',"extra":{"reward":1}',
        );
      } else {
        yield block('TOOL_RESULT', callBlockId, {
          call_id: callId,
          delta: sentence(random, 8),
          seq: 0,
        });
        if (n >= blocksPerTrace || produced >= count) break;
        yield block('TOOL_RESULT', callBlockId, {
          call_id: callId,
          delta: sentence(random, 8),
          seq: 1,
        });
      }
    }
  }
}

/** Validates parsed lines with a fresh validator per trace; returns the number of rejected blocks. */
function createStreamValidator(): (line: string) => void {
  let validator: BlockValidator | undefined;
  let traceId = '';
  return (line) => {
    const block = JSON.parse(line) as { trace_id: string };
    if (block.trace_id !== traceId) {
      traceId = block.trace_id;
      validator = createBlockValidator({ traceId });
    }
    validator!.accept(block);
  };
}

async function streamChild(path: string): Promise<void> {
  const validate = createStreamValidator();
  let lines = 0;
  let peakHeap = 0;
  const lineReader = createInterface({
    input: createReadStream(path),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  // 'line' events rather than `for await`: the async iterator costs more than the validation
  lineReader.on('line', (line) => {
    validate(line);
    if (++lines % 50_000 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  });
  await once(lineReader, 'close');
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  process.stdout.write(
    JSON.stringify({ lines, peakHeap, maxRss: process.resourceUsage().maxRSS * 1024 }),
  );
}

async function main(): Promise<void> {
  const lines = Array.from(generateLines(lineCount, 42));
  const bytes = lines.reduce((sum, line) => sum + line.length, 0);
  console.log(`${lines.length} lines, ${mib(bytes)}, ${blocksPerTrace} blocks per trace`);

  const blockTypes: Record<string, string> = {
    MESSAGE: 'MESSAGE',
    TOOL_CALL: 'ACT',
    THINK: 'ACT',
    TOOL_RESULT: 'OBSERVE',
  };
  // Each variant runs over the same chunk of lines; many alternating short rounds, keeping each
  // variant's fastest, so a busy machine disturbs the comparison as little as possible.
  const chunk = 50_000;
  let offset = 0;
  const parseOnly = () => {
    let last: unknown;
    for (let i = offset; i < offset + chunk; i++) last = JSON.parse(lines[i]!);
    return last;
  };
  const parseAndKeep = () => {
    let kept = new Map<string, unknown>();
    let traceId = '';
    for (let i = offset; i < offset + chunk; i++) {
      const value = JSON.parse(lines[i]!) as Record<string, unknown>;
      if (value.trace_id !== traceId) {
        traceId = value.trace_id as string;
        kept = new Map();
      }
      const { id, trace_id, sub_type, payload, parent_block_id, metadata, extra, created_at } =
        value;
      Object.freeze(payload);
      kept.set(
        id as string,
        Object.freeze({
          id,
          trace_id,
          block_type: blockTypes[sub_type as string],
          sub_type,
          payload,
          parent_block_id: parent_block_id ?? null,
          metadata: metadata ?? {},
          raw: null,
          extra: extra ?? {},
          created_at,
          updated_at: created_at,
        }),
      );
    }
    return kept;
  };
  const parseAndValidate = () => {
    const validate = createStreamValidator();
    for (let i = offset; i < offset + chunk; i++) validate(lines[i]!);
  };
  const parseAndZod = () => {
    let failures = 0;
    for (let i = offset; i < offset + chunk; i++) {
      const value = JSON.parse(lines[i]!) as Record<string, unknown>;
      if (
        !BlockSchema.safeParse({ block_type: blockTypes[value.sub_type as string], ...value })
          .success
      )
        failures++;
    }
    if (failures > 0) throw new Error(`zod rejected ${failures} generated blocks`);
  };
  const variants = [parseOnly, parseAndKeep, parseAndValidate, parseAndZod];
  const best = variants.map(() => Number.POSITIVE_INFINITY);
  // validate / parse of each round: both measured back to back, so a slow phase of the host
  // shows in both and mostly cancels
  const roundRatios: number[] = [];
  const floorRatios: number[] = [];
  const chunks = lines.length / chunk;
  const rounds = chunks;
  const total = await time(() => {
    for (let round = 0; round < rounds; round++) {
      // every chunk is measured at least once per variant, and every line is validated
      offset = (round % chunks) * chunk;
      const took = variants.map(() => 0);
      for (let v = 0; v < variants.length; v++) {
        // each variant starts with an empty young generation: no variant pays for another's garbage
        gc?.();
        const started = process.hrtime.bigint();
        variants[v]!();
        took[v] = Number(process.hrtime.bigint() - started) / chunk;
        best[v] = Math.min(best[v]!, took[v]!);
      }
      roundRatios.push(took[2]! / took[0]!);
      floorRatios.push(took[1]! / took[0]!);
    }
  });
  const row = (name: string, v: number): Measurement => ({
    name,
    nsPerOp: best[v]!,
    ops: rounds * chunk,
  });
  report(
    `parse + validate JSONL blocks, ${chunk} lines per round, best of ${rounds} rounds (ns per block)`,
    [
      row('JSON.parse alone', 0),
      row('JSON.parse + keep frozen blocks per trace (floor)', 1),
      row('JSON.parse + validator.accept', 2),
      row('JSON.parse + zod BlockSchema.safeParse', 3),
    ],
  );
  // The headline pairs each round's validate with the same round's parse of the same lines,
  // measured back to back: a slow phase of the host hits both. (The best-of rows above take each
  // variant's best round separately, which one unusually fast parse round can skew.)
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
  const paired = median(roundRatios);
  console.log(
    `parse + validate / parse alone: x${paired.toFixed(2)} (target <= 1.30), median of ${rounds} rounds each measured back to back (best x${roundRatios[0]!.toFixed(2)}, worst x${roundRatios[roundRatios.length - 1]!.toFixed(2)}); keeping frozen blocks alone: x${median(floorRatios).toFixed(2)}`,
  );
  console.log(
    `best-of-rounds ratio (each variant's best round): x${(best[2]! / best[0]!).toFixed(2)}; ${rounds * chunk} blocks per variant in ${(total.ms / 1000).toFixed(1)} s`,
  );

  lines.length = 0;
  const folder = join(dirname(fileURLToPath(import.meta.url)), '.tmp');
  const path = join(folder, `validate-${process.pid}.jsonl`);
  mkdirSync(folder, { recursive: true });
  try {
    const out = createWriteStream(path);
    let chunk = '';
    for (const line of generateLines(streamLineCount, 7)) {
      chunk += `${line}\n`;
      if (chunk.length > 1 << 20) {
        if (!out.write(chunk)) await once(out, 'drain');
        chunk = '';
      }
    }
    out.end(chunk);
    await once(out, 'finish');
    const fileBytes = statSync(path).size;
    // a young generation sized from a 64 MB heap is tiny and makes the scavenger thrash; 16 MB
    // semi-spaces keep the whole heap far below the file's size
    const flags = ['--max-old-space-size=64', '--max-semi-space-size=16'];
    const child = spawn(
      process.execPath,
      [
        ...flags,
        '--conditions=@tracewarden/source',
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--stream',
        path,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    const started = process.hrtime.bigint();
    const [code] = (await once(child, 'exit')) as [number | null];
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (code !== 0) throw new Error(`streaming child exited with ${code}`);
    const result = JSON.parse(output) as { lines: number; peakHeap: number; maxRss: number };
    console.log(`\n## streaming validation of a JSONL file larger than the heap`);
    console.log(
      `file ${mib(fileBytes)}, ${result.lines} lines, child ${flags.join(' ')}: ${ms.toFixed(0)} ms (${((ms * 1e6) / result.lines).toFixed(0)} ns per line incl. startup)`,
    );
    console.log(
      `peak heapUsed ${mib(result.peakHeap)}, peak RSS ${mib(result.maxRss)} (file / peak RSS = x${(fileBytes / result.maxRss).toFixed(1)})`,
    );
  } finally {
    rmSync(path, { force: true });
  }
}

if (process.argv[2] === '--stream' && process.argv[3] !== undefined) {
  await streamChild(process.argv[3]);
} else {
  await main();
}
