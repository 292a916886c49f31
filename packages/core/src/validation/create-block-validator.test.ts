import { describe, expect, it } from 'vitest';
import { TraceError, TracewardenError } from '../errors/index.js';
import {
  createdAt,
  message,
  smallTrace,
  think,
  toolCall,
  toolResult,
} from './__fixtures__/build-blocks.js';
import { createBlockValidator } from './create-block-validator.js';

function rejection(run: () => unknown): TraceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TraceError);
    return error as TraceError;
  }
  throw new Error('expected a TraceError');
}

describe('createBlockValidator', () => {
  it('accepts a block and returns a normalised copy of it when a field is absent, leaving the input as it was', () => {
    const validator = createBlockValidator();
    const input = message('tb_m');
    const before = structuredClone(input);
    const block = validator.accept(input);
    expect(block).toEqual({
      id: 'tb_m',
      trace_id: 'tr_1',
      block_type: 'MESSAGE',
      sub_type: 'MESSAGE',
      payload: { role: 'user', content: "what's the weather?" },
      parent_block_id: null,
      metadata: {},
      raw: null,
      extra: {},
      created_at: createdAt,
      updated_at: createdAt,
    });
    // the defaults went into a copy: the input is neither changed nor frozen
    expect(block).not.toBe(input);
    expect(input).toEqual(before);
    expect(Object.keys(input)).toEqual(Object.keys(before));
    expect(Object.isFrozen(input)).toBe(false);
    expect(Object.isFrozen(input.payload)).toBe(false);
    // the payload is the given one, not a copy
    expect(block.payload).toBe(input.payload);
    expect(validator.get('tb_m')).toBe(block);
    expect(validator.size).toBe(1);
  });

  it('returns a block that has every field and no other as the same object, unchanged and unfrozen', () => {
    const validator = createBlockValidator();
    const input = {
      id: 'tb_m',
      trace_id: 'tr_1',
      block_type: 'MESSAGE',
      sub_type: 'MESSAGE',
      payload: { role: 'user', content: 'hi' },
      parent_block_id: null,
      metadata: { model: 'gpt' },
      raw: null,
      extra: {},
      created_at: createdAt,
      updated_at: createdAt,
    };
    const before = structuredClone(input);
    const block = validator.accept(input);
    expect(block).toBe(input);
    expect(input).toEqual(before);
    expect(Object.isFrozen(input)).toBe(false);
    expect(Object.isFrozen(input.payload)).toBe(false);
    expect(Object.isFrozen(input.metadata)).toBe(false);
    expect(validator.get('tb_m')).toBe(input);
    // one field more than a block has: copied, so the stored block has none but its own
    const call = { ...input, id: 'tb_m2', note: 'dropped' };
    const copied = validator.accept(call);
    expect(copied).not.toBe(call);
    expect(copied).not.toHaveProperty('note');
    expect(call.note).toBe('dropped');
  });

  it('derives block_type from sub_type and keeps given metadata, raw, extra and updated_at', () => {
    const validator = createBlockValidator();
    validator.accept(message('tb_m'));
    const call = validator.accept({
      ...toolCall('tb_c', 'tb_m'),
      block_type: 'ACT',
      metadata: { model: 'gpt' },
      raw: { provider: 1 },
      extra: { reward: 1 },
      updated_at: '2025-01-31T12:00:01Z',
      unknown_field: 'dropped',
    });
    expect(call.block_type).toBe('ACT');
    expect(call.metadata).toEqual({ model: 'gpt' });
    expect(call.raw).toEqual({ provider: 1 });
    expect(call.extra).toEqual({ reward: 1 });
    expect(call.updated_at).toBe('2025-01-31T12:00:01Z');
    expect(call).not.toHaveProperty('unknown_field');
    expect(validator.accept(toolResult('tb_r', 'tb_c', 'call_tb_c')).block_type).toBe('OBSERVE');
    expect(validator.accept(think('tb_t', 'tb_m')).block_type).toBe('ACT');
  });

  it('accepts tool arguments given as an object or as JSON text of one, keeping them as given', () => {
    const validator = createBlockValidator();
    validator.accept(message('tb_m'));
    const text = '{"city":"bogotá"}';
    const call = validator.accept({
      ...toolCall('tb_c', 'tb_m'),
      payload: { call_id: 'c1', name: 'get_weather', arguments: text },
    });
    expect(call.payload.arguments).toBe(text);
  });

  it('exposes the limits in force, options first', () => {
    const validator = createBlockValidator({ limits: { thinkBytes: 10 } });
    expect(validator.limits.thinkBytes).toBe(10);
    expect(validator.limits.messageBytes).toBe(65_536);
    expect(Object.isFrozen(validator.limits)).toBe(true);
  });

  it('streams results: many results per call, with distinct seqs or none', () => {
    const validator = createBlockValidator();
    validator.accept(message('tb_m'));
    validator.accept(toolCall('tb_c', 'tb_m', 'c1'));
    validator.accept({
      ...toolResult('tb_r0', 'tb_c', 'c1'),
      payload: { call_id: 'c1', delta: 'a', seq: 0 },
    });
    validator.accept({
      ...toolResult('tb_r1', 'tb_c', 'c1'),
      payload: { call_id: 'c1', delta: 'b', seq: 1 },
    });
    // results without seq never collide
    validator.accept(toolResult('tb_r2', 'tb_c', 'c1'));
    validator.accept(toolResult('tb_r3', 'tb_c', 'c1'));
    expect(validator.size).toBe(6);
  });
});

describe('error codes', () => {
  function setUp() {
    const validator = createBlockValidator({ traceId: 'tr_1' });
    validator.accept(message('tb_m'));
    validator.accept(toolCall('tb_c', 'tb_m', 'c1'));
    validator.accept({
      ...toolResult('tb_r', 'tb_c', 'c1'),
      payload: { call_id: 'c1', delta: 'x', seq: 0 },
    });
    return validator;
  }

  it('422 VALIDATION for a missing parent, with the seed body', () => {
    const validator = setUp();
    const { parent_block_id: _, ...orphan } = think('tb_t', 'tb_m');
    const error = rejection(() => validator.accept(orphan));
    expect(error.code).toBe('VALIDATION');
    expect(error.httpStatus).toBe(422);
    expect(TracewardenError.isInstance(error)).toBe(true);
    expect(error.toJSON()).toEqual({
      error: {
        code: 'VALIDATION',
        http_status: 422,
        message: 'block tb_t: a THINK block needs parent_block_id: the id of its MESSAGE block',
        details: {
          sub_type: 'THINK',
          trace_id: 'tr_1',
          parent_block_id: null,
          block_id: 'tb_t',
          field: 'parent_block_id',
        },
      },
    });
    expect(Object.keys(error.toJSON())).toEqual(['error']);
    expect(Object.keys(error.toJSON().error)).toEqual([
      'code',
      'http_status',
      'message',
      'details',
    ]);
  });

  it('422 VALIDATION for an unknown parent, a parent on a MESSAGE, and another trace', () => {
    const validator = setUp();
    const unknown = rejection(() => validator.accept(think('tb_t', 'tb_nope')));
    expect(unknown.toJSON().error).toMatchObject({
      code: 'VALIDATION',
      http_status: 422,
      details: { field: 'parent_block_id', parent_block_id: 'tb_nope' },
    });
    const rooted = rejection(() =>
      validator.accept({ ...message('tb_m2'), parent_block_id: 'tb_m' }),
    );
    expect(rooted.toJSON().error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'parent_block_id', sub_type: 'MESSAGE' },
    });
    const foreign = rejection(() => validator.accept(message('tb_x', 'tr_2')));
    expect(foreign.toJSON().error).toMatchObject({
      code: 'VALIDATION',
      details: { field: 'trace_id', trace_id: 'tr_2' },
    });
    expect(foreign.message).toContain('tr_2');
  });

  it('409 PARENT_SUBTYPE_MISMATCH for a parent of the wrong sub type', () => {
    const validator = setUp();
    const error = rejection(() => validator.accept(toolCall('tb_c2', 'tb_c', 'c2')));
    expect(error.toJSON()).toEqual({
      error: {
        code: 'PARENT_SUBTYPE_MISMATCH',
        http_status: 409,
        message:
          "block tb_c2: a TOOL_CALL block's parent must be a MESSAGE block, but tb_c is a TOOL_CALL",
        details: {
          sub_type: 'TOOL_CALL',
          trace_id: 'tr_1',
          parent_block_id: 'tb_c',
          block_id: 'tb_c2',
          field: 'parent_block_id',
          parent_sub_type: 'TOOL_CALL',
        },
      },
    });
    expect(rejection(() => validator.accept(toolResult('tb_r2', 'tb_m', 'c1'))).code).toBe(
      'PARENT_SUBTYPE_MISMATCH',
    );
    expect(rejection(() => validator.accept(think('tb_t', 'tb_r'))).code).toBe(
      'PARENT_SUBTYPE_MISMATCH',
    );
  });

  it('409 DUPLICATE_CALL_ID for a second TOOL_CALL with the same call_id', () => {
    const validator = setUp();
    const error = rejection(() => validator.accept(toolCall('tb_c2', 'tb_m', 'c1')));
    expect(error.toJSON()).toEqual({
      error: {
        code: 'DUPLICATE_CALL_ID',
        http_status: 409,
        message:
          'block tb_c2: trace already has a TOOL_CALL with call_id c1; give each call its own id',
        details: {
          sub_type: 'TOOL_CALL',
          trace_id: 'tr_1',
          parent_block_id: 'tb_m',
          block_id: 'tb_c2',
          field: 'call_id',
          call_id: 'c1',
        },
      },
    });
  });

  it('409 DUPLICATE_RESULT_SEQ for a seq already taken among many, in any order', () => {
    const validator = setUp();
    const piece = (id: string, seq: number) => ({
      ...toolResult(id, 'tb_c', 'c1'),
      payload: { call_id: 'c1', delta: `piece ${seq}`, seq },
    });
    // tb_r already holds seq 0
    validator.accept(piece('tb_s2', 2));
    validator.accept(piece('tb_s1', 1));
    for (const seq of [0, 1, 2]) {
      expect(rejection(() => validator.accept(piece(`tb_d${seq}`, seq))).code).toBe(
        'DUPLICATE_RESULT_SEQ',
      );
    }
    expect(validator.accept(piece('tb_s3', 3)).payload.seq).toBe(3);
  });

  it('409 DUPLICATE_RESULT_SEQ for the same (call_id, seq)', () => {
    const validator = setUp();
    const error = rejection(() =>
      validator.accept({
        ...toolResult('tb_r2', 'tb_c', 'c1'),
        payload: { call_id: 'c1', delta: 'y', seq: 0 },
      }),
    );
    expect(error.toJSON()).toEqual({
      error: {
        code: 'DUPLICATE_RESULT_SEQ',
        http_status: 409,
        message:
          'block tb_r2: call c1 already has a TOOL_RESULT with seq 0; number each streamed piece once',
        details: {
          sub_type: 'TOOL_RESULT',
          trace_id: 'tr_1',
          parent_block_id: 'tb_c',
          block_id: 'tb_r2',
          field: 'seq',
          call_id: 'c1',
          seq: 0,
        },
      },
    });
  });

  it('413 PAYLOAD_TOO_LARGE with the seed details, for every limited field', () => {
    const validator = createBlockValidator({ traceId: 'tr_1' });
    validator.accept(message('tb_m'));
    validator.accept(toolCall('tb_c', 'tb_m', 'c1'));
    const big = 'x'.repeat(2_097_153);
    const error = rejection(() =>
      validator.accept({
        ...toolResult('tb_r', 'tb_c', 'c1'),
        payload: { call_id: 'c1', output: big },
      }),
    );
    // exactly the seed's body, key order included
    expect(JSON.stringify(error)).toBe(
      JSON.stringify({
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          http_status: 413,
          message: 'tool_result output exceeds 2MB limit',
          details: {
            sub_type: 'TOOL_RESULT',
            field: 'output',
            limit_bytes: 2_097_152,
            actual_bytes: 2_097_153,
            trace_id: 'tr_1',
            parent_block_id: 'tb_c',
          },
        },
      }),
    );
    const small = createBlockValidator({
      limits: { messageBytes: 4, thinkBytes: 4, toolArgumentsBytes: 4, toolResultBytes: 4 },
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ ...message('tb_m'), payload: { role: 'user', content: 'hello' } }, 'content'],
      [
        {
          ...message('tb_m'),
          payload: { role: 'user', content: [{ type: 'text', text: 'hello' }] },
        },
        'content',
      ],
      [{ ...think('tb_t', 'tb_m'), payload: { text: 'hello' } }, 'text'],
      [
        { ...toolCall('tb_c', 'tb_m'), payload: { call_id: 'c', name: 'n', arguments: '{"a":1}' } },
        'arguments',
      ],
      [
        { ...toolCall('tb_c', 'tb_m'), payload: { call_id: 'c', name: 'n', arguments: { a: 1 } } },
        'arguments',
      ],
      [{ ...toolResult('tb_r', 'tb_c'), payload: { call_id: 'c', delta: 'hello' } }, 'delta'],
    ];
    for (const [input, field] of cases) {
      const [first, ...rest] = small.check(input);
      expect(first?.toJSON().error).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        http_status: 413,
        details: { field, limit_bytes: 4 },
      });
      // the parent does not exist in `small`: reported too, after the size problem
      expect(rest.every((e) => e.code !== 'PAYLOAD_TOO_LARGE')).toBe(true);
    }
  });

  it('422 VALIDATION for each payload rule', () => {
    const validator = setUp();
    const bad: [Record<string, unknown>, string][] = [
      [{ ...message('tb_x'), payload: { role: 'tool', content: 'x' } }, 'role'],
      [{ ...message('tb_x'), payload: { role: 'user', content: '' } }, 'content'],
      [{ ...message('tb_x'), payload: { role: 'system' } }, 'content'],
      [{ ...message('tb_x'), payload: { role: 'user', content: [] } }, 'content'],
      [
        { ...message('tb_x'), payload: { role: 'user', content: [{ text: 'no type' }] } },
        'content.0',
      ],
      [{ ...message('tb_x'), payload: { role: 'user', content: 42 } }, 'content'],
      [
        { ...toolCall('tb_x', 'tb_m'), payload: { call_id: 'c9', name: '', arguments: {} } },
        'name',
      ],
      [
        { ...toolCall('tb_x', 'tb_m'), payload: { call_id: 'c9', name: 'n', arguments: '{oops' } },
        'arguments',
      ],
      [
        { ...toolCall('tb_x', 'tb_m'), payload: { call_id: 'c9', name: 'n', arguments: '[1]' } },
        'arguments',
      ],
      [{ ...toolCall('tb_x', 'tb_m'), payload: { call_id: 'c9', name: 'n' } }, 'arguments'],
      [
        { ...toolCall('tb_x', 'tb_m'), payload: { call_id: '', name: 'n', arguments: {} } },
        'call_id',
      ],
      [{ ...think('tb_x', 'tb_m'), payload: { text: '' } }, 'text'],
      [{ ...toolResult('tb_x', 'tb_c', 'c1'), payload: { call_id: 'c1' } }, 'output'],
      [
        { ...toolResult('tb_x', 'tb_c', 'c1'), payload: { call_id: 'c1', output: 1, delta: 2 } },
        'output',
      ],
      [
        { ...toolResult('tb_x', 'tb_c', 'c1'), payload: { call_id: 'c1', output: 1, seq: -1 } },
        'seq',
      ],
      [
        { ...toolResult('tb_x', 'tb_c', 'c1'), payload: { call_id: 'c1', output: 1, seq: 1.5 } },
        'seq',
      ],
      [{ ...toolResult('tb_x', 'tb_c', 'c1'), payload: { call_id: 'c2', output: 1 } }, 'call_id'],
      [{ ...message('tb_x'), block_type: 'ACT' }, 'block_type'],
      [{ ...message('tb_x'), sub_type: 'ACT' }, 'sub_type'],
      [{ ...message('tb_x'), created_at: 'yesterday' }, 'created_at'],
      [{ ...message('tb_x'), updated_at: 12 }, 'updated_at'],
      [{ ...message('tb_x'), metadata: [] }, 'metadata'],
      [{ ...message('tb_x'), extra: 'x' }, 'extra'],
      [{ ...message('tb_x'), payload: 'text' }, 'payload'],
      [{ ...message('tb_x'), id: '' }, 'id'],
      [{ ...message('tb_x'), trace_id: 7 }, 'trace_id'],
      [message('tb_m'), 'id'],
    ];
    for (const [input, field] of bad) {
      const error = rejection(() => validator.accept(input));
      expect({ field, code: error.code, status: error.httpStatus }).toEqual({
        field,
        code: 'VALIDATION',
        status: 422,
      });
      expect(error.details.field).toBe(field);
    }
    expect(validator.size).toBe(3);
  });

  it('lets assistant messages have null, empty or absent content (decision 001)', () => {
    const validator = createBlockValidator();
    for (const [i, payload] of [
      { role: 'assistant', content: null },
      { role: 'assistant', content: '' },
      { role: 'assistant', content: [] },
      { role: 'assistant' },
    ].entries()) {
      expect(validator.accept({ ...message(`tb_${i}`), payload }).payload.role).toBe('assistant');
    }
  });
});

describe('check and accept', () => {
  it('check lists every problem, records nothing, and accept throws the first of them', () => {
    const validator = createBlockValidator();
    validator.accept(message('tb_m'));
    const input = {
      ...toolCall('tb_c', 'tb_m'),
      block_type: 'OBSERVE',
      created_at: 'now',
      payload: { call_id: '', name: 5 },
    };
    const errors = validator.check(input);
    expect(errors.map((e) => e.details.field)).toEqual([
      'block_type',
      'created_at',
      'call_id',
      'name',
      'arguments',
    ]);
    expect(validator.size).toBe(1);
    expect(rejection(() => validator.accept(input)).message).toBe(errors[0]?.message);
    expect(validator.check(toolCall('tb_c', 'tb_m'))).toEqual([]);
  });

  it('keeps everything accepted before a rejected block', () => {
    const validator = createBlockValidator();
    const accepted = smallTrace().map((b) => validator.accept(b));
    expect(() => validator.accept(toolCall('tb_c2', 'tb_m', 'call_tb_c'))).toThrow(TraceError);
    expect(() => validator.accept({ ...toolCall('tb_c3', 'tb_m', 'c3'), payload: null })).toThrow(
      TraceError,
    );
    expect(validator.size).toBe(4);
    for (const block of accepted) expect(validator.get(block.id)).toBe(block);
    // the rejected call id was not recorded: a valid block may use it now
    expect(validator.accept(toolCall('tb_c3', 'tb_m', 'c3')).id).toBe('tb_c3');
  });

  it('rejects a reused call id whatever order the call ids come in', () => {
    const validator = createBlockValidator({ traceId: 'tr_1' });
    validator.accept(message('tb_m'));
    // rising, falling and mixed: ids after every earlier one and ids before some
    const callIds = ['c5', 'c3', 'c9', 'c1', 'c7'];
    for (const [i, callId] of callIds.entries())
      validator.accept(toolCall(`tb_c${i}`, 'tb_m', callId));
    for (const callId of callIds) {
      expect(rejection(() => validator.accept(toolCall('tb_x', 'tb_m', callId))).code).toBe(
        'DUPLICATE_CALL_ID',
      );
      expect(validator.check(toolCall('tb_x', 'tb_m', callId)).map((e) => e.code)).toEqual([
        'DUPLICATE_CALL_ID',
      ]);
    }
    // a result finds its call by call id, whichever call it is
    const accepted = validator.accept(toolResult('tb_r', 'tb_c1', 'c3'));
    expect(accepted.parent_block_id).toBe('tb_c1');
    expect(validator.size).toBe(7);
  });

  it('a duplicate id or call id leaves the block first accepted under it in place', () => {
    const validator = createBlockValidator();
    const [first, , call] = smallTrace().map((b) => validator.accept(b));
    // same id as the message, otherwise a valid message
    expect(rejection(() => validator.accept(message(first?.id as string))).details.field).toBe(
      'id',
    );
    expect(validator.get(first?.id as string)).toBe(first);
    // a new id but the call id of an accepted call
    const again = toolCall('tb_c9', 'tb_m', (call!.payload as { call_id: string }).call_id);
    expect(rejection(() => validator.accept(again)).code).toBe('DUPLICATE_CALL_ID');
    expect(validator.get('tb_c9')).toBeUndefined();
    expect(validator.size).toBe(4);
    // the original call still answers its results
    expect(
      validator.check(toolResult('tb_r9', call?.id as string, call?.payload.call_id as string)),
    ).toEqual([]);
  });

  it('binds to the first trace when no traceId is given', () => {
    const validator = createBlockValidator();
    validator.accept(message('tb_1', 'tr_a'));
    expect(rejection(() => validator.accept(message('tb_2', 'tr_b'))).details.field).toBe(
      'trace_id',
    );
  });

  it('is a plain object whose methods work detached and whose size is an own getter', () => {
    const validator = createBlockValidator({ traceId: 'tr_1' });
    expect(Object.getPrototypeOf(validator)).toBe(Object.prototype);
    expect(Object.keys(validator)).toEqual([
      'accept',
      'acceptLine',
      'check',
      'acceptOwned',
      'acceptAllOwned',
      'acceptOwnedResult',
      'adoptAllOwned',
      'accepted',
      'toolCall',
      'get',
      'size',
      'limits',
    ]);
    const size = Object.getOwnPropertyDescriptor(validator, 'size');
    expect(size).toMatchObject({ enumerable: true, configurable: true, set: undefined });
    expect(typeof size?.get).toBe('function');
    const { accept, check, get } = validator;
    const blocks = smallTrace().map(accept);
    expect(validator.size).toBe(blocks.length);
    expect(get(blocks[0]!.id)).toBe(blocks[0]);
    expect(check(message(blocks[0]!.id))[0]?.details.field).toBe('id');
    // each validator counts its own blocks
    expect(createBlockValidator().size).toBe(0);
    expect(JSON.parse(JSON.stringify(validator))).toMatchObject({ size: blocks.length });
  });

  it('counts a streamed call with many seqs, and rejects a repeated one', () => {
    const validator = createBlockValidator();
    const [, , call] = smallTrace().map((b) => validator.accept(b));
    const callId = call?.payload.call_id as string;
    const piece = (id: string, seq: number) => ({
      ...toolResult(id, call?.id as string, callId),
      payload: { call_id: callId, delta: `piece ${seq}`, seq },
    });
    for (let seq = 0; seq < 4; seq++) validator.accept(piece(`tb_p${seq}`, seq));
    for (const seq of [0, 1, 3]) {
      expect(rejection(() => validator.accept(piece(`tb_q${seq}`, seq))).code).toBe(
        'DUPLICATE_RESULT_SEQ',
      );
    }
    expect(validator.accept(piece('tb_p4', 4)).payload).toMatchObject({ seq: 4 });
  });
});
