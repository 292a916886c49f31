import { describe, expect, it } from 'vitest';
import { type PlanReplyContext, planReply } from './plan-reply.js';

function context(overrides: Partial<PlanReplyContext> = {}): PlanReplyContext {
  let calls = 0;
  return {
    requestNumber: 7,
    model: 'm',
    promptText: 'x'.repeat(40),
    chunkSize: 4,
    nextCallId: () => `call_${++calls}`,
    ...overrides,
  };
}

describe('planReply', () => {
  it('estimates usage as characters / 4, reasoning included in output tokens', () => {
    const reply = planReply({ text: 'abcdefgh', reasoning: 'abcd' }, context());
    expect(reply.usage).toEqual({
      inputTokens: 10,
      outputTokens: 3,
      cachedTokens: 0,
      reasoningTokens: 1,
    });
  });

  it('keeps scripted usage and never reports fewer input than cached tokens', () => {
    expect(planReply({ text: 'a', usage: { outputTokens: 9 } }, context()).usage.outputTokens).toBe(
      9,
    );
    const reply = planReply({ text: 'a', usage: { cachedTokens: 500 } }, context());
    expect(reply.usage.inputTokens).toBe(500);
    expect(reply.usage.cachedTokens).toBe(500);
  });

  it('serializes arguments, assigns call ids and picks the finish reason', () => {
    const reply = planReply(
      {
        toolCalls: [
          { name: 'a', arguments: { x: 1 } },
          { name: 'b', arguments: 'raw', id: 'mine' },
          { name: 'c', arguments: {} },
          { type: 'custom', name: 'apply_patch', arguments: '*** Begin Patch' },
          { type: 'shell', arguments: { commands: ['ls'] } },
        ],
      },
      context(),
    );
    expect(reply.toolCalls).toEqual([
      { type: 'function', id: 'call_1', name: 'a', arguments: '{"x":1}' },
      { type: 'function', id: 'mine', name: 'b', arguments: 'raw' },
      { type: 'function', id: 'call_2', name: 'c', arguments: '{}' },
      { type: 'custom', id: 'call_3', name: 'apply_patch', arguments: '*** Begin Patch' },
      { type: 'shell', id: 'call_4', name: 'shell', arguments: '{"commands":["ls"]}' },
    ]);
    expect(reply.finishReason).toBe('tool_calls');
    expect(reply.text).toBeUndefined();
    expect(planReply({ text: 'a' }, context()).finishReason).toBe('stop');
    expect(planReply({ text: 'a', finishReason: 'length' }, context()).finishReason).toBe('length');
  });

  it('answers an empty turn with empty text', () => {
    expect(planReply({}, context()).text).toBe('');
  });
});
