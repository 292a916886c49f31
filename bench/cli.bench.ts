/**
 * The `tracewarden` executable on a JSONL file of 1,000,000 blocks (1,000 traces of 1,000
 * blocks, one after another as the JSONL sink writes them, ~330 MB): wall time and peak RSS of
 * `validate`, `stats`, `check` (a policy that never fires), `convert --to events` and `view` in a
 * subprocess, against a baseline subprocess that only reads the same lines and `JSON.parse`s
 * them. The same commands on a 100,000-block file (100 traces) show that memory stays flat as the
 * input grows tenfold, and `check` runs once more under `--max-old-space-size=200` (it must
 * succeed: whole-trace commands hold a few traces, not the file). The files live in bench/.tmp/
 * and are deleted afterwards. Nothing here asserts timing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mib } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const bin = join(root, 'packages', 'cli', 'dist', 'bin.js');
const temporary = join(here, '.tmp', 'cli');

function ensureBuilt(): void {
  if (existsSync(bin) && existsSync(join(root, 'packages', 'core', 'dist', 'index.js'))) return;
  const tsup = createRequire(import.meta.url)
    .resolve('tsup')
    .replace(/index\.js$/, 'cli-default.js');
  for (const name of ['core', 'cli']) {
    execFileSync(process.execPath, [tsup], { cwd: join(root, 'packages', name), stdio: 'inherit' });
  }
}

/**
 * Writes `traces` traces of `blocksPerTrace` blocks (1 + 3n): a user message, then assistant
 * turns of message, call, result.
 */
async function generate(path: string, traces: number, blocksPerTrace = 1000): Promise<number> {
  const turns = Math.floor((blocksPerTrace - 1) / 3);
  const out = createWriteStream(path);
  let blocks = 0;
  const start = Date.parse('2025-01-01T00:00:00.000Z');
  const write = (line: string) =>
    out.write(line) ? undefined : new Promise<void>((done) => out.once('drain', () => done()));
  for (let t = 0; t < traces; t++) {
    const traceId = `tr_${String(t).padStart(8, '0')}`;
    let lines = '';
    let n = 0;
    const block = (
      subType: string,
      blockType: string,
      parent: string | null,
      payload: unknown,
      metadata: unknown = {},
    ) => {
      const id = `tb_${String(t).padStart(8, '0')}_${String(n).padStart(4, '0')}`;
      const createdAt = new Date(start + t * 1000 + n).toISOString();
      n++;
      lines += `${JSON.stringify({ id, trace_id: traceId, block_type: blockType, sub_type: subType, payload, parent_block_id: parent, metadata, raw: null, extra: {}, created_at: createdAt, updated_at: createdAt })}\n`;
      return id;
    };
    block('MESSAGE', 'MESSAGE', null, {
      role: 'user',
      content: `task ${t}: find the weather in a few cities and summarise it`,
    });
    for (let turn = 0; turn < turns; turn++) {
      const message = block(
        'MESSAGE',
        'MESSAGE',
        null,
        { role: 'assistant', content: turn % 3 === 0 ? null : `step ${turn}` },
        {
          model: turn % 2 === 0 ? 'gpt-4o-mini' : 'gpt-4o',
          usage: { prompt_tokens: 200 + turn, completion_tokens: 20, total_tokens: 220 + turn },
          cost: 0.0001,
        },
      );
      const callId = `call_${t}_${turn}`;
      const call = block('TOOL_CALL', 'ACT', message, {
        call_id: callId,
        name: turn % 4 === 0 ? 'search' : 'get_weather',
        arguments: { city: `city-${turn}` },
      });
      block(
        'TOOL_RESULT',
        'OBSERVE',
        call,
        { call_id: callId, output: { forecast: `${10 + (turn % 20)}°C` } },
        {
          status: turn % 10 === 9 ? 'timeout' : 'success',
          execution_time_ms: 5 + ((t * 7 + turn * 13) % 400),
        },
      );
    }
    blocks += n;
    await write(lines);
  }
  await new Promise<void>((done) => out.end(() => done()));
  return blocks;
}

interface Run {
  ms: number;
  maxRssBytes: number;
  code: number | null;
}

// Runs a script in a fresh node and reports its peak RSS from its own resourceUsage() at exit.
const rssProbe = `process.on('exit', () => process.stderr.write('\\n@@maxrss ' + process.resourceUsage().maxRSS + '\\n'));`;

function runNode(args: string[], preload: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, ...args],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const match = /@@maxrss (\d+)/.exec(stderr);
      resolve({ ms, maxRssBytes: match ? Number(match[1]) * 1024 : Number.NaN, code });
    });
  });
}

const baselineScript = `
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
let count = 0;
for await (const line of createInterface({ input: createReadStream(process.argv[1]), crlfDelay: Infinity })) {
  if (line !== '') { JSON.parse(line); count++; }
}
`;

// A rule on a tool the generated traces never call: `check` does all its work, reports nothing.
const quietPolicy = `raise "never fires" if:
    (call: ToolCall)
    call is tool:tool_that_is_never_called
`;

async function measureFile(
  label: string,
  path: string,
  policy: string,
  options: { lowHeap: boolean },
): Promise<Map<string, Run>> {
  const bytes = statSync(path).size;
  const runs = new Map<string, Run>();
  runs.set(
    'baseline: read lines + JSON.parse',
    await runNode(['--input-type=module', '-e', baselineScript, path], rssProbe),
  );
  runs.set('tracewarden validate', await runNode([bin, 'validate', path], rssProbe));
  runs.set('tracewarden stats', await runNode([bin, 'stats', path], rssProbe));
  runs.set('tracewarden check', await runNode([bin, 'check', '-p', policy, path], rssProbe));
  runs.set(
    'tracewarden convert --to events',
    await runNode([bin, 'convert', path, '--to', 'events'], rssProbe),
  );
  runs.set('tracewarden view', await runNode([bin, 'view', path], rssProbe));
  if (options.lowHeap)
    runs.set(
      'tracewarden check, --max-old-space-size=200',
      await runNode(['--max-old-space-size=200', bin, 'check', '-p', policy, path], rssProbe),
    );
  const baseline = runs.get('baseline: read lines + JSON.parse');
  console.log(`\n## ${label}: ${mib(bytes)} of JSONL`);
  for (const [name, run] of runs)
    console.log(
      `${name.padEnd(44)} ${(run.ms / 1000).toFixed(2).padStart(7)} s  x${(run.ms / (baseline?.ms ?? run.ms)).toFixed(2).padStart(5)}  peak RSS ${mib(run.maxRssBytes).padStart(10)}  exit ${run.code}`,
    );
  return runs;
}

ensureBuilt();
mkdirSync(temporary, { recursive: true });
try {
  const small = join(temporary, 'blocks-100k.jsonl');
  const large = join(temporary, 'blocks-1m.jsonl');
  const policy = join(temporary, 'quiet.gr');
  writeFileSync(policy, quietPolicy);
  const smallBlocks = await generate(small, 100);
  const largeBlocks = await generate(large, 1_000);
  const before = await measureFile(`${smallBlocks.toLocaleString('en-US')} blocks`, small, policy, {
    lowHeap: false,
  });
  const after = await measureFile(`${largeBlocks.toLocaleString('en-US')} blocks`, large, policy, {
    lowHeap: true,
  });
  console.log('\n## peak RSS, 10x the blocks');
  for (const [name, run] of after) {
    const first = before.get(name);
    if (first === undefined) continue;
    console.log(
      `${name.padEnd(44)} ${mib(first.maxRssBytes).padStart(10)} -> ${mib(run.maxRssBytes).padStart(10)}  x${(run.maxRssBytes / first.maxRssBytes).toFixed(2)}`,
    );
  }
  const lowHeap = after.get('tracewarden check, --max-old-space-size=200');
  console.log(
    `\ncheck under --max-old-space-size=200 on ${largeBlocks.toLocaleString('en-US')} blocks: ${lowHeap?.code === 0 ? 'succeeded' : `FAILED (exit ${lowHeap?.code})`}`,
  );
  console.log('Memory stays flat when peak RSS is about the same for 10x the blocks.');
  if (lowHeap?.code !== 0) process.exitCode = 1;
} finally {
  rmSync(temporary, { recursive: true, force: true });
}
