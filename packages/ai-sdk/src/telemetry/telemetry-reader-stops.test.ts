import { createMemorySink, validateBlocks } from '@tracewarden/core';
import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../__fixtures__/mock-model.js';
import { tracewardenTelemetry } from '../index.js';

// A chat route whose client goes away: the reader of streamText stops, and the AI SDK then fires
// neither onEnd nor onAbort. The trace must still reach its sinks and onTraceEnd.
describe('tracewardenTelemetry: the reader of a stream stops early', () => {
  for (const how of ['break', 'cancel'] as const)
    it(`the trace is ended, flushed to its sinks and handed to onTraceEnd (${how})`, async () => {
      const sink = createMemorySink();
      const ended: number[] = [];
      const telemetry = tracewardenTelemetry({
        sinks: [sink],
        pricing: false,
        onTraceEnd: (tracer) => {
          ended.push(tracer.blocks().length);
        },
      });
      const result = streamText({
        model: scriptedModel([{ text: 'A long answer, read only in part.' }]),
        prompt: 'hello',
        telemetry: { integrations: [telemetry] },
      });
      if (how === 'break') {
        for await (const _ of result.textStream) break;
      } else {
        const reader = result.toUIMessageStreamResponse().body?.getReader();
        await reader?.read();
        await reader?.cancel();
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      await telemetry.flush();
      expect(ended).toHaveLength(1);
      const blocks = sink.blocks;
      expect(blocks.map((block) => block.sub_type)).toEqual(['MESSAGE', 'MESSAGE']);
      expect(validateBlocks(blocks).errors).toEqual([]);
    });
});
