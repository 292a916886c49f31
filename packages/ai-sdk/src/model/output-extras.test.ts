import type { LanguageModelV4Content, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { type Block, createTracer, type Tracer, validateBlocks } from '@tracewarden/core';
import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { usage } from '../__fixtures__/mock-model.js';
import { tracewardenMiddleware, tracewardenTelemetry } from '../index.js';
import { OutputExtras } from './output-extras.js';

// An answer's cited sources and generated files are kept in its MESSAGE's metadata (sizes, not
// bytes), generated or streamed alike; they used to be dropped.

const png = Buffer.from('an image, or so').toString('base64');
const content: LanguageModelV4Content[] = [
  { type: 'text', text: 'Here is the chart.' },
  { type: 'source', sourceType: 'url', id: 's1', url: 'https://example.com/a', title: 'A' },
  {
    type: 'source',
    sourceType: 'document',
    id: 's2',
    mediaType: 'application/pdf',
    title: 'Report',
    filename: 'report.pdf',
  },
  { type: 'file', mediaType: 'image/png', data: { type: 'data', data: png } },
];
const finish = { unified: 'stop', raw: 'stop' } as const;

function model(): MockLanguageModelV4 {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'Here is the chart.' },
    { type: 'text-end', id: 't' },
    ...(content.slice(1) as LanguageModelV4StreamPart[]),
    { type: 'finish', finishReason: finish, usage },
  ];
  return new MockLanguageModelV4({
    doGenerate: { content, finishReason: finish, usage, warnings: [] },
    doStream: { stream: simulateReadableStream({ chunks: parts }) },
  });
}

const expected = {
  sources: [
    { source_type: 'url', id: 's1', url: 'https://example.com/a', title: 'A' },
    {
      source_type: 'document',
      id: 's2',
      media_type: 'application/pdf',
      filename: 'report.pdf',
      title: 'Report',
    },
  ],
  files: [{ media_type: 'image/png', size_bytes: 15 }],
};

function answer(tracer: Tracer): Block | undefined {
  expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  return tracer
    .blocks()
    .find((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
}

describe('sources and files in an answer', () => {
  for (const stream of [false, true])
    it(`are recorded in the answer's metadata (middleware${stream ? ', streamed' : ''})`, async () => {
      const tracer = createTracer();
      const wrapped = wrapLanguageModel({
        model: model(),
        middleware: tracewardenMiddleware({ tracer, pricing: false }),
      });
      if (stream) await streamText({ model: wrapped, prompt: 'chart' }).consumeStream();
      else await generateText({ model: wrapped, prompt: 'chart' });
      const message = answer(tracer);
      expect(message?.payload.content).toBe('Here is the chart.');
      expect(message?.metadata).toMatchObject(expected);
    });

  it('are recorded by the telemetry integration too', async () => {
    let traced: Tracer | undefined;
    const telemetry = tracewardenTelemetry({
      pricing: false,
      onTraceEnd: (tracer) => {
        traced = tracer;
      },
    });
    await generateText({
      model: model(),
      prompt: 'chart',
      telemetry: { integrations: [telemetry] },
    });
    expect(traced).toBeDefined();
    expect(answer(traced as Tracer)?.metadata).toMatchObject(expected);
  });

  it('a file given by URL is recorded as its URL, bytes as their size (never the bytes)', () => {
    const extras = new OutputExtras();
    extras.add({
      type: 'file',
      mediaType: 'image/jpeg',
      data: { type: 'url', url: new URL('https://files.example.com/c.jpg') },
    });
    extras.add({
      type: 'file',
      mediaType: 'audio/mp3',
      data: { type: 'data', data: new Uint8Array(7) },
    });
    extras.add({ type: 'file', mediaType: 'image/png', data: 'aGk=' } as never);
    expect(extras.into(undefined)?.metadata).toEqual({
      files: [
        { media_type: 'image/jpeg', url: 'https://files.example.com/c.jpg' },
        { media_type: 'audio/mp3', size_bytes: 7 },
        { media_type: 'image/png', size_bytes: 2 },
      ],
    });
  });
});
