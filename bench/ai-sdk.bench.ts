/**
 * Overhead of `tracewardenMiddleware`: the same AI SDK model (`@ai-sdk/openai-compatible`
 * against the scripted server in a child process, bench/scripted-server-process.ts), raw and
 * wrapped (recording every call into an in-memory tracer), through `generateText` and
 * `streamText`. Raw and wrapped calls alternate call by call (generated calls also through an empty
 * middleware: `wrapLanguageModel`'s own layer, which any middleware pays), so socket and GC drift hit
 * both alike; the wall figure is the median of the paired differences, and so is the CPU figure:
 * the process's CPU time of each call, read around it (see `processCpuMs`).
 * Targets (issue 12): < 50 µs added per call, < 0.1 ms added to the time to first chunk.
 * Raw and ours are also compared alone, paired back to back with no other variant in between:
 * the rotation below keeps five other middlewares between two of our calls.
 * The streamed calls also run, in the same rounds, through middlewares that do no work (or only
 * core's): an empty one (`wrapLanguageModel`'s own cost); two that only re-wrap the stream, the
 * floor any stream-observing middleware pays on this machine: `stream.pipeThrough(new
 * TransformStream())`, and a pull-based `ReadableStream` reading the source's reader, none ahead
 * (the shape of ours, `observeStream`); and that pull stream plus core's recording of the call
 * (the recorder's start, chunks, finish), below which no middleware recording through core goes;
 * and a copy of that last one timing core's recording where it runs (amid the SDK and undici),
 * then the same recording again at once, warm: what the cold run costs more.
 * A last section isolates the middleware from HTTP and from `wrapLanguageModel`'s own layer: a
 * mock model (no network), raw vs wrapped with an empty middleware vs wrapped with ours (and, for
 * streams, the floors), generated and streamed, in CPU time per call; and the model layer alone
 * (doStream read by a reader), in CPU time and in heap bytes allocated per call.
 */

import { GCProfiler } from 'node:v8';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { tracewardenMiddleware } from '@tracewarden/ai-sdk';
import { createAdapterRuntime, createTracer, type Tracer } from '@tracewarden/core';
import {
  generateText,
  type LanguageModel,
  type LanguageModelMiddleware,
  streamText,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import {
  cpuMs,
  median,
  type Pairs,
  pairedPhase,
  roundRobinPhase,
  startServerProcess,
} from './paired.js';

/**
 * CPU time of the whole process so far (every thread: the main one, the GC's helpers), in ms.
 * Not `process.threadCpuUsage()`: this VM's kernel accounts a running thread's own time in ticks
 * of 4 ms (HZ 250), so a call of 3 ms reads 0 or 4 ms, and even sums over 1,500 calls moved by
 * ±100 µs a call (decision 010, session 10). Asked for the whole process, the kernel brings the
 * running thread's time up to date first: exact to the µs, at ~1 µs a read.
 */
function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The floor, shape (a): re-wraps the stream through an identity transform, nothing else. */
const floorTransform: LanguageModelMiddleware = {
  specificationVersion: 'v4',
  async wrapStream({ doStream }) {
    const result = await doStream();
    return { ...result, stream: result.stream.pipeThrough(new TransformStream()) };
  },
};

/**
 * The floor, shape (b): a pull-based `ReadableStream` reading the source's reader, one part per
 * pull and none ahead of the caller (high-water mark 0), nothing else: the shape of
 * `observeStream`.
 */
const floorPull: LanguageModelMiddleware = {
  specificationVersion: 'v4',
  async wrapStream({ doStream }) {
    const result = await doStream();
    const reader = result.stream.getReader();
    return {
      ...result,
      stream: new ReadableStream(
        {
          async pull(controller) {
            const next = await reader.read();
            if (next.done) controller.close();
            else controller.enqueue(next.value);
          },
          cancel: (reason) => reader.cancel(reason),
        },
        { highWaterMark: 0 },
      ),
    };
  },
};

/**
 * Shape (b) plus core's recording of the call, with none of the adapter's translation: the
 * recorder's start (the request, recorded once per conversation), a chunk per text part, usage
 * and finish reason, and finish at the end. What a middleware recording through core cannot go
 * below; ours minus this is the adapter's own share. With `timed`, each piece of the recording is
 * timed where it runs, then the same recording is repeated at once into a second tracer (warm).
 */
function floorPullRecorded(tracer: Tracer, timed?: RecordingTimes): LanguageModelMiddleware {
  const messages = [
    { role: 'system' as const, content: 'You echo.' },
    { role: 'user' as const, content: 'Say something short.' },
  ];
  const recorderInto = (into: Tracer) => {
    const runtime = createAdapterRuntime({ tracer: into }, { entryPoint: 'bench' });
    return (model: { provider: string; modelId: string }) =>
      runtime.recorder.start({
        provider: model.provider,
        model: model.modelId,
        messages,
        stream: true,
      });
  };
  const start = recorderInto(tracer);
  const startWarm = timed === undefined ? undefined : recorderInto(createTracer());
  type Handle = ReturnType<typeof start>;
  const record = (handle: Handle, part: LanguageModelV4StreamPart) => {
    if (part.type === 'text-delta') handle.chunk({ text: part.delta });
    else if (part.type === 'finish')
      handle.chunk({
        finishReason: part.finishReason.unified,
        usage: {
          inputTokens: part.usage.inputTokens.total ?? 0,
          outputTokens: part.usage.outputTokens.total ?? 0,
        },
      });
  };
  return {
    specificationVersion: 'v4',
    async wrapStream({ doStream, model }) {
      const startedAt = timed === undefined ? 0 : performance.now();
      const handle = start(model);
      // only the timed copy keeps times and parts (the untimed floor allocates nothing more)
      const call =
        timed === undefined
          ? undefined
          : {
              start: performance.now() - startedAt,
              chunks: 0,
              parts: [] as LanguageModelV4StreamPart[],
            };
      const result = await doStream();
      const reader = result.stream.getReader();
      return {
        ...result,
        stream: new ReadableStream(
          {
            async pull(controller) {
              const next = await reader.read();
              if (next.done) {
                if (timed === undefined || call === undefined || startWarm === undefined)
                  handle.finish();
                else {
                  const finishing = performance.now();
                  handle.finish();
                  timed.cold.push([call.start, call.chunks, performance.now() - finishing]);
                  // the same recording again, at once: the code and its data are warm now
                  const again = performance.now();
                  const warm = startWarm(model);
                  const started = performance.now();
                  for (const part of call.parts) record(warm, part);
                  const chunked = performance.now();
                  warm.finish();
                  timed.warm.push([
                    started - again,
                    chunked - started,
                    performance.now() - chunked,
                  ]);
                }
                controller.close();
                return;
              }
              const part = next.value;
              if (call === undefined) record(handle, part);
              else {
                const chunking = performance.now();
                record(handle, part);
                call.chunks += performance.now() - chunking;
                call.parts.push(part);
              }
              controller.enqueue(part);
            },
            cancel: (reason) => reader.cancel(reason),
          },
          { highWaterMark: 0 },
        ),
      };
    },
  };
}

/** Core's recording timed inside a call, per call: [start, chunks, finish] in ms. */
interface RecordingTimes {
  /** Where it runs, amid the SDK and undici. */
  cold: [number, number, number][];
  /** The same recording repeated at once after it. */
  warm: [number, number, number][];
}

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
const recordingTimes: RecordingTimes = { cold: [], warm: [] };
/** The generated variants: raw, an empty middleware (wrapLanguageModel's own layer), ours. */
const generateVariants: LanguageModel[] = [
  raw,
  wrapLanguageModel({ model: raw, middleware: {} }),
  wrapped,
];
/** The streamed variants, each run once per round: raw first (the baseline), ours last. */
const streamVariants: [string, LanguageModel][] = [
  ['raw', raw],
  ['empty middleware', wrapLanguageModel({ model: raw, middleware: {} })],
  [
    'floor: pipeThrough(TransformStream)',
    wrapLanguageModel({ model: raw, middleware: floorTransform }),
  ],
  ['floor: pull ReadableStream', wrapLanguageModel({ model: raw, middleware: floorPull })],
  [
    "floor: pull + core's recording",
    wrapLanguageModel({ model: raw, middleware: floorPullRecorded(createTracer()) }),
  ],
  [
    "floor: pull + core's recording, timed inside",
    wrapLanguageModel({
      model: raw,
      middleware: floorPullRecorded(createTracer(), recordingTimes),
    }),
  ],
  ['tracewardenMiddleware', wrapped],
];

interface Sample {
  total: number;
  first: number;
  /** The process's CPU time during the call. */
  cpu: number;
}

async function generated(model: LanguageModel): Promise<Sample> {
  const cpu = processCpuMs();
  const start = performance.now();
  await generateText({ model, instructions: 'You echo.', prompt: 'Say something short.' });
  const total = performance.now() - start;
  return { total, first: total, cpu: processCpuMs() - cpu };
}

async function streamed(model: LanguageModel): Promise<Sample> {
  const cpu = processCpuMs();
  const start = performance.now();
  const result = streamText({ model, instructions: 'You echo.', prompt: 'Say something short.' });
  let first = -1;
  for await (const part of result.stream)
    if (first < 0 && part.type === 'text-delta') first = performance.now() - start;
  return { total: performance.now() - start, first, cpu: processCpuMs() - cpu };
}

try {
  for (let i = 0; i < 300; i++) {
    for (const model of generateVariants) await generated(model);
    for (const [, model] of streamVariants) await streamed(model);
  }
  globalThis.gc?.();
  // raw, wrapLanguageModel with an empty middleware, ours: the order rotating call by call
  const generates = await roundRobinPhase(
    calls,
    generateVariants.map((model) => () => generated(model)),
  );
  const plain: Pairs<Sample> = { raw: generates[0] ?? [], wrapped: generates[2] ?? [] };
  globalThis.gc?.();
  recordingTimes.cold.length = 0;
  recordingTimes.warm.length = 0;
  const streams = await roundRobinPhase(
    calls,
    streamVariants.map(
      ([, model]) =>
        () =>
          streamed(model),
    ),
  );
  const stream: Pairs<Sample> = { raw: streams[0] ?? [], wrapped: streams.at(-1) ?? [] };
  const us = (ms: number) => `${(ms * 1000).toFixed(1).padStart(7)} µs`;
  const row = (name: string, pairs: Pairs<Sample>, key: keyof Sample) => {
    const r = median(pairs.raw.map((sample) => sample[key]));
    const w = median(pairs.wrapped.map((sample) => sample[key]));
    const added = median(
      pairs.wrapped.map((sample, i) => sample[key] - (pairs.raw[i]?.[key] ?? 0)),
    );
    console.log(
      `${name.padEnd(50)} raw ${us(r)}  wrapped ${us(w)}  added ${us(added)}  x${(w / r).toFixed(3)}`,
    );
  };
  console.log(
    `\n## tracewardenMiddleware overhead (${calls} paired calls each, wall: medians of paired differences; server in a child process)`,
  );
  row('generateText', plain, 'total');
  row('streamText', stream, 'total');
  row('time to first chunk', stream, 'first');
  console.log('## process CPU time per call (same calls; added: median of paired differences)');
  row('cpu/call generateText', plain, 'cpu');
  row('cpu/call streamText', stream, 'cpu');
  console.log(
    `targets: < 50 µs added per call, < 100 µs added to first chunk; blocks recorded: ${tracer.blocks().length}`,
  );
  // what wrapLanguageModel's own layer costs, and ours on top of it (same rounds)
  const emptyGenerate = generates[1] ?? [];
  row('generateText, empty middleware vs raw', { raw: plain.raw, wrapped: emptyGenerate }, 'total');
  row(
    'generateText, ours vs empty middleware',
    { raw: emptyGenerate, wrapped: plain.wrapped },
    'total',
  );
  row(
    'cpu/call generateText, empty middleware vs raw',
    { raw: plain.raw, wrapped: emptyGenerate },
    'cpu',
  );
  row(
    'cpu/call generateText, ours vs empty middleware',
    { raw: emptyGenerate, wrapped: plain.wrapped },
    'cpu',
  );
  console.log(
    `## streamText through middlewares that do no work (same ${calls} rounds as above; added: median of paired differences vs raw)`,
  );
  for (const [index, [name]] of streamVariants.entries()) {
    if (index === 0) continue;
    const pairs: Pairs<Sample> = { raw: streams[0] ?? [], wrapped: streams[index] ?? [] };
    row(`${name} total`, pairs, 'total');
    row(`${name} first chunk`, pairs, 'first');
    row(`cpu/call ${name}`, pairs, 'cpu');
  }
  // What core's recording costs where it runs, against the same code at once after it: the
  // difference is what running amid the SDK and undici (cold caches) adds, in CPU, not waiting.
  console.log(
    "## core's recording timed inside the call (the timed floor; median µs per call) vs repeated at once after it (warm)",
  );
  const pieces = ['start', 'chunks', 'finish'] as const;
  const times = (samples: [number, number, number][]) =>
    pieces.map((_, i) => median(samples.map((sample) => sample[i] ?? 0)));
  const cold = times(recordingTimes.cold);
  const warm = times(recordingTimes.warm);
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  for (const [i, piece] of pieces.entries())
    console.log(`${piece.padEnd(50)} in the call ${us(cold[i] ?? 0)}  warm ${us(warm[i] ?? 0)}`);
  console.log(`${'all three'.padEnd(50)} in the call ${us(sum(cold))}  warm ${us(sum(warm))}`);
  // The same comparison with nothing else in the rounds: raw and ours back to back, the order
  // alternating. In the rounds above, five other middlewares run between two of our calls, so
  // our code and data are colder than in a process that runs only its own model calls (decision
  // 010: most of our cost in a streamed call is that coldness). Both figures are printed.
  globalThis.gc?.();
  const pairedGenerate = await pairedPhase(
    calls,
    () => generated(raw),
    () => generated(wrapped),
  );
  const pairedStream = await pairedPhase(
    calls,
    () => streamed(raw),
    () => streamed(wrapped),
  );
  console.log(
    `## raw and tracewardenMiddleware alone, paired (${calls} pairs each, the order alternating; no other variant in between)`,
  );
  row('generateText', pairedGenerate, 'total');
  row('streamText', pairedStream, 'total');
  row('time to first chunk', pairedStream, 'first');
  row('cpu/call generateText', pairedGenerate, 'cpu');
  row('cpu/call streamText', pairedStream, 'cpu');
  await inProcess();
} finally {
  killServer();
}

/**
 * The middleware alone: a mock model in this process, interleaved rounds, CPU time summed per
 * variant over the rounds (as `cpuPerCall` does: the medians of rounds came out in steps of
 * several µs).
 */
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
  const generateModels: [string, LanguageModel][] = [
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
  const streamModels: [string, LanguageModel][] = [
    ...generateModels.slice(0, 2),
    [
      'wrapLanguageModel, floor: pipeThrough(TransformStream)',
      wrapLanguageModel({ model: mock, middleware: floorTransform }),
    ],
    [
      'wrapLanguageModel, floor: pull ReadableStream',
      wrapLanguageModel({ model: mock, middleware: floorPull }),
    ],
    [
      "wrapLanguageModel, floor: pull + core's recording",
      wrapLanguageModel({ model: mock, middleware: floorPullRecorded(createTracer()) }),
    ],
    ...generateModels.slice(2),
  ];
  for (const [label, call, models] of [
    ['generateText', generate, generateModels],
    ['streamText (12 parts)', stream, streamModels],
  ] as const) {
    for (let i = 0; i < 1000; i++) for (const [, model] of models) await call(model);
    // CPU time, not wall time: the stream path waits on timers of the AI SDK's own
    const rounds = await rotatingCpuRounds(models, 31, 200, ([, model]) => call(model));
    console.log(
      `## in process, ${label} on a mock model (main-thread CPU µs per call, mean of 31 rounds of 200 calls, order rotating)`,
    );
    const base = mean(rounds[1] ?? []);
    for (const [index, [name]] of models.entries()) {
      const value = mean(rounds[index] ?? []);
      console.log(
        `${name.padEnd(56)} ${value.toFixed(1).padStart(7)} µs  vs empty middleware ${(value - base).toFixed(1).padStart(6)} µs`,
      );
    }
  }
  await modelLayer(streamModels.slice(1));
}

/**
 * Main-thread CPU µs per call of each variant (the GC's helper threads left out: in a tight loop
 * their work lands on whichever variant runs, and the process's CPU time swung 2x between runs
 * here; tick-accounted, so only sums over long rounds mean anything): `rounds` rounds of `calls`
 * calls each, the order rotating each round so that no variant always follows the one whose
 * garbage it collects.
 * @returns per variant, its per-call figure of each round
 */
async function rotatingCpuRounds<T>(
  variants: readonly T[],
  rounds: number,
  calls: number,
  run: (variant: T) => Promise<unknown>,
): Promise<number[][]> {
  const samples: number[][] = variants.map(() => []);
  for (let round = 0; round < rounds; round++)
    for (let offset = 0; offset < variants.length; offset++) {
      const index = (round + offset) % variants.length;
      const variant = variants[index] as T;
      const start = cpuMs();
      for (let i = 0; i < calls; i++) await run(variant);
      samples[index]?.push(((cpuMs() - start) * 1000) / calls);
    }
  return samples;
}

/** The mean of some numbers. */
function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);
}

/**
 * The model layer alone: `model.doStream()` read to the end by a reader, without `streamText`
 * (whose own CPU time varies by tens of µs between rounds and hides the middlewares'), in
 * main-thread CPU time per call, the order rotating each round.
 */
async function modelLayer(models: [string, LanguageModel][]): Promise<void> {
  const prompt = [
    { role: 'system' as const, content: 'You echo.' },
    { role: 'user' as const, content: [{ type: 'text' as const, text: 'Say something short.' }] },
  ];
  /** What the models here are (`wrapLanguageModel`'s result), as far as this reads them. */
  type StreamingModel = {
    doStream(options: { prompt: typeof prompt }): PromiseLike<{ stream: ReadableStream }>;
  };
  const layers = models.map(([name, model]) => [name, model as StreamingModel] as const);
  const read = async (model: StreamingModel) => {
    const reader = (await model.doStream({ prompt })).stream.getReader();
    while (!(await reader.read()).done);
  };
  for (let i = 0; i < 3000; i++) for (const [, model] of layers) await read(model);
  const rounds = await rotatingCpuRounds(layers, 41, 500, ([, model]) => read(model));
  console.log(
    '## in process, the model layer alone: doStream() read by a reader, 12 parts (main-thread CPU µs per call, mean of 41 rounds of 500 calls, order rotating)',
  );
  const base = mean(rounds[0] ?? []);
  for (const [index, [name]] of layers.entries()) {
    const value = mean(rounds[index] ?? []);
    console.log(
      `${name.padEnd(56)} ${value.toFixed(1).padStart(7)} µs  vs empty middleware ${(value - base).toFixed(1).padStart(6)} µs`,
    );
  }
  // Bytes allocated do not depend on the machine's load (CPU time here moves by a few µs
  // between runs): what each layer leaves for the GC, which costs more amid the SDK and undici.
  console.log(
    '## in process, the model layer alone: heap bytes allocated per call (20,000 calls each, from V8 per-GC statistics)',
  );
  const allocated: number[] = [];
  for (const [, model] of layers) allocated.push(await bytesPerCall(() => read(model), 20_000));
  const empty = allocated[0] ?? 0;
  for (const [index, [name]] of layers.entries()) {
    const bytes = allocated[index] ?? 0;
    console.log(
      `${name.padEnd(56)} ${bytes.toFixed(0).padStart(7)} B   vs empty middleware ${(bytes - empty).toFixed(0).padStart(6)} B`,
    );
  }
}

/**
 * Heap bytes allocated per call of `run`: what was used before each GC minus what was left after
 * the previous one (or at the start), plus what was added after the last (as bench/guards does).
 */
async function bytesPerCall(run: () => Promise<unknown>, calls: number): Promise<number> {
  globalThis.gc?.();
  const profiler = new GCProfiler();
  let after = process.memoryUsage().heapUsed;
  profiler.start();
  for (let i = 0; i < calls; i++) await run();
  const usedAtEnd = process.memoryUsage().heapUsed;
  let bytes = 0;
  for (const gc of profiler.stop()?.statistics ?? []) {
    bytes += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - after);
    after = gc.afterGC.heapStatistics.usedHeapSize;
  }
  return (bytes + Math.max(0, usedAtEnd - after)) / calls;
}
