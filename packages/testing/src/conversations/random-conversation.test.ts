import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomConversation } from './random-conversation.js';

describe('randomConversation', () => {
  it('is the same for the same seed, and sends intact over JSON (no lone surrogate)', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const story = randomConversation(seed);
        expect(randomConversation(seed)).toEqual(story);
        const text = JSON.stringify(story);
        expect(text.isWellFormed()).toBe(true);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(story)));
        // tool turns, then one answer with text
        expect(story.turns.at(-1)?.text).toEqual(expect.any(String));
        expect(story.turns.slice(0, -1).every((turn) => (turn.toolCalls?.length ?? 0) > 0)).toBe(
          true,
        );
        const ids = story.turns.flatMap((turn) => turn.toolCalls?.map((call) => call.id) ?? []);
        expect(new Set(ids).size).toBe(ids.length);
      }),
    );
  });

  it('run returns the reply, or throws the fail message; failures can be turned off', () => {
    const story = randomConversation(1);
    expect(() => story.run({ reply: { fail: 'down' } })).toThrow('down');
    expect(story.run({ reply: { fail: 'down', more: 1 } })).toEqual({ fail: 'down', more: 1 });
    expect(story.run({ reply: 3 })).toBe(3);
    const replies = (failures: boolean) =>
      Array.from({ length: 200 }, (_, seed) => randomConversation(seed, { failures })).flatMap(
        (conversation) =>
          conversation.turns.flatMap(
            (turn) =>
              turn.toolCalls?.map((call) => (call.arguments as { reply: unknown }).reply) ?? [],
          ),
      );
    const fails = (reply: unknown) =>
      typeof reply === 'object' && reply !== null && 'fail' in reply;
    expect(replies(true).some(fails)).toBe(true);
    expect(replies(false).some(fails)).toBe(false);
  });
});
