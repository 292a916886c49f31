/**
 * Overhead of `tracewardenMiddleware`: the same AI SDK model (`@ai-sdk/openai-compatible`
 * against the scripted server in a child process, bench/scripted-server-process.ts), raw and
 * wrapped (recording every call into an in-memory tracer), through `generateText` and
 * `streamText`. Raw and wrapped calls alternate call by call, paired, so socket and GC drift hit
 * both alike; the wall figure is the median of the paired differences. Also prints the main
 * thread's CPU time per call (blocks of 100, summed per kind).
 * Targets (issue 12): < 50 µs added per call, < 0.1 ms added to the time to first chunk.
 * A last section isolates the middleware from HTTP and from `wrapLanguageModel`'s own layer: a
 * mock model (no network), raw vs wrapped with an empty middleware vs wrapped with ours, generated
 * and streamed, in CPU time per call.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { tracewardenMiddleware } from '@tracewarden/ai-sdk';
import { createTracer } from '@tracewarden/core';
import { generateText, type LanguageModel, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { cpuPerCall, median, type Pairs, pairedPhase, startServerProcess } from './paired.js';

const calls = 1500;

const { url, kill: killServer } = await startServerProcess();

const provider = createOpenAICompatible({
  name: 'openai',
  baseURL: url,
  apiKey: 'bench',
  includeUsage: true,
});
const raw = provider('gpt-4o-mini');
const tracer = createTracer();
const wrapped = wrapLanguageModel({ model: raw, middleware: tracewardenMiddleware({ tracer }) });

interface Sample {
  total: number;
  first: number;
}

async function generated(model: LanguageModel): Promise<Sample> {
  const start = performance.now();
  await generateText({ model, instructions: 'You echo.', prompt: 'Say something short.' });
  const total = performance.now() - start;
  return { total, first: total };
}

async function streamed(model: LanguageModel): Promise<Sample> {
  const start = performance.now();
  const result = streamText({ model, instructions: 'You echo.', prompt: 'Say something short.' });
  let first = -1;
  for await (const part of result.stream)
    if (first < 0 && part.type === 'text-delta') first = performance.now() - start;
  return { total: performance.now() - start, first };
}

try {
  for (let i = 0; i < 300; i++) {
    await generated(raw);
    await generated(wrapped);
    await streamed(raw);
    await streamed(wrapped);
  }
  globalThis.gc?.();
  const plain = await pairedPhase(
    calls,
    () => generated(raw),
    () => generated(wrapped),
  );
  globalThis.gc?.();
  const stream = await pairedPhase(
    calls,
    () => streamed(raw),
    () => streamed(wrapped),
  );
  globalThis.gc?.();
  const cpuPlain = await cpuPerCall(
    calls,
    () => generated(raw),
    () => generated(wrapped),
  );
  const cpuStream = await cpuPerCall(
    calls,
    () => streamed(raw),
    () => streamed(wrapped),
  );
  const us = (ms: number) => `${(ms * 1000).toFixed(1).padStart(7)} µs`;
  const row = (name: string, pairs: Pairs<Sample>, key: keyof Sample) => {
    const r = median(pairs.raw.map((sample) => sample[key]));
    const w = median(pairs.wrapped.map((sample) => sample[key]));
    const added = median(
      pairs.wrapped.map((sample, i) => sample[key] - (pairs.raw[i]?.[key] ?? 0)),
    );
    console.log(
      `${name.padEnd(30)} raw ${us(r)}  wrapped ${us(w)}  added ${us(added)}  x${(w / r).toFixed(3)}`,
    );
  };
  const cpuRow = (name: string, cpu: { raw: number; wrapped: number }) =>
    console.log(
      `${`cpu/call ${name}`.padEnd(30)} raw ${us(cpu.raw)}  wrapped ${us(cpu.wrapped)}  added ${us(cpu.wrapped - cpu.raw)}  x${(cpu.wrapped / cpu.raw).toFixed(3)}`,
    );
  console.log(
    `\n## tracewardenMiddleware overhead (${calls} paired calls each, wall: medians of paired differences; server in a child process)`,
  );
  row('generateText', plain, 'total');
  row('streamText', stream, 'total');
  row('time to first chunk', stream, 'first');
  console.log('## client main-thread CPU time per call (blocks of 100, summed per kind)');
  cpuRow('generateText', cpuPlain);
  cpuRow('streamText', cpuStream);
  console.log(
    `targets: < 50 µs added per call, < 100 µs added to first chunk; blocks recorded: ${tracer.blocks().length}`,
  );
  await inProcess();
} finally {
  killServer();
}

/** The middleware alone: a mock model in this process, interleaved rounds, medians. */
async function inProcess(): Promise<void> {
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  };
  const words = 'Echo: Say something short please and thanks'.split(' ');
  const mock = new MockLanguageModelV4({
    modelId: 'gpt-4o-mini',
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'Echo: Say something short.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }),
    // twelve parts, as a short streamed answer has
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'response-metadata', id: 'r1', modelId: 'gpt-4o-mini' });
          controller.enqueue({ type: 'text-start', id: 't' });
          for (const word of words)
            controller.enqueue({ type: 'text-delta', id: 't', delta: `${word} ` });
          controller.enqueue({ type: 'text-end', id: 't' });
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
          });
          controller.close();
        },
      }),
    }),
  });
  const models: [string, LanguageModel][] = [
    ['raw mock', mock],
    ['wrapLanguageModel, empty middleware', wrapLanguageModel({ model: mock, middleware: {} })],
    [
      'wrapLanguageModel, tracewardenMiddleware',
      wrapLanguageModel({
        model: mock,
        middleware: tracewardenMiddleware({ tracer: createTracer() }),
      }),
    ],
  ];
  const generate = async (model: LanguageModel) => {
    await generateText({ model, instructions: 'You echo.', prompt: 'Say something short.' });
  };
  const stream = async (model: LanguageModel) => {
    const result = streamText({ model, instructions: 'You echo.', prompt: 'Say something short.' });
    for await (const _part of result.stream);
  };
  for (const [label, call] of [
    ['generateText', generate],
    ['streamText (12 parts)', stream],
  ] as const) {
    for (let i = 0; i < 1000; i++) for (const [, model] of models) await call(model);
    // CPU time, not wall time: the stream path waits on timers of the AI SDK's own
    const rounds: number[][] = models.map(() => []);
    for (let round = 0; round < 15; round++)
      for (const [index, [, model]] of models.entries()) {
        const start = process.cpuUsage();
        for (let i = 0; i < 200; i++) await call(model);
        const used = process.cpuUsage(start);
        rounds[index]?.push((used.user + used.system) / 200);
      }
    console.log(
      `## in process, ${label} on a mock model (CPU µs per call, median of 15 rounds of 200 calls)`,
    );
    const base = median(rounds[1] ?? []);
    for (const [index, [name]] of models.entries()) {
      const value = median(rounds[index] ?? []);
      console.log(
        `${name.padEnd(42)} ${value.toFixed(1).padStart(7)} µs  vs empty middleware ${(value - base).toFixed(1).padStart(6)} µs`,
      );
    }
  }
}
