/**
 * Overhead of `wrapOpenAI`: the same real `openai` client, raw and wrapped (recording every call
 * into an in-memory tracer), against the local scripted server (echo fallback), 2,000 calls each,
 * non-streamed and streamed, in one run. Raw and wrapped calls alternate call by call so that
 * server, socket and GC drift hit both alike; the figure is the median of the paired
 * differences. Prints the microseconds added per call and the time added to the first chunk.
 * Targets: < 50 µs per call, < 0.1 ms to first chunk.
 */
import { createTracer } from '@tracewarden/core';
import { wrapOpenAI } from '@tracewarden/openai';
import { startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';

const calls = 2000;

const server = await startScriptedServer({ fallback: 'echo' });
const raw = new OpenAI({ baseURL: server.url, apiKey: 'bench', maxRetries: 0 });
const tracer = createTracer();
const wrapped = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'bench', maxRetries: 0 }), {
  tracer,
});
const messages = [
  { role: 'system' as const, content: 'You echo.' },
  { role: 'user' as const, content: 'Say something short.' },
];

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function plainCall(client: OpenAI): Promise<number> {
  const start = performance.now();
  await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
  return performance.now() - start;
}

async function streamedCall(
  client: OpenAI,
  includeUsage = false,
): Promise<{ total: number; first: number }> {
  const start = performance.now();
  const stream = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages,
    stream: true,
    ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
  });
  let first = -1;
  for await (const _ of stream) if (first < 0) first = performance.now() - start;
  return { total: performance.now() - start, first };
}

async function measure(): Promise<void> {
  const plain = { raw: [] as number[], wrapped: [] as number[] };
  const streamTotal = { raw: [] as number[], wrapped: [] as number[] };
  const firstChunk = { raw: [] as number[], wrapped: [] as number[] };
  // the wrapper asks for usage (one more chunk from the server): the same request, raw
  const streamUsage = { raw: [] as number[], wrapped: [] as number[] };
  // warm-up: JIT, sockets
  for (let i = 0; i < 200; i++) {
    await plainCall(raw);
    await plainCall(wrapped);
    await streamedCall(raw);
    await streamedCall(wrapped);
  }
  for (let i = 0; i < calls; i++) {
    // alternate which goes first, so neither always meets a warmer socket
    if (i % 2 === 0) {
      plain.raw.push(await plainCall(raw));
      plain.wrapped.push(await plainCall(wrapped));
    } else {
      plain.wrapped.push(await plainCall(wrapped));
      plain.raw.push(await plainCall(raw));
    }
  }
  for (let i = 0; i < calls; i++) {
    const first = i % 2 === 0 ? raw : wrapped;
    const second = first === raw ? wrapped : raw;
    const a = await streamedCall(first);
    const b = await streamedCall(second);
    const [r, w] = first === raw ? [a, b] : [b, a];
    streamTotal.raw.push(r.total);
    streamTotal.wrapped.push(w.total);
    firstChunk.raw.push(r.first);
    firstChunk.wrapped.push(w.first);
  }
  for (let i = 0; i < calls; i++) {
    const rawFirst = i % 2 === 0;
    const r = rawFirst ? await streamedCall(raw, true) : undefined;
    const w = await streamedCall(wrapped);
    streamUsage.raw.push((r ?? (await streamedCall(raw, true))).total);
    streamUsage.wrapped.push(w.total);
  }
  const us = (ms: number) => `${(ms * 1000).toFixed(1).padStart(8)} µs`;
  const paired = (a: number[], b: number[]) => median(b.map((value, i) => value - (a[i] ?? 0)));
  const row = (name: string, pair: { raw: number[]; wrapped: number[] }) =>
    console.log(
      `${name.padEnd(32)} raw ${us(median(pair.raw))}  wrapped ${us(median(pair.wrapped))}  added ${us(paired(pair.raw, pair.wrapped))}  x${(median(pair.wrapped) / median(pair.raw)).toFixed(3)}`,
    );
  console.log(`\n## wrapOpenAI overhead (${calls} calls each, medians, local scripted server)`);
  row('chat.completions.create', plain);
  row('chat.completions.create stream', streamTotal);
  row('time to first chunk', firstChunk);
  row('stream, raw also asking for usage', streamUsage);
  console.log(
    `targets: < 50 µs added per call, < 100 µs added to first chunk; blocks recorded: ${tracer.blocks().length}`,
  );
}

await measure();
await server.close();
