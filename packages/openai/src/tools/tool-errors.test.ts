import { TracewardenError } from '@tracewarden/core';
import { describe, expect, it, vi } from 'vitest';
import { ToolArgumentsError } from './tool-arguments-error.js';
import { UnknownToolError } from './unknown-tool-error.js';

describe('the tool errors of executeToolCalls: isInstance', () => {
  it('recognise their own errors and those of another copy of the package, not each other', async () => {
    const unknown = new UnknownToolError({ toolName: 'rm', known: ['ls'] });
    const badArguments = new ToolArgumentsError({ toolName: 'ls', callId: 'call_1' });
    expect(UnknownToolError.isInstance(unknown)).toBe(true);
    expect(ToolArgumentsError.isInstance(badArguments)).toBe(true);
    expect(UnknownToolError.isInstance(badArguments)).toBe(false);
    expect(ToolArgumentsError.isInstance(unknown)).toBe(false);
    expect(TracewardenError.isInstance(unknown)).toBe(true);
    vi.resetModules();
    const copyUnknown = (await import('./unknown-tool-error.js')).UnknownToolError;
    const copyArguments = (await import('./tool-arguments-error.js')).ToolArgumentsError;
    expect(copyUnknown).not.toBe(UnknownToolError);
    const theirs = new copyUnknown({ toolName: 'rm', known: [] });
    expect(theirs instanceof UnknownToolError).toBe(false);
    expect(UnknownToolError.isInstance(theirs)).toBe(true);
    expect(ToolArgumentsError.isInstance(new copyArguments({ toolName: 'x', callId: 'c' }))).toBe(
      true,
    );
    expect(
      UnknownToolError.isInstance(new TracewardenError('UNKNOWN_TOOL', { message: 'm' })),
    ).toBe(false);
  });
});
