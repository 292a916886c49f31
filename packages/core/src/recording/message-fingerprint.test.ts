import { describe, expect, it } from 'vitest';
import { hashPair, messageFingerprint, responseHashPair } from './message-fingerprint.js';
import type { NeutralMessage } from './types.js';

describe('responseHashPair', () => {
  it('hashes a response exactly as the message the caller re-sends', () => {
    const cases: {
      text: string | null;
      calls: { id: string; name: string; arguments: string | Record<string, unknown> }[];
    }[] = [
      { text: 'Echo: Say something short.', calls: [] },
      { text: null, calls: [] },
      { text: '', calls: [] },
      { text: 'é ☃ 𝄞', calls: [] },
      {
        text: null,
        calls: [
          { id: 'call_1', name: 'get_inbox', arguments: '{"folder": "in"}' },
          { id: 'call_2', name: 'send', arguments: { to: 'a@b.c' } },
          { id: 'call_3', name: 'broken', arguments: '{"not json' },
        ],
      },
      { text: 'Checking', calls: [{ id: 'c', name: 'n', arguments: '' }] },
      // OpenAI-compatible servers may leave a call's id or name out
      { text: null, calls: [{ id: undefined as unknown as string, name: 'f', arguments: '{}' }] },
      { text: null, calls: [{ id: 'c1', name: undefined as unknown as string, arguments: '{}' }] },
    ];
    for (const { text, calls } of cases) {
      const message: NeutralMessage = { role: 'assistant', content: text };
      if (calls.length > 0)
        message.tool_calls = calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        }));
      expect(responseHashPair(text, calls)).toEqual(hashPair(messageFingerprint(message)));
    }
  });
});
