import { describe, expectTypeOf, it } from 'vitest';
import { ServerError, type ServerErrorCode } from './server-error.js';

describe('ServerError codes', () => {
  it('types code as the class union, also after isInstance', () => {
    expectTypeOf<ServerError['code']>().toEqualTypeOf<ServerErrorCode>();
    const error: unknown = undefined;
    if (ServerError.isInstance(error)) expectTypeOf(error.code).toEqualTypeOf<ServerErrorCode>();
  });
});
