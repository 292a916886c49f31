/**
 * Overhead of `wrapOpenAI`: the same real `openai` client, raw and wrapped (recording every call
 * into an in-memory tracer), against the local scripted server (echo fallback), 2,000 calls each,
 * non-streamed and streamed, in one run. Raw and wrapped calls alternate in small rounds so that
 * server and GC drift hit both alike. Prints the microseconds added per call and the time added
 * to the first chunk (medians). Targets: < 50 µs per call, < 0.1 ms to first chunk.
 */
import { createTracer } from '@tracewarden/core';
import { wrapOpenAI } from '@tracewarden/openai';
import { startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';

const calls = 2000;
const round = 50;

const server = await startScriptedServer({ fallback: 'echo' });
const raw = new OpenAI({ baseURL: server.url, apiKey: 'bench', maxRetries: 0 });
const tracer = createTracer();
const wrapped = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'bench', maxRetries: 0 }), { tracer });
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

async function streamedCall(client: OpenAI): Promise<{ total: number; first: number }> {
  const start = performance.now();
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true });
  let first = -1;
  for await (const _ of stream) if (first < 0) first = performance.now() - start;
  return { total: performance.now() - start, first };
}

async function measure(): Promise<void> {
  const plain = { raw: [] as number[], wrapped: [] as number[] };
  const streamTotal = { raw: [] as number[], wrapped: [] as number[] };
  const firstChunk = { raw: [] as number[], wrapped: [] as number[] };
  // warm-up: JIT, sockets
  for (let i = 0; i < 100; i++) {
    await plainCall(raw);
    await plainCall(wrapped);
    await streamedCall(raw);
    await streamedCall(wrapped);
  }
  for (let done = 0; done < calls; done += round) {
    for (let i = 0; i < round; i++) plain.raw.push(await plainCall(raw));
    for (let i = 0; i < round; i++) plain.wrapped.push(await plainCall(wrapped));
    for (let i = 0; i < round; i++) {
      const r = await streamedCall(raw);
      streamTotal.raw.push(r.total);
      firstChunk.raw.push(r.first);
    }
    for (let i = 0; i < round; i++) {
      const w = await streamedCall(wrapped);
      streamTotal.wrapped.push(w.total);
      firstChunk.wrapped.push(w.first);
    }
  }
  const us = (ms: number) => `${(ms * 1000).toFixed(1).padStart(8)} µs`;
  const row = (name: string, rawMs: number, wrappedMs: number) =>
    console.log(`${name.padEnd(34)} raw ${us(rawMs)}  wrapped ${us(wrappedMs)}  added ${us(wrappedMs - rawMs)}  x${(wrappedMs / rawMs).toFixed(3)}`);
  console.log(`\n## wrapOpenAI overhead (${calls} calls each, medians, local scripted server)`);
  row('chat.completions.create', median(plain.raw), median(plain.wrapped));
  row('chat.completions.create stream', median(streamTotal.raw), median(streamTotal.wrapped));
  row('time to first chunk', median(firstChunk.raw), median(firstChunk.wrapped));
  const meanAdded = (a: number[], b: number[]) => (b.reduce((x, y) => x + y, 0) - a.reduce((x, y) => x + y, 0)) / calls;
  console.log(`mean added per call: ${us(meanAdded(plain.raw, plain.wrapped))} (plain), ${us(meanAdded(streamTotal.raw, streamTotal.wrapped))} (stream)`);
  console.log(`targets: < 50 µs per call, < 100 µs to first chunk; blocks recorded: ${tracer.blocks().length}`);
}

await measure();
await server.close();
