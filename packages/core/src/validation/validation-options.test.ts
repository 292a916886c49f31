import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/index.js';
import { stitchBlocks } from '../stitching/index.js';
import { checkBlock, createBlockValidator, validateBlocks } from './index.js';

const calls: [string, (options: unknown) => unknown][] = [
  ['validateBlocks', (options) => validateBlocks([], options as never)],
  ['checkBlock', (options) => checkBlock({}, options as never)],
  ['createBlockValidator', (options) => createBlockValidator(options as never)],
  ['stitchBlocks', (options) => stitchBlocks([], options as never)],
];

describe.each(calls)('%s options', (name, call) => {
  it.each([
    ['null', null, 'options'],
    ['a string', 'x', 'options'],
    ['a typo', { trace_id: 'tr_1' }, 'trace_id'],
  ])('%s is a ConfigurationError naming it', (_label, options, path) => {
    let error: unknown;
    try {
      call(options);
    } catch (thrown) {
      error = thrown;
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'INVALID_OPTIONS' });
    expect((error as Error).message).toContain(name);
    expect((error as Error).message).toContain(path);
  });

  it('nothing, {} and the known options pass', () => {
    expect(() => call(undefined)).not.toThrow();
    expect(() => call({})).not.toThrow();
    expect(() => call({ traceId: 'tr_1' })).not.toThrow();
  });
});

it('limits is an option of the validators, not of stitchBlocks', () => {
  expect(() => validateBlocks([], { limits: {} })).not.toThrow();
  expect(() => stitchBlocks([], { limits: {} } as never)).toThrow(/limits/);
});
