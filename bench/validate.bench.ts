// node-flags: --max-old-space-size=4096
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
  for await (const line of lineReader) {
    validate(line);
    if (++lines % 50_000 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  process.stdout.write(
    JSON.stringify({ lines, peakHeap, maxRss: process.resourceUsage().maxRSS * 1024 }),
  );
}

async function main(): Promise<void> {
  const lines = Array.from(generateLines(lineCount, 42));
  const bytes = lines.reduce((sum, line) => sum + line.length, 0);
  console.log(`${lines.length} lines, ${mib(bytes)}, ${blocksPerTrace} blocks per trace`);

  const parseOnly = () => {
    let last: unknown;
    for (const line of lines) last = JSON.parse(line);
    return last;
  };
  const parseAndValidate = () => {
    const validate = createStreamValidator();
    for (const line of lines) validate(line);
  };
  const parseAndZod = () => {
    let failures = 0;
    for (const line of lines) {
      const value = JSON.parse(line) as Record<string, unknown>;
      if (
        !BlockSchema.safeParse({ block_type: blockTypes[value.sub_type as string], ...value })
          .success
      )
        failures++;
    }
    return failures;
  };
  const blockTypes: Record<string, string> = {
    MESSAGE: 'MESSAGE',
    TOOL_CALL: 'ACT',
    THINK: 'ACT',
    TOOL_RESULT: 'OBSERVE',
  };

  parseOnly();
  parseAndValidate();
  // alternate the two, several rounds, and keep each one's best (least disturbed) run
  let bestParse = Number.POSITIVE_INFINITY;
  let bestValidate = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 4; round++) {
    bestParse = Math.min(bestParse, (await time(parseOnly)).ms);
    bestValidate = Math.min(bestValidate, (await time(parseAndValidate)).ms);
  }
  const zod = await time(parseAndZod);
  if (zod.value !== 0) throw new Error(`zod rejected ${zod.value} generated blocks`);
  const row = (name: string, ms: number): Measurement => ({
    name,
    nsPerOp: (ms * 1e6) / lines.length,
    ops: lines.length,
  });
  report('parse + validate 1,000,000 JSONL blocks (ns per block)', [
    row('JSON.parse alone', bestParse),
    row('JSON.parse + validator.accept', bestValidate),
    row('JSON.parse + zod BlockSchema.safeParse', zod.ms),
  ]);
  console.log(
    `parse ${bestParse.toFixed(0)} ms, parse + validate ${bestValidate.toFixed(0)} ms: ratio x${(bestValidate / bestParse).toFixed(2)} (target <= 1.30)`,
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
    const heapLimitMb = 64;
    const child = spawn(
      process.execPath,
      [
        `--max-old-space-size=${heapLimitMb}`,
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
      `file ${mib(fileBytes)}, ${result.lines} lines, child --max-old-space-size=${heapLimitMb}: ${ms.toFixed(0)} ms (${((ms * 1e6) / result.lines).toFixed(0)} ns per line incl. startup)`,
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
