import { describe, expect, it } from 'vitest';
import { errorSummary } from './response-metadata.js';

describe('errorSummary', () => {
  it("keeps an HTTP error's status whether the SDK names it status or statusCode", () => {
    const openai = Object.assign(new Error('Rate limit reached'), { status: 429 });
    const aiSdk = Object.assign(new Error('Too Many Requests'), {
      name: 'AI_APICallError',
      statusCode: 429,
    });
    expect(errorSummary(openai)).toMatchObject({ status: 429, message: 'Rate limit reached' });
    expect(errorSummary(aiSdk)).toMatchObject({ status: 429, message: 'Too Many Requests' });
  });

  it('records no status for an error without one, and a thrown non-error by its type', () => {
    expect(errorSummary(new TypeError('boom'))).not.toHaveProperty('status');
    expect(errorSummary('text')).toEqual({ type: 'string', message: 'text' });
  });
});
