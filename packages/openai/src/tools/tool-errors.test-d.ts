import { describe, expectTypeOf, it } from 'vitest';
import { ToolArgumentsError, type ToolArgumentsErrorCode } from './tool-arguments-error.js';
import { UnknownToolError, type UnknownToolErrorCode } from './unknown-tool-error.js';

describe('tool error codes', () => {
  it('types each code as its class union, also after isInstance', () => {
    expectTypeOf<UnknownToolErrorCode>().toEqualTypeOf<'UNKNOWN_TOOL'>();
    expectTypeOf<ToolArgumentsErrorCode>().toEqualTypeOf<'TOOL_ARGUMENTS_INVALID'>();
    const error: unknown = undefined;
    if (UnknownToolError.isInstance(error))
      expectTypeOf(error.code).toEqualTypeOf<UnknownToolErrorCode>();
    if (ToolArgumentsError.isInstance(error))
      expectTypeOf(error.code).toEqualTypeOf<ToolArgumentsErrorCode>();
  });
});
