import { createTracer, validateBlocks } from '@tracewarden/core';
import { generateText, isStepCount, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../__fixtures__/mock-model.js';
import { tracewardenTelemetry } from '../index.js';

describe('tracewardenTelemetry: the caller aborts while a tool runs', () => {
  for (const streamed of [false, true])
    it(`records the result of the tool that ran (${streamed ? 'streamText' : 'generateText'})`, async () => {
      const tracer = createTracer();
      const ended: number[] = [];
      const telemetry = tracewardenTelemetry({
        tracer,
        pricing: false,
        onTraceEnd: (trace) => {
          ended.push(trace.blocks().length);
        },
      });
      const controller = new AbortController();
      const tools = {
        slow: tool({
          inputSchema: z.object({}),
          execute: async () => {
            setTimeout(() => controller.abort(), 10);
            await new Promise((resolve) => setTimeout(resolve, 60));
            return 'done after the abort';
          },
        }),
      };
      const settings = {
        model: scriptedModel([
          { calls: [{ id: 'c1', name: 'slow', input: {} }] },
          { text: 'final' },
        ]),
        tools,
        prompt: 'go',
        stopWhen: isStepCount(3),
        abortSignal: controller.signal,
        telemetry: { integrations: [telemetry] },
      };
      if (streamed)
        await Promise.resolve(streamText({ ...settings, onError: () => {} }).consumeStream()).catch(
          () => {},
        );
      else await generateText(settings).catch(() => {});
      // the tool's end comes after the call's abort
      await new Promise((resolve) => setTimeout(resolve, 100));
      await telemetry.flush();
      const blocks = tracer.blocks();
      expect(validateBlocks(blocks).errors).toEqual([]);
      const result = blocks.find((block) => block.sub_type === 'TOOL_RESULT');
      expect(result?.payload.output).toBe('done after the abort');
      // the trace ended once, with the result in it
      expect(ended).toEqual([blocks.length]);
    });
});
