import { describe, expect, it } from 'vitest';
import { createMemorySink } from '../sinks/create-memory-sink.js';
import { createTracer } from '../tracing/create-tracer.js';
import { validateBlocks } from '../validation/validate-blocks.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';

describe('an answer whose text is over the message byte limit', () => {
  it('keeps its usage, cost and tool calls: the MESSAGE is recorded without the text, saying so', () => {
    for (const sinks of [[], [createMemorySink()]]) {
      const tracer = createTracer({ sinks });
      const errors: unknown[] = [];
      const recorder = createModelCallRecorder({
        tracer,
        onRecordingError: (error) => errors.push(error),
      });
      recorder
        .start({ provider: 'p', model: 'm', messages: [{ role: 'user', content: 'hi' }] })
        .finish({
          text: 'x'.repeat(70_000),
          // the provider's response, which holds the text again
          raw: { choices: [{ message: { content: 'x'.repeat(70_000) } }] },
          toolCalls: [{ id: 'c1', name: 'send', arguments: '{}' }],
          usage: { inputTokens: 1, outputTokens: 2 },
        });
      const blocks = tracer.blocks();
      expect(blocks.map((block) => block.sub_type)).toEqual(['MESSAGE', 'MESSAGE', 'TOOL_CALL']);
      const answer = blocks[1];
      expect(answer?.payload).toMatchObject({ role: 'assistant', content: null });
      expect(answer?.raw).toBeNull();
      expect(answer?.metadata).toMatchObject({
        usage: expect.anything(),
        content_omitted: { reason: 'PAYLOAD_TOO_LARGE', limit_bytes: 65_536, actual_bytes: 70_000 },
      });
      expect(blocks[2]?.parent_block_id).toBe(answer?.id);
      // still reported: the text is not in the trace
      expect(errors).toEqual([expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' })]);
      expect(validateBlocks(blocks).ok).toBe(true);
    }
  });
});
