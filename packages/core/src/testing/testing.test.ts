import { describe, expect, it } from 'vitest';
import { stitchBlocks } from '../stitching/index.js';
import { validateBlocks } from '../validation/index.js';
import { createBlockBuilder, createManualClock } from './index.js';

describe('createBlockBuilder', () => {
  it('builds linked blocks that pass the seed rules and stitch into one tree', () => {
    const b = createBlockBuilder({ traceId: 'tr_fixture' });
    const question = b.message('user', 'weather?');
    const answer = b.message('assistant', null);
    const call = b.toolCall(answer, 'get_weather', { city: 'Bogotá' });
    const blocks = [
      question,
      answer,
      b.think(answer, 'check the forecast'),
      call,
      b.toolResult(call, null, { delta: '22°C', seq: 0 }),
      b.toolResult(call, null, { delta: ' cloudy', seq: 1 }),
    ];
    expect(validateBlocks(blocks)).toEqual({ ok: true, errors: [] });
    const tree = stitchBlocks(blocks);
    expect(tree.messages.map((m) => m.block.id)).toEqual([question.id, answer.id]);
    expect(tree.messages[1]?.tool_calls[0]?.output).toBe('22°C cloudy');
    expect(new Set(blocks.map((block) => block.id)).size).toBe(blocks.length);
  });
});

describe('createManualClock', () => {
  it('moves only when told to', () => {
    const clock = createManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    clock.advance(250);
    expect(clock.now()).toBe(1_250);
    clock.set(5);
    expect(clock.now()).toBe(5);
  });
});
