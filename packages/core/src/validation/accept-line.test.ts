import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import { message, smallTrace, toolCall } from './__fixtures__/build-blocks.js';
import { createBlockValidator } from './create-block-validator.js';
import type { BlockLimits } from './types.js';

const small: BlockLimits = {
  messageBytes: 40,
  thinkBytes: 30,
  toolArgumentsBytes: 50,
  toolResultBytes: 60,
};

type Outcome = { block: unknown } | { code: string; message: string };

function outcome(run: () => unknown): Outcome {
  try {
    return { block: run() };
  } catch (error) {
    if (!TraceError.isInstance(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

/** `depth` arrays nested in each other, around `inner`. */
function nested(depth: number, inner: unknown): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

// strings of any UTF-16 units (lone surrogates included), and JSON values built from them
const anyText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', '\ud800', 'a\udc00b', '😀', 'é'.repeat(20), '\\ud800', 'x'.repeat(45)),
);
const anyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyText,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(anyText, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const anyObject = fc.dictionary(anyText, anyJson, { maxKeys: 3 });
const field = fc.oneof(
  { arbitrary: anyJson, weight: 4 },
  { arbitrary: anyObject, weight: 4 },
  { arbitrary: anyObject.map((value) => JSON.stringify(value)), weight: 2 },
  { arbitrary: fc.nat({ max: 1200 }).map((depth) => nested(depth, 1)), weight: 1 },
);

/** A block of any sub type whose fields are mostly JSON of any shape: valid or not. */
const anyBlock = fc.record(
  {
    id: fc.oneof(fc.constant('tb_1'), anyText),
    trace_id: fc.oneof(fc.constant('tr_1'), anyText),
    sub_type: fc.constantFrom('MESSAGE', 'TOOL_CALL', 'THINK', 'TOOL_RESULT', 'OTHER'),
    parent_block_id: fc.constantFrom('tb_m', null),
    payload: fc.record(
      {
        role: fc.constantFrom('user', 'assistant'),
        content: field,
        text: anyText,
        call_id: fc.constantFrom('c1', 'c2'),
        name: fc.constantFrom('get_weather', ''),
        arguments: field,
        output: field,
        seq: fc.constantFrom(0, 1, -1),
        more: field,
      },
      { requiredKeys: [] },
    ),
    metadata: fc.oneof(
      anyObject,
      fc.nat({ max: 1200 }).map((depth) => ({ deep: nested(depth, 1) })),
    ),
    raw: field,
    extra: anyObject,
    created_at: fc.constant('2025-01-31T12:00:00.000Z'),
  },
  { requiredKeys: ['id', 'trace_id', 'sub_type', 'payload', 'created_at'] },
);

/** A validator holding a MESSAGE `tb_m` and its TOOL_CALL `tb_c` (call id `c1`). */
function validatorWithParents(limits: Partial<BlockLimits> | undefined) {
  const validator = createBlockValidator(limits === undefined ? {} : { limits });
  validator.accept(message('tb_m'));
  validator.accept(toolCall('tb_c', 'tb_m', 'c1'));
  return validator;
}

describe('BlockValidator.acceptLine', () => {
  it('accepts a block from its JSON text, as accept does from the parsed object', () => {
    const lines = smallTrace().map((block) => JSON.stringify(block));
    const fromLines = createBlockValidator();
    const fromObjects = createBlockValidator();
    for (const line of lines) {
      const block = fromLines.acceptLine(line);
      expect(block).toEqual(fromObjects.accept(JSON.parse(line)));
      // the validator parsed the line, so the block is its own: not frozen either
      expect(Object.isFrozen(block)).toBe(false);
      expect(Object.isFrozen(block.payload)).toBe(false);
    }
    expect(fromLines.size).toBe(4);
  });

  it('rejects text that is not JSON, and anything but text, with VALIDATION', () => {
    const validator = createBlockValidator();
    const notJson = outcome(() => validator.acceptLine('{"id":'));
    expect(notJson).toMatchObject({ code: 'VALIDATION' });
    expect((notJson as { message: string }).message).toContain('not valid JSON');
    for (const value of [null, 42, { id: 'tb_1' }]) {
      const result = outcome(() => validator.acceptLine(value as unknown as string));
      expect(result).toMatchObject({ code: 'VALIDATION' });
      expect((result as { message: string }).message).toContain('must be JSON text');
    }
    expect(validator.size).toBe(0);
  });

  it('counts a number JSON.stringify writes longer than its text (1e20) against the limit', () => {
    const line = `{"id":"tb_c2","trace_id":"tr_1","sub_type":"TOOL_CALL","parent_block_id":"tb_m","payload":{"call_id":"c2","name":"n","arguments":{"n":[${Array(8).fill('1e20').join(',')}]}},"created_at":"2025-01-31T12:00:00.000Z"}`;
    // the arguments' text (46 characters) is under the limit, their JSON form (8 x 21 digits) over it
    const limits = { toolArgumentsBytes: 100 };
    expect(JSON.stringify(JSON.parse(line).payload.arguments).length).toBeGreaterThan(100);
    expect(outcome(() => validatorWithParents(limits).acceptLine(line))).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('rejects an escaped lone surrogate in an id, a key and a value, and deep metadata', () => {
    const base = {
      id: 'tb_1',
      trace_id: 'tr_1',
      sub_type: 'MESSAGE',
      created_at: '2025-01-31T12:00:00.000Z',
    };
    const cases = [
      { ...base, id: 'tb_\ud800' },
      { ...base, payload: { role: 'user', content: 'a\udc00' } },
      { ...base, payload: { role: 'user', content: 'hi' }, metadata: { 'k\ud800': 1 } },
      { ...base, payload: { role: 'user', content: 'hi' }, metadata: { deep: nested(1001, 1) } },
    ];
    for (const block of cases) {
      const line = JSON.stringify(block);
      expect(outcome(() => createBlockValidator().acceptLine(line))).toMatchObject({
        code: 'VALIDATION',
      });
    }
  });

  it('agrees with accept(JSON.parse(line)) on metadata nested about 1,000 deep in objects and arrays (property)', () => {
    // A line's proof of shallow nesting (parsed-text.ts) on levels of the fewest characters
    // (`[]`, `{"":}`), `percent` of them arrays spread evenly, around the limit: lines of 2,000 to
    // 5,000 characters, longer than the length alone settles.
    fc.assert(
      fc.property(
        fc.integer({ min: 990, max: 1010 }),
        fc.nat(100),
        fc.boolean(),
        fc.nat(40),
        (depth, percent, keyed, pad) => {
          let deep: unknown = 'x'.repeat(pad);
          for (let i = 0; i < depth; i++)
            deep = (i * percent) % 100 < percent ? [deep] : keyed ? { k: deep } : { '': deep };
          const line = JSON.stringify({
            id: 'tb_1',
            trace_id: 'tr_1',
            sub_type: 'MESSAGE',
            payload: { role: 'user', content: 'hi' },
            metadata: { deep },
            created_at: '2025-01-31T12:00:00.000Z',
          });
          const fromLine = outcome(() => createBlockValidator().acceptLine(line));
          const fromObject = outcome(() => createBlockValidator().accept(JSON.parse(line)));
          expect(fromLine).toEqual(fromObject);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('agrees with accept(JSON.parse(line)) on any block, with small and default limits (property)', () => {
    fc.assert(
      fc.property(anyBlock, fc.boolean(), (block, useSmall) => {
        const line = JSON.stringify(block);
        const limits = useSmall ? small : undefined;
        const fromLine = outcome(() => validatorWithParents(limits).acceptLine(line));
        const fromObject = outcome(() => validatorWithParents(limits).accept(JSON.parse(line)));
        expect(fromLine).toEqual(fromObject);
      }),
      { numRuns: 500 },
    );
  });
});
