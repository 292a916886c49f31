/**
 * The first model call of a cold process (a serverless cold start): `wrapOpenAI` against the raw
 * client, each in its own fresh `node` process, over a fetch that answers after LATENCY ms (the
 * model's own latency; no network). The figure is the first call's wall time past that latency,
 * as a median over the processes; "added" is the wrapped client's median minus the raw client's.
 * Rows: today's adapter, which loads the price table (~40-55 ms here) in the background as the
 * call starts so the load overlaps the model's latency; and the same adapter with a pricer that
 * loads the table only when the response is priced (what it did before), for comparison.
 * Nothing here asserts timing.
 *
 * Env: SAMPLES (processes per row, default 15), LATENCY (ms, default 150).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { packageConditions } from './lib.js';
import { median } from './paired.js';

type Row = 'raw' | 'wrapped' | 'load-when-priced';
const latency = Number(process.env.LATENCY ?? 150);

async function child(row: Row): Promise<void> {
  const { default: OpenAI } = await import('openai');
  const { wrapOpenAI } = await import('@tracewarden/openai');
  const { createModelCallPricer, createTracer } = await import('@tracewarden/core');
  const body = JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
  });
  const fetch = () =>
    new Promise<Response>((resolve) =>
      setTimeout(
        () =>
          resolve(
            new Response(body, {
              headers: { 'content-type': 'application/json', 'x-request-id': 'req_1' },
            }),
          ),
        latency,
      ),
    );
  const raw = new OpenAI({ apiKey: 'bench', fetch, maxRetries: 0 });
  const tracer = createTracer();
  let client = raw;
  if (row === 'wrapped') client = wrapOpenAI(raw, { tracer });
  if (row === 'load-when-priced') {
    // the same pricer, called through a plain function: no `prepare`, so no early load
    const pricer = createModelCallPricer({ provider: 'openai', unknownModel: 'warn' });
    client = wrapOpenAI(raw, {
      tracer,
      pricing: (model, usage, provider) => pricer(model, usage, provider),
    });
  }
  const start = performance.now();
  await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
  });
  const past = performance.now() - start - latency;
  if (row !== 'raw' && tracer.blocks().at(-1)?.metadata.cost === undefined)
    throw new Error('the call was not priced');
  process.stdout.write(`${past}\n`);
}

const row = process.env.FIRST_CALL_ROW as Row | undefined;
if (row !== undefined) {
  await child(row);
} else {
  const samples = Math.max(3, Number(process.env.SAMPLES ?? 15));
  const self = fileURLToPath(import.meta.url);
  const rows: Row[] = ['raw', 'wrapped', 'load-when-priced'];
  const times = new Map<Row, number[]>(rows.map((r) => [r, []]));
  for (let i = 0; i < samples; i++) {
    // interleaved, so a burst of load hits every row alike
    for (const r of rows) {
      const result = spawnSync(
        process.execPath,
        [...packageConditions(), '--import', 'tsx', self],
        { env: { ...process.env, FIRST_CALL_ROW: r }, encoding: 'utf8' },
      );
      if (result.status !== 0) throw new Error(`${r} child failed: ${result.stderr}`);
      times.get(r)?.push(Number(result.stdout.trim()));
    }
  }
  const base = median(times.get('raw') ?? []);
  console.log(
    `## first model call of a fresh process, past a ${latency} ms model latency (median of ${samples} processes per row)`,
  );
  for (const r of rows) {
    const value = median(times.get(r) ?? []);
    const added = r === 'raw' ? '' : `  added ${(value - base).toFixed(1).padStart(6)} ms`;
    console.log(`${r.padEnd(20)} ${value.toFixed(1).padStart(7)} ms${added}`);
  }
}
