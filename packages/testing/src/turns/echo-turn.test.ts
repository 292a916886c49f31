import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../server/recorded-request.js';
import { echoTurn } from './echo-turn.js';

function requestWith(body: Record<string, unknown> | undefined): RecordedRequest {
  return {
    requestId: 'req_1',
    method: 'POST',
    path: '/v1/responses',
    headers: {},
    body,
    rawBody: '',
    time: 0,
  };
}

describe('echoTurn', () => {
  it('echoes the last user message of chat messages or responses input', () => {
    expect(
      echoTurn(
        requestWith({
          messages: [
            { role: 'user', content: 'one' },
            { role: 'assistant', content: 'x' },
            { role: 'user', content: 'two' },
          ],
        }),
      ),
    ).toEqual({ text: 'Echo: two' });
    expect(echoTurn(requestWith({ input: 'plain' }))).toEqual({ text: 'Echo: plain' });
    expect(
      echoTurn(
        requestWith({
          input: [{ role: 'user', content: [{ type: 'input_text', text: 'parts' }] }],
        }),
      ),
    ).toEqual({ text: 'Echo: parts' });
  });

  it('echoes an empty string when there is no user message', () => {
    expect(echoTurn(requestWith(undefined))).toEqual({ text: 'Echo: ' });
  });
});
