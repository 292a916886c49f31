import { TracewardenError } from '@tracewarden/core';
import { describe, expect, it, vi } from 'vitest';
import { CliError } from './cli-error.js';

describe('CliError.isInstance', () => {
  it('recognises its own errors and those of another copy of the package, and nothing else', async () => {
    const ours = new CliError({ code: 'CLI_USAGE', message: 'm' });
    expect(CliError.isInstance(ours)).toBe(true);
    expect(TracewardenError.isInstance(ours)).toBe(true);
    vi.resetModules();
    const copy = await import('./cli-error.js');
    expect(copy.CliError).not.toBe(CliError);
    const theirs = new copy.CliError({ code: 'CLI_USAGE', message: 'm' });
    expect(theirs instanceof CliError).toBe(false);
    expect(CliError.isInstance(theirs)).toBe(true);
    expect(copy.CliError.isInstance(ours)).toBe(true);
    // another tracewarden error with a code of this class is not one
    expect(CliError.isInstance(new TracewardenError('CLI_USAGE', { message: 'm' }))).toBe(false);
    expect(CliError.isInstance({ code: 'CLI_USAGE', message: 'm' })).toBe(false);
  });
});
