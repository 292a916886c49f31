import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readJsonlLines } from '../datasets/read-jsonl-lines.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { TraceError } from '../errors/index.js';
import { stitchBlocks } from '../stitching/stitch-blocks.js';
import { validateBlocks } from './validate-blocks.js';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

async function rejection(iterable: AsyncIterable<unknown>): Promise<unknown> {
  try {
    for await (const _ of iterable) {
      // drain
    }
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('entry points given something that is not blocks', () => {
  it.each([null, undefined, 5, { id: 'tb_1' }])(
    'validateBlocks(%s) is a VALIDATION TraceError',
    (input) => {
      const error = thrown(() => validateBlocks(input as never));
      expect(error).toBeInstanceOf(TraceError);
      expect((error as TraceError).code).toBe('VALIDATION');
      expect((error as TraceError).message).toContain('validateBlocks');
    },
  );

  it.each([null, undefined, 5, { id: 'tb_1' }])(
    'stitchBlocks(%s) is a VALIDATION TraceError',
    (input) => {
      const error = thrown(() => stitchBlocks(input as never));
      expect(error).toBeInstanceOf(TraceError);
      expect((error as TraceError).code).toBe('VALIDATION');
    },
  );

  it('stitchBlocks takes any iterable of blocks', () => {
    expect(stitchBlocks(new Set() as never).messages).toEqual([]);
  });

  it('readJsonlLines refuses chunks that are neither bytes nor text instead of yielding nothing', async () => {
    for (const chunks of [[[]], [5], [{ line: '{}' }], [new ArrayBuffer(4)]]) {
      const error = await rejection(readJsonlLines(Readable.from(chunks, { objectMode: true })));
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as ConfigurationError).path).toBe('source chunk 0');
    }
    const notIterable = await rejection(readJsonlLines(42 as never));
    expect((notIterable as ConfigurationError).path).toBe('source');
    // bytes and text still work
    const lines: unknown[] = [];
    for await (const { value } of readJsonlLines(
      Readable.from([Buffer.from('{"a":1}\n'), '{"b":2}']),
    ))
      lines.push(value);
    expect(lines).toEqual([{ a: 1 }, { b: 2 }]);
  });
});
