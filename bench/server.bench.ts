/**
 * `pnpm bench server`: the collector's ingest and stitched reads, each server in its own
 * process (so autocannon does not share its event loop).
 *
 * - Ingest: autocannon POSTs batches of BENCH_SERVER_BATCH (100) blocks, every request to a
 *   trace of its own with ids of its own (setupRequest), over BENCH_SERVER_CONNECTIONS (4)
 *   connections for BENCH_SERVER_SECONDS (5) per run. The baseline, measured in the same run
 *   and interleaved round by round with the stores, is a bare `node:http` server that reads the
 *   same bodies, `JSON.parse`s them and answers the same 201 echo: HTTP + JSON and nothing else.
 *   Reported: medians over BENCH_SERVER_ROUNDS (3) rounds of blocks/s, p50 and p99 latency.
 * - Stitched read: GET `.../blocks.stitched` of a 10,000-block trace, against core's
 *   `stitchBlocks` + `JSON.stringify` of the same blocks in process (the floor).
 *
 * Postgres runs when TRACEWARDEN_BENCH_DATABASE_URL or TRACEWARDEN_TEST_DATABASE_URL is set
 * (a fresh schema per run, dropped after). BENCH_SERVER_CPU_PROF=<dir> writes each server
 * process's `--cpu-prof` there. Prints `uptime` load averages: the machine is shared.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type Block, createHttpSink, stitchBlocks } from '@tracewarden/core';
import autocannon from 'autocannon';

const batchSize = Number(process.env.BENCH_SERVER_BATCH ?? 100);
const connections = Number(process.env.BENCH_SERVER_CONNECTIONS ?? 4);
const seconds = Number(process.env.BENCH_SERVER_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_SERVER_ROUNDS ?? 3);
const databaseUrl =
  process.env.TRACEWARDEN_BENCH_DATABASE_URL ?? process.env.TRACEWARDEN_TEST_DATABASE_URL;
const profileDir = process.env.BENCH_SERVER_CPU_PROF;

type Kind = 'baseline' | 'sqlite' | 'postgres';

// ---------------------------------------------------------------------------------------------
// The server process: `server.bench.ts --serve <kind>` prints `{ url, key }` and runs until SIGTERM.

async function serve(kind: Kind): Promise<void> {
  let url: string;
  let key = '';
  let close: () => Promise<void>;
  if (kind === 'baseline') {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { blocks: unknown[] };
        const text = JSON.stringify({
          trace_id: 'tr',
          inserted: body.blocks.length,
          blocks: body.blocks,
        });
        response.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
        response.end(text);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    url = `http://127.0.0.1:${address.port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  } else {
    const { startServer } = await import('@tracewarden/server');
    const server = await startServer({
      port: 0,
      dataDir: process.env.BENCH_SERVER_DATA_DIR as string,
      databaseUrl: kind === 'postgres' ? process.env.BENCH_SERVER_DATABASE_URL : undefined,
      env: {},
      limits: { maxTraceBlocks: 20_000 },
    });
    url = server.url;
    key = server.initialApiKey?.key ?? '';
    close = () => server.close();
  }
  process.stdout.write(`${JSON.stringify({ url, key })}\n`);
  const shutdown = () => {
    void close().then(() => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  // the driver died without stopping us (killed, or its output pipe closed): do not linger
  process.on('disconnect', shutdown);
}

// ---------------------------------------------------------------------------------------------
// The driver.

interface Running {
  kind: Kind;
  url: string;
  key: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function spawnServer(kind: Kind, env: Record<string, string>): Promise<Running> {
  const flags = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const child = spawn(
    process.execPath,
    [...process.execArgv, ...flags, fileURLToPath(import.meta.url), '--serve', kind],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
  );
  const [line] = (await once(
    createInterface({ input: child.stdout as NodeJS.ReadableStream }),
    'line',
  )) as [string];
  const { url, key } = JSON.parse(line) as { url: string; key: string };
  return {
    kind,
    url,
    key,
    child,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** A batch's body with every block id (and the trace's) made unique by `n`. */
function bodyTemplate(): string {
  const blocks: unknown[] = [
    { id: 'tb_N_u', sub_type: 'MESSAGE', payload: { role: 'user', content: 'weather in Bogotá?' } },
    {
      id: 'tb_N_a',
      sub_type: 'MESSAGE',
      payload: { role: 'assistant', content: '' },
      metadata: { model: 'gpt-4.1-mini', cost: { cost_micro_usd: 21 } },
    },
  ];
  for (let index = 0; blocks.length < batchSize; index++) {
    blocks.push({
      id: `tb_N_c${index}`,
      sub_type: 'TOOL_CALL',
      parent_block_id: 'tb_N_a',
      payload: { call_id: `call_N_${index}`, name: 'get_weather', arguments: { city: 'Bogotá' } },
    });
    if (blocks.length < batchSize) {
      blocks.push({
        id: `tb_N_r${index}`,
        sub_type: 'TOOL_RESULT',
        parent_block_id: `tb_N_c${index}`,
        payload: { call_id: `call_N_${index}`, output: '22°C', seq: 0 },
      });
    }
  }
  return JSON.stringify({ blocks });
}

interface IngestFigures {
  blocksPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time of the server process per stored block (user + system), in microseconds. */
  cpuMicrosPerBlock: number;
  /** CPU time of the local `postgres` processes per stored block, in microseconds. */
  databaseMicrosPerBlock: number;
}

/**
 * CPU time of every `postgres` process on this machine so far, in ms (0 when Postgres runs
 * elsewhere): with Postgres, most of a batch's work happens there, not in the collector.
 */
function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      total += processCpuMs(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** User + system CPU time of a process so far, in ms (Linux `/proc/<pid>/stat`, 10 ms ticks). */
function processCpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

async function ingest(server: Running, prefix: string): Promise<IngestFigures> {
  const template = bodyTemplate();
  let counter = 0;
  const cpuBefore = processCpuMs(server.child.pid);
  const databaseBefore = server.kind === 'postgres' ? postgresCpuMs() : 0;
  const result = await autocannon({
    url: server.url,
    connections,
    duration: seconds,
    pipelining: 1,
    requests: [
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.key}`,
          'content-type': 'application/json',
        },
        setupRequest(request) {
          const n = `${prefix}${counter++}`;
          return {
            ...request,
            path: `/v1/organizations/default/traces/tr_${n}/blocks`,
            body: template.replaceAll('_N_', `_${n}_`),
          };
        },
      },
    ],
  });
  const ok = result['2xx'];
  const cpuMs = processCpuMs(server.child.pid) - cpuBefore;
  const databaseMs = server.kind === 'postgres' ? postgresCpuMs() - databaseBefore : 0;
  return {
    blocksPerSecond: (ok * batchSize) / (result.duration || seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    cpuMicrosPerBlock: (cpuMs * 1000) / Math.max(1, ok * batchSize),
    databaseMicrosPerBlock: (databaseMs * 1000) / Math.max(1, ok * batchSize),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function load(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
}

async function postgresSchema(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  if (databaseUrl === undefined) return undefined;
  // pg is the server package's dependency, not the root's
  const { Client } = createRequire(new URL('../packages/server/package.json', import.meta.url))(
    'pg',
  ) as {
    Client: new (config: {
      connectionString: string;
    }) => {
      connect(): Promise<void>;
      query(sql: string): Promise<unknown>;
      end(): Promise<void>;
    };
  };
  const schema = `tw_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: () => admin(`DROP SCHEMA ${schema} CASCADE`) };
}

async function stitchedRead(server: Running, samples: number) {
  const traceId = 'tr_stitched_10k';
  const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' };
  // 10,000 blocks in 100 batches: 1 message + 33 call/result pairs per batch, parents earlier
  let sent = 0;
  for (let batch = 0; sent < 10_000; batch++) {
    const blocks: unknown[] = [
      {
        id: `tb_m${batch}`,
        sub_type: 'MESSAGE',
        payload: { role: 'user', content: `turn ${batch}` },
      },
    ];
    for (let index = 0; blocks.length < 100 && sent + blocks.length < 10_000; index++) {
      const call = `c${batch}_${index}`;
      blocks.push({
        id: `tb_${call}`,
        sub_type: 'TOOL_CALL',
        parent_block_id: `tb_m${batch}`,
        payload: { call_id: call, name: 'lookup', arguments: { q: call } },
      });
      blocks.push({
        id: `tb_r${call}`,
        sub_type: 'TOOL_RESULT',
        parent_block_id: `tb_${call}`,
        payload: { call_id: call, output: { rows: [1, 2, 3] }, seq: 0 },
      });
    }
    const response = await fetch(
      `${server.url}/v1/organizations/default/traces/${traceId}/blocks`,
      {
        method: 'POST',
        headers,
        body: JSON.stringify({ blocks }),
      },
    );
    if (response.status !== 201) throw new Error(`seeding failed: ${await response.text()}`);
    sent += blocks.length;
  }
  const path = `${server.url}/v1/organizations/default/traces/${traceId}/blocks.stitched`;
  const times: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const start = performance.now();
    const response = await fetch(path, { headers });
    const text = await response.text();
    times.push(performance.now() - start);
    if (!text.includes('"orphans"')) throw new Error(`not a stitched trace: ${text.slice(0, 200)}`);
  }
  return { serverMs: median(times), blocks: sent };
}

async function main(): Promise<void> {
  console.log(
    `collector ingest: ${batchSize} blocks per request, ${connections} connections, ${seconds} s x ${rounds} rounds; load ${load()}`,
  );
  const schema = await postgresSchema();
  if (schema === undefined) {
    console.log(
      'postgres: skipped (set TRACEWARDEN_BENCH_DATABASE_URL or TRACEWARDEN_TEST_DATABASE_URL)',
    );
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'tracewarden-bench-'));
  const kinds: Kind[] = [
    'baseline',
    'sqlite',
    ...(schema === undefined ? [] : ['postgres' as const]),
  ];
  const servers: Running[] = [];
  try {
    for (const kind of kinds) {
      servers.push(
        await spawnServer(kind, {
          BENCH_SERVER_DATA_DIR: join(dataDir, kind),
          ...(schema === undefined ? {} : { BENCH_SERVER_DATABASE_URL: schema.url }),
        }),
      );
    }
    // warm-up: one short run each (JIT, page cache, connections)
    for (const server of servers) await ingest(server, `w${server.kind}_`);
    const figures = new Map<Kind, IngestFigures[]>(kinds.map((kind) => [kind, []]));
    for (let round = 0; round < rounds; round++) {
      // interleaved: every round measures each server once, in a rotating order
      const order = servers.map((_, index) => servers[(index + round) % servers.length] as Running);
      for (const server of order) {
        const result = await ingest(server, `r${round}_`);
        figures.get(server.kind)?.push(result);
        console.log(
          `  round ${round + 1} ${server.kind.padEnd(8)} ${Math.round(result.blocksPerSecond).toLocaleString('en-US').padStart(8)} blocks/s  p50 ${result.p50} ms  p99 ${result.p99} ms  server CPU ${result.cpuMicrosPerBlock.toFixed(1)} µs/block${result.databaseMicrosPerBlock > 0 ? ` + postgres ${result.databaseMicrosPerBlock.toFixed(1)}` : ''}${result.errors > 0 ? `  ERRORS ${result.errors}` : ''}  load ${load()}`,
        );
      }
    }
    const baseline = median((figures.get('baseline') ?? []).map((row) => row.blocksPerSecond));
    console.log(
      '\n| server | blocks/s (median) | x baseline | p50 ms | p99 ms | server CPU µs/block | postgres CPU µs/block |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- |');
    for (const kind of kinds) {
      const rows = figures.get(kind) ?? [];
      const rate = median(rows.map((row) => row.blocksPerSecond));
      console.log(
        `| ${kind} | ${Math.round(rate).toLocaleString('en-US')} | x${(rate / baseline).toFixed(2)} | ${median(rows.map((row) => row.p50))} | ${median(rows.map((row) => row.p99))} | ${median(rows.map((row) => row.cpuMicrosPerBlock)).toFixed(1)} | ${kind === 'postgres' ? median(rows.map((row) => row.databaseMicrosPerBlock)).toFixed(1) : '-'} |`,
      );
    }
    console.log(`load ${load()}\n`);

    console.log(
      'the same load through createHttpSink (4 agents x 25,000 blocks, 500-block batches):',
    );
    for (const server of servers) {
      if (server.kind === 'baseline') continue;
      const rates: number[] = [];
      for (let round = 0; round < rounds; round++) {
        rates.push(await throughHttpSink(server, 4, 25_000, `r${round}_`));
      }
      console.log(
        `  ${server.kind.padEnd(8)} ${Math.round(median(rates)).toLocaleString('en-US')} blocks/s (median of ${rounds}); load ${load()}`,
      );
    }
    console.log('');

    console.log('stitched read of a 10,000-block trace (GET .../blocks.stitched, median of 15):');
    for (const server of servers) {
      if (server.kind === 'baseline') continue;
      const read = await stitchedRead(server, 15);
      console.log(`  ${server.kind.padEnd(8)} ${read.serverMs.toFixed(1)} ms over HTTP`);
    }
    // the floor: core's stitching + serialisation of the same blocks, in process
    const blocks = await allBlocks(servers.find((server) => server.kind === 'sqlite') as Running);
    const floor: number[] = [];
    for (let sample = 0; sample < 15; sample++) {
      const start = performance.now();
      JSON.stringify(stitchBlocks(blocks, { traceId: 'tr_stitched_10k' }));
      floor.push(performance.now() - start);
    }
    console.log(
      `  in process: stitchBlocks + JSON.stringify of the same ${blocks.length} blocks ${median(floor).toFixed(1)} ms; load ${load()}`,
    );
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dataDir, { recursive: true, force: true });
    await schema?.drop();
  }
}

/**
 * The same kind of load through core's `createHttpSink`, as an instrumented agent sends it:
 * `agents` sinks (each its own batching, one request in flight) each write `perAgent` blocks
 * (traces of 1,000 blocks), then flush; blocks/s until every flush resolved.
 */
async function throughHttpSink(server: Running, agents: number, perAgent: number, prefix: string) {
  const time = new Date().toISOString();
  const sinks = Array.from({ length: agents }, () =>
    createHttpSink({ url: server.url, apiKey: server.key, compression: 'none' }),
  );
  const start = performance.now();
  sinks.forEach((sink, agent) => {
    for (let index = 0; index < perAgent; index++) {
      const traceId = `tr_sink_${prefix}${agent}_${Math.floor(index / 1000)}`;
      const position = index % 1000;
      const message = `tb_${agent}_${index - position}`;
      const common = {
        trace_id: traceId,
        metadata: {},
        raw: null,
        extra: {},
        created_at: time,
        updated_at: time,
      };
      const block =
        position === 0
          ? {
              ...common,
              id: message,
              block_type: 'MESSAGE',
              sub_type: 'MESSAGE',
              parent_block_id: null,
              payload: { role: 'user', content: 'weather?' },
            }
          : {
              ...common,
              id: `tb_${agent}_${index}`,
              block_type: 'ACT',
              sub_type: 'TOOL_CALL',
              parent_block_id: message,
              payload: {
                call_id: `call_${index}`,
                name: 'get_weather',
                arguments: { city: 'Bogotá' },
              },
            };
      sink.write(block as Block);
    }
  });
  await Promise.all(sinks.map((sink) => sink.flush()));
  const seconds = (performance.now() - start) / 1000;
  await Promise.all(sinks.map((sink) => sink.close()));
  return (agents * perAgent) / seconds;
}

async function allBlocks(server: Running): Promise<Block[]> {
  const headers = { authorization: `Bearer ${server.key}` };
  const blocks: Block[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${cursor}`;
    const page = (await (
      await fetch(
        `${server.url}/v1/organizations/default/traces/tr_stitched_10k/blocks?limit=1000${query}`,
        { headers },
      )
    ).json()) as { blocks: Block[]; next_cursor: string | null };
    blocks.push(...page.blocks);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return blocks;
}

if (process.argv[2] === '--serve') {
  await serve(process.argv[3] as Kind);
} else {
  await main();
}
