import { TracewardenError } from '@tracewarden/core';
import { describe, expect, it, vi } from 'vitest';
import { ServerError } from './server-error.js';

describe('ServerError.isInstance', () => {
  it('recognises its own errors and those of another copy of the package, and nothing else', async () => {
    const ours = new ServerError({ code: 'NOT_FOUND', message: 'm' });
    expect(ServerError.isInstance(ours)).toBe(true);
    expect(TracewardenError.isInstance(ours)).toBe(true);
    vi.resetModules();
    const copy = await import('./server-error.js');
    expect(copy.ServerError).not.toBe(ServerError);
    const theirs = new copy.ServerError({ code: 'NOT_FOUND', message: 'm' });
    expect(theirs instanceof ServerError).toBe(false);
    expect(ServerError.isInstance(theirs)).toBe(true);
    expect(copy.ServerError.isInstance(ours)).toBe(true);
    // another tracewarden error with a code of this class is not one
    expect(ServerError.isInstance(new TracewardenError('NOT_FOUND', { message: 'm' }))).toBe(false);
    expect(ServerError.isInstance({ code: 'NOT_FOUND', message: 'm' })).toBe(false);
  });
});
