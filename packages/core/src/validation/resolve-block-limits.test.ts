import { describe, expect, it } from 'vitest';
import { TracewardenError } from '../errors/index.js';
import { BlockLimitError } from './block-limit-error.js';
import { defaultBlockLimits } from './default-block-limits.js';
import { resolveBlockLimits } from './resolve-block-limits.js';

describe('resolveBlockLimits', () => {
  it('defaults to the seed limits', () => {
    expect(defaultBlockLimits).toEqual({
      messageBytes: 65_536,
      thinkBytes: 32_768,
      toolArgumentsBytes: 262_144,
      toolResultBytes: 2_097_152,
    });
    expect(resolveBlockLimits(undefined, {})).toEqual(defaultBlockLimits);
  });

  it('reads the LIMIT_* variables, and options win over them', () => {
    const env = {
      LIMIT_MSG_BYTES: '100',
      LIMIT_THINK_BYTES: '200',
      LIMIT_TOOL_ARGS_BYTES: ' 300 ',
      LIMIT_TOOL_RESULT_BYTES: '400',
    };
    expect(resolveBlockLimits(undefined, env)).toEqual({
      messageBytes: 100,
      thinkBytes: 200,
      toolArgumentsBytes: 300,
      toolResultBytes: 400,
    });
    expect(resolveBlockLimits({ thinkBytes: 7 }, env)).toEqual({
      messageBytes: 100,
      thinkBytes: 7,
      toolArgumentsBytes: 300,
      toolResultBytes: 400,
    });
    expect(resolveBlockLimits(undefined, { LIMIT_MSG_BYTES: '' }).messageBytes).toBe(65_536);
  });

  it('reads process.env when called, not at import', () => {
    const previous = process.env.LIMIT_THINK_BYTES;
    process.env.LIMIT_THINK_BYTES = '123';
    try {
      expect(resolveBlockLimits().thinkBytes).toBe(123);
    } finally {
      if (previous === undefined) delete process.env.LIMIT_THINK_BYTES;
      else process.env.LIMIT_THINK_BYTES = previous;
    }
  });

  it('rejects a malformed variable with a typed error naming it', () => {
    for (const value of ['64k', '-1', '0', '1.5', 'NaN', '99999999999999999999']) {
      let error: unknown;
      try {
        resolveBlockLimits(undefined, { LIMIT_TOOL_RESULT_BYTES: value });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(BlockLimitError);
      expect(TracewardenError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'INVALID_BLOCK_LIMIT',
        setting: 'LIMIT_TOOL_RESULT_BYTES',
        value,
      });
      expect((error as Error).message).toContain('LIMIT_TOOL_RESULT_BYTES');
    }
  });

  it('rejects a malformed option with a typed error naming it', () => {
    expect(() => resolveBlockLimits({ messageBytes: 0 }, {})).toThrow(BlockLimitError);
    expect(() => resolveBlockLimits({ messageBytes: Number.NaN }, {})).toThrow(
      /limits\.messageBytes/,
    );
  });
});
