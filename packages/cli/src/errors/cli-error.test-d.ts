import { describe, expectTypeOf, it } from 'vitest';
import { CliError, type CliErrorCode } from './cli-error.js';

describe('CliError codes', () => {
  it('types code as the class union, also after isInstance', () => {
    expectTypeOf<CliError['code']>().toEqualTypeOf<CliErrorCode>();
    const error: unknown = undefined;
    if (CliError.isInstance(error)) expectTypeOf(error.code).toEqualTypeOf<CliErrorCode>();
  });
});
