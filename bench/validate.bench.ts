// node-flags: --max-old-space-size=4096 --expose-gc
/**
 * Parse + validate against `JSON.parse` alone of the same lines (target: at most 1.3x), for both
 * APIs, on every shape issue 18 names: small blocks (~250 bytes: user messages, tool calls with
 * two small arguments, tool results) and large ones (~2 KB, with large metadata, arguments and
 * outputs); in order and with parents after their children; on one trace and on many. Each case
 * measures the parse and the parse + validate of the same lines back to back, alternating which
 * goes first, and reports the median of the per-round ratios. Then streaming validation of a
 * JSONL file far larger than the heap of the child process that reads it.
 *
 * `--against <module>` also measures a second implementation (a module exporting
 * `validateBlocks` and `createBlockValidator`, e.g. an older checkout's
 * `packages/core/src/validation/index.ts`) interleaved with this one, for an A/B in one process;
 * it may be given several times (each subject is then named by its module's folder).
 * `--rounds N` sets the rounds per case (default 60); `--only <text>` keeps the cases whose row
 * (`validator.acceptLine small one trace in order`) contains the text, e.g. `small` or `accept`;
 * `--dump <folder>` writes each case's lines to a JSONL file there (for `node --cpu-prof` runs)
 * and stops.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as core from '@tracewarden/core';
import { mib, packageConditions } from './lib.js';
import { median } from './paired.js';

const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;

/** The streaming validator; `acceptLine` is absent from checkouts before it existed. */
interface StreamValidator {
  accept(input: unknown): unknown;
  acceptLine?: (line: string) => unknown;
}

/** The two APIs under test, from this checkout or from `--against`. */
interface Subject {
  name: string;
  validateBlocks: (blocks: unknown[]) => { ok: boolean; errors: unknown[] };
  createBlockValidator: (options: { traceId: string }) => StreamValidator;
}

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

type Size = 'small' | 'large';

/**
 * The lines of one trace, parents first. Small: a user message, then turns of an assistant
 * message (mostly without content), a tool call with two small arguments (half as an object,
 * half as JSON text) and its result (now and then streamed with seq), about 250 bytes a line.
 * Large: the same turns with long texts, a think, provider metadata on assistant messages, large
 * arguments and outputs, about 2 KB a line.
 */
function traceLines(
  size: Size,
  traceNumber: number,
  count: number,
  random: () => number,
): string[] {
  const lines: string[] = [];
  const traceId = `tr_01JD3X4Y5Z6A7B8C9D${String(traceNumber).padStart(8, '0')}`;
  const start = Date.UTC(2025, 0, 31, 12) + traceNumber * 60_000;
  const large = size === 'large';
  let n = 0;
  const block = (subType: string, parent: string | null, payload: unknown, rest = ''): string => {
    const id = `tb_01JD3X4Y5Z${String(traceNumber).padStart(8, '0')}${String(n).padStart(8, '0')}`;
    const createdAt = new Date(start + n).toISOString();
    n++;
    const parentField = parent === null ? '' : `,"parent_block_id":"${parent}"`;
    lines.push(
      `{"id":"${id}","trace_id":"${traceId}","sub_type":"${subType}","payload":${JSON.stringify(payload)}${parentField}${rest},"created_at":"${createdAt}"}`,
    );
    return id;
  };
  const metadata = (): string =>
    large
      ? `,"metadata":${JSON.stringify({
          model: 'gpt-4.1-2025-04-14',
          provider: 'openai',
          request_id: `req_${Math.floor(random() * 1e12)}`,
          usage: {
            input_tokens: 812,
            output_tokens: 64,
            input_tokens_details: { cached_tokens: 512 },
            output_tokens_details: { reasoning_tokens: 32 },
          },
          cost_usd: 0.00184,
          latency_ms: 812,
          time_to_first_token_ms: 231,
          attempts: [
            { attempt: 1, status: 429, error: sentence(random, 8), retry_after_ms: 200 },
            { attempt: 2, status: 200 },
          ],
          tags: ['agent', 'weather', 'prod', 'eu-west-1'],
          labels: Object.fromEntries(
            Array.from({ length: 12 }, (_, i) => [`label_${i}`, sentence(random, 3)]),
          ),
        })}`
      : '';
  block('MESSAGE', null, { role: 'user', content: sentence(random, large ? 250 : 12) });
  let turn = 0;
  while (n < count) {
    const hasContent = random() < (large ? 0.7 : 0.2);
    const message = block(
      'MESSAGE',
      null,
      {
        role: 'assistant',
        content: hasContent ? sentence(random, large ? 120 : 10) : null,
      },
      metadata(),
    );
    if (large && n < count) block('THINK', message, { text: sentence(random, 250) });
    if (n >= count) break;
    const callId = `call_${traceNumber}_${turn++}`;
    const smallArguments = { city: 'bogotá', units: 'celsius' };
    const largeArguments = {
      query: sentence(random, 60),
      filters: Array.from({ length: 8 }, (_, i) => ({
        field: `field_${i}`,
        op: 'eq',
        value: sentence(random, 4),
      })),
      limit: 20,
      include_archived: false,
    };
    const args = large ? largeArguments : smallArguments;
    const call = block('TOOL_CALL', message, {
      call_id: callId,
      name: 'get_weather',
      arguments: random() < 0.5 ? args : JSON.stringify(args),
    });
    if (n >= count) break;
    if (random() < 0.8) {
      const output = large
        ? {
            items: Array.from({ length: 10 }, (_, i) => ({
              id: i,
              title: sentence(random, 6),
              summary: sentence(random, 18),
              score: random(),
            })),
            total: 10,
          }
        : random() < 0.5
          ? { forecast: sentence(random, 3), temperature: 22 }
          : sentence(random, 5);
      block('TOOL_RESULT', call, { call_id: callId, output }, large ? ',"extra":{"reward":1}' : '');
    } else {
      block('TOOL_RESULT', call, {
        call_id: callId,
        delta: sentence(random, large ? 120 : 4),
        seq: 0,
      });
      if (n >= count) break;
      block('TOOL_RESULT', call, {
        call_id: callId,
        delta: sentence(random, large ? 120 : 4),
        seq: 1,
      });
    }
  }
  return lines;
}

type Layout = 'one trace' | 'many traces' | 'interleaved';
type Order = 'in order' | 'parents last';

/**
 * `count` lines in windows of `window` lines, each window whole on its own (every parent in
 * it): one trace per window, or traces of 100 blocks one after another, or the window's traces
 * open at once with their blocks interleaved; parents last reverses each trace's lines.
 */
function caseLines(
  size: Size,
  layout: Layout,
  order: Order,
  count: number,
  window: number,
): string[] {
  const random = createRandom(size === 'small' ? 42 : 43);
  const perTrace = layout === 'one trace' ? window : 100;
  const traces: string[][] = [];
  for (let produced = 0, t = 0; produced < count; t++) {
    const lines = traceLines(size, t, Math.min(perTrace, count - produced), random);
    if (order === 'parents last') lines.reverse();
    traces.push(lines);
    produced += lines.length;
  }
  if (layout !== 'interleaved') return traces.flat();
  const lines: string[] = [];
  const open = window / perTrace;
  for (let group = 0; group < traces.length; group += open) {
    const batch = traces.slice(group, group + open);
    const longest = Math.max(...batch.map((lines) => lines.length));
    for (let i = 0; i < longest; i++)
      for (const trace of batch) {
        const line = trace[i];
        if (line !== undefined) lines.push(line);
      }
  }
  return lines;
}

type Api = 'validateBlocks' | 'createBlockValidator';

/** What the streaming API is given: each line's text (`acceptLine`) or its parsed object. */
type Input = 'lines' | 'objects';

interface Case {
  api: Api;
  input: Input;
  size: Size;
  layout: Layout;
  order: Order;
  lines: string[];
}

function parseAll(lines: string[]): unknown[] {
  const blocks = new Array<unknown>(lines.length);
  for (let i = 0; i < lines.length; i++) blocks[i] = JSON.parse(lines[i] as string);
  return blocks;
}

/**
 * A window of a case's lines, with each line's trace found before the timing: the streaming rows
 * time parse + validate, not the caller's routing of lines to per-trace validators (slicing the
 * trace id out of each line and hashing it cost up to 0.2x a small block's parse, the same for
 * any validator, and would be charged to validation).
 */
interface Window {
  lines: string[];
  /** The trace ids of the window, in order of first appearance. */
  traceIds: string[];
  /** For each line, the index of its trace in `traceIds`. */
  slots: Int32Array;
}

function windowOf(lines: string[]): Window {
  const traceIds: string[] = [];
  const slotOf = new Map<string, number>();
  const slots = new Int32Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const traceId = traceIdOf(lines[i] as string);
    let slot = slotOf.get(traceId);
    if (slot === undefined) {
      slot = traceIds.length;
      traceIds.push(traceId);
      slotOf.set(traceId, slot);
    }
    slots[i] = slot;
  }
  return { lines, traceIds, slots };
}

/** The API a case's row names. */
function apiName(testCase: Case): string {
  return testCase.api === 'validateBlocks'
    ? 'validateBlocks(array)'
    : testCase.input === 'lines'
      ? 'validator.acceptLine'
      : 'validator.accept';
}

/** A case's row as `--only` matches it: api, blocks, layout and order. */
function rowName(testCase: Case): string {
  return `${apiName(testCase)} ${testCase.size} ${testCase.layout} ${testCase.order}`;
}

/** Parse + validate of a window with one subject; throws if any generated block is rejected. */
function validator(subject: Subject, testCase: Case): (window: Window) => unknown {
  if (testCase.api === 'validateBlocks') {
    return ({ lines }) => {
      const report = subject.validateBlocks(parseAll(lines));
      if (!report.ok)
        throw new Error(`${subject.name} rejected a generated block: ${report.errors[0]}`);
      return report;
    };
  }
  // a checkout without acceptLine takes the parsed object
  const byLine = testCase.input === 'lines';
  return ({ lines, traceIds, slots }) => {
    // one validator per trace, created when its first line comes
    const validators = new Array<StreamValidator | undefined>(traceIds.length);
    let last: unknown;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      const slot = slots[i] as number;
      let validator = validators[slot];
      if (validator === undefined) {
        validator = subject.createBlockValidator({ traceId: traceIds[slot] as string });
        validators[slot] = validator;
      }
      last =
        byLine && validator.acceptLine !== undefined
          ? validator.acceptLine(line)
          : validator.accept(JSON.parse(line));
    }
    return last;
  };
}

/**
 * The trace id of a generated line, read from its fixed place (after `{"id":"` and a 29-character id,
 * then `","trace_id":"`).
 */
function traceIdOf(line: string): string {
  return line.slice(50, 79);
}

/** Baseline of a case: `JSON.parse` of the same lines, kept the same way the subject gets them. */
function parser(testCase: Case): (window: Window) => unknown {
  if (testCase.api === 'validateBlocks') return ({ lines }) => parseAll(lines);
  return ({ lines }) => {
    let last: unknown;
    for (let i = 0; i < lines.length; i++) last = JSON.parse(lines[i] as string);
    return last;
  };
}

/**
 * CPU time of the whole process in µs: on a shared host a wall clock also counts the time other
 * processes held the core, and the GC's helper threads (which scavenge the blocks a validator
 * keeps) are part of the cost.
 */
function cpuMicroseconds(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

function timed(run: (window: Window) => unknown, window: Window): number {
  // each timing starts with an empty young generation: no run pays for another's garbage
  gc?.({ type: 'minor' });
  const started = cpuMicroseconds();
  run(window);
  return ((cpuMicroseconds() - started) * 1000) / window.lines.length;
}

/** The 10th percentile: on a shared host, the runs that other processes disturbed least. */
function quick(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 10)] ?? 0;
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

async function main(): Promise<void> {
  const rounds = Number(argument('--rounds') ?? 60);
  const subjects: Subject[] = [
    { name: 'this checkout', ...(core as unknown as Omit<Subject, 'name'>) },
  ];
  // each --against adds a subject, named by its folder when there are several
  const againsts = process.argv.flatMap((value, at) =>
    process.argv[at - 1] === '--against' ? [value] : [],
  );
  for (const against of againsts) {
    const module = (await import(pathToFileURL(resolve(against)).href)) as Omit<Subject, 'name'>;
    const name = againsts.length === 1 ? 'against' : basename(dirname(resolve(against)));
    subjects.push({ name, ...module });
  }
  // each case's lines, and the window each pair of timings takes from them: a few ms per timing,
  // so a change of the host's phase rarely falls between the two timings of a pair
  const counts: Record<Size, number> = { small: 20_000, large: 10_000 };
  const windows: Record<Size, number> = { small: 1_000, large: 400 };
  const cases: Case[] = [];
  for (const size of ['small', 'large'] as const) {
    for (const layout of ['one trace', 'many traces'] as const)
      for (const order of ['in order', 'parents last'] as const)
        cases.push({
          api: 'validateBlocks',
          input: 'objects',
          size,
          layout,
          order,
          lines: caseLines(size, layout, order, counts[size], windows[size]),
        });
    // the streaming API takes parents first (a child before its parent is rejected, as on the
    // seed's server); its out-of-order case is many traces open at once, interleaved
    for (const input of ['lines', 'objects'] as const)
      for (const layout of ['one trace', 'many traces', 'interleaved'] as const)
        cases.push({
          api: 'createBlockValidator',
          input,
          size,
          layout,
          order: 'in order',
          lines: caseLines(size, layout, 'in order', counts[size], windows[size]),
        });
  }
  const only = argument('--only');
  if (only !== undefined)
    for (let c = cases.length - 1; c >= 0; c--)
      if (!rowName(cases[c] as Case).includes(only)) cases.splice(c, 1);
  const dump = argument('--dump');
  if (dump !== undefined) {
    mkdirSync(dump, { recursive: true });
    for (const testCase of cases) {
      const name =
        `${testCase.api}-${testCase.input}-${testCase.size}-${testCase.layout}-${testCase.order}`.replaceAll(
          ' ',
          '-',
        );
      writeFileSync(join(dump, `${name}.jsonl`), `${testCase.lines.join('\n')}\n`);
    }
    console.log(`wrote ${cases.length} cases to ${dump}`);
    return;
  }
  const load = () =>
    loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
  console.log(`load average before: ${load()}`);
  // ratios[case][subject]: validate / parse of the same lines in the same round
  const ratios = cases.map(() => subjects.map(() => [] as number[]));
  const parseNs = cases.map(() => [] as number[]);
  const validateNs = cases.map(() => subjects.map(() => [] as number[]));
  const runners = cases.map((testCase) => ({
    parse: parser(testCase),
    validate: subjects.map((subject) => validator(subject, testCase)),
  }));
  // every line of every case is validated once, untimed, so a generated block that a subject
  // rejects fails the bench
  for (let c = 0; c < cases.length; c++) {
    const testCase = cases[c] as Case;
    const whole = windowOf(testCase.lines);
    for (const run of runners[c]!.validate) run(whole);
  }
  for (let round = -3; round < rounds; round++) {
    for (let c = 0; c < cases.length; c++) {
      const testCase = cases[c] as Case;
      const runner = runners[c]!;
      const size = windows[testCase.size];
      const from = ((round + 3) * size) % testCase.lines.length;
      const window = windowOf(testCase.lines.slice(from, from + size));
      for (let s = 0; s < subjects.length; s++) {
        // parse and validate back to back, alternating which goes first (and which subject)
        const subject = (round + c) % 2 === 0 ? s : subjects.length - 1 - s;
        let parse: number;
        let validate: number;
        if ((round + s) % 2 === 0) {
          parse = timed(runner.parse, window);
          validate = timed(runner.validate[subject]!, window);
        } else {
          validate = timed(runner.validate[subject]!, window);
          parse = timed(runner.parse, window);
        }
        // the first rounds warm up
        if (round < 0) continue;
        parseNs[c]!.push(parse);
        validateNs[c]![subject]!.push(validate);
        ratios[c]![subject]!.push(validate / parse);
      }
    }
  }
  console.log(`load average after: ${load()}`);
  console.log(
    `\n## parse + validate / JSON.parse of the same lines (target <= 1.30), median of ${rounds} rounds, each pair measured back to back`,
  );
  const header = [
    'api',
    'given',
    'blocks',
    'layout',
    'order',
    'bytes/line',
    'parse ns',
    ...subjects.flatMap((s) => [`${s.name} ns`, `${s.name} ratio`, `${s.name} p10 ratio`]),
  ];
  const rows = cases.map((testCase, c) => {
    const bytes =
      testCase.lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0) /
      testCase.lines.length;
    return [
      apiName(testCase),
      testCase.input,
      `${testCase.size}`,
      testCase.layout,
      testCase.order,
      bytes.toFixed(0),
      median(parseNs[c]!).toFixed(0),
      ...subjects.flatMap((_, s) => {
        const values = ratios[c]![s]!;
        return [
          median(validateNs[c]![s]!).toFixed(0),
          `x${median(values).toFixed(2)}`,
          `x${(quick(validateNs[c]![s]!) / quick(parseNs[c]!)).toFixed(2)}`,
        ];
      }),
    ];
  });
  console.log(
    'ns are medians of CPU time per line; ratio is the median of the per-pair ratios; p10 ratio divides the 10th-percentile times (the runs least disturbed by other processes)',
  );
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  if (process.argv.includes('--no-stream')) return;
  await streamingFile();
}

/** Validates parsed lines with a fresh validator per trace (the streaming child). */
function createStreamValidator(): (line: string) => void {
  let validator: core.BlockValidator | undefined;
  let traceId = '';
  return (line) => {
    const block = JSON.parse(line) as { trace_id: string };
    if (block.trace_id !== traceId) {
      traceId = block.trace_id;
      validator = core.createBlockValidator({ traceId });
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

/** Streaming validation of a 1M-line JSONL file in a child whose heap is far smaller than the file. */
async function streamingFile(): Promise<void> {
  const folder = join(dirname(fileURLToPath(import.meta.url)), '.tmp');
  const path = join(folder, `validate-${process.pid}.jsonl`);
  mkdirSync(folder, { recursive: true });
  try {
    const out = createWriteStream(path);
    let chunk = '';
    const random = createRandom(7);
    for (let trace = 0, produced = 0; produced < 1_000_000; trace++) {
      for (const line of traceLines(trace % 10 === 0 ? 'large' : 'small', trace, 100, random)) {
        chunk += `${line}\n`;
        produced++;
      }
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
        ...packageConditions(),
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
      `file ${mib(fileBytes)}, ${result.lines} lines (one trace in ten large), child ${flags.join(' ')}: ${ms.toFixed(0)} ms (${((ms * 1e6) / result.lines).toFixed(0)} ns per line incl. startup)`,
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
