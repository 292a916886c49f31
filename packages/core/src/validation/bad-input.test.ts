import { describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import type { Block } from '../model/index.js';
import { message, smallTrace, think, toolCall, toolResult } from './__fixtures__/build-blocks.js';
import { createBlockValidator } from './create-block-validator.js';
import { maxToolNameLength } from './tool-name.js';
import { validateBlocks } from './validate-blocks.js';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

/** A validator holding a small valid trace, and the blocks it accepted. */
function populated() {
  const validator = createBlockValidator();
  const accepted = smallTrace().map((block) => validator.accept(block));
  return { validator, accepted };
}

/** Asserts `input` is rejected with `code` (and `field`), and nothing accepted before was lost. */
function expectRejected(input: unknown, code: string, field?: string): TraceError {
  const { validator, accepted } = populated();
  let error: unknown;
  try {
    validator.accept(input);
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(TraceError);
  const traceError = error as TraceError;
  expect(traceError.code).toBe(code);
  if (field !== undefined) expect(traceError.details.field).toBe(field);
  expect(validator.size).toBe(accepted.length);
  for (const block of accepted) expect(validator.get(block.id)).toBe(block);
  expect(validator.check(input).length).toBeGreaterThan(0);
  return traceError;
}

function expectAccepted(input: unknown): Block {
  const { validator } = populated();
  return validator.accept(input);
}

describe('a TOOL_CALL needs a valid tool name (seed 002)', () => {
  const withName = (name: unknown) => {
    const call = toolCall('tb_named', smallTrace()[0]?.id as string, 'call_named');
    return { ...call, payload: { ...(call.payload as object), name } };
  };

  it('rejects a name that is only whitespace, holds a control character or is too long, naming the limit', () => {
    for (const name of ['  ', '\t', '\u00a0\u3000', 'get\nweather', 'a\u0000b', 'x'.repeat(257)]) {
      const error = expectRejected(withName(name), 'VALIDATION', 'name');
      expect(error.message).toMatch(/payload\.name must be a tool name: 1 to 256 characters/);
    }
    expect(maxToolNameLength).toBe(256);
  });

  it('accepts the names real tools carry: spaces, dots, slashes, dashes, non-ASCII letters, 256 characters', () => {
    for (const name of [
      'get_weather',
      'Wikipedia Search',
      'github.create_issue',
      'mcp__files__read',
      'files/read',
      'búsqueda',
      '検索',
      'x'.repeat(256),
    ]) {
      expect(expectAccepted(withName(name)).payload).toMatchObject({ name });
    }
  });

  it('says "got nothing" for a missing field, not "got a undefined"', () => {
    const call = toolCall('tb_noname', smallTrace()[0]?.id as string, 'call_noname');
    const { name: _name, ...payload } = call.payload as Record<string, unknown>;
    const error = expectRejected({ ...call, payload }, 'VALIDATION', 'name');
    expect(error.message).toMatch(/got nothing$/);
    const role = expectRejected(
      { ...message('tb_norole'), payload: { content: 'hi' } },
      'VALIDATION',
    );
    expect(role.message).toMatch(
      /payload\.role must be one of system, user, assistant, got nothing$/,
    );
  });
});

describe('bad input never crashes or hangs', () => {
  it('non-JSON and non-objects', () => {
    for (const input of [
      '{"id": oops',
      undefined,
      null,
      42,
      true,
      [],
      [message('tb_x')],
      () => 1,
      Symbol('x'),
      10n,
    ]) {
      expectRejected(input, 'VALIDATION');
    }
  });

  it('wrong field types', () => {
    expectRejected({ ...message('tb_x'), id: 7 }, 'VALIDATION', 'id');
    expectRejected({ ...message('tb_x'), payload: ['user', 'hi'] }, 'VALIDATION', 'payload');
    expectRejected(
      { ...message('tb_x'), created_at: 1_738_324_800_000 },
      'VALIDATION',
      'created_at',
    );
    expectRejected({ ...message('tb_x'), parent_block_id: 5 }, 'VALIDATION', 'parent_block_id');
    expectRejected(
      {
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', output: 1, seq: '1' },
      },
      'VALIDATION',
      'seq',
    );
    expectRejected(
      {
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', output: 1, seq: 2 ** 53 },
      },
      'VALIDATION',
      'seq',
    );
  });

  it('nesting 10,000 deep is a VALIDATION error in any field a sink writes; deep JSON text is kept', () => {
    const error = expectRejected(
      {
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', output: nested(10_000) },
      },
      'VALIDATION',
      'output',
    );
    expect(error.message).toContain('cannot be serialised as JSON');
    expectRejected(
      {
        ...toolCall('tb_x', 'tb_m', 'c9'),
        payload: { call_id: 'c9', name: 'n', arguments: nested(10_000) },
      },
      'VALIDATION',
      'arguments',
    );
    expectRejected(
      {
        ...message('tb_x'),
        // not a text part: a text part's text that is not a string is refused before its depth
        payload: { role: 'user', content: [{ type: 'image', image_url: nested(10_000) }] },
      },
      'VALIDATION',
      'content',
    );
    // deep JSON text parses fine (V8's parser is not recursive): it is only checked to be an object
    const deepText = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    expect(
      expectAccepted({
        ...toolCall('tb_x', 'tb_m', 'c9'),
        payload: { call_id: 'c9', name: 'n', arguments: deepText },
      }).id,
    ).toBe('tb_x');
    // a sink serialises the whole block: a value too deep to stringify would be lost there
    for (const field of ['raw', 'metadata', 'extra'] as const) {
      const error = expectRejected(
        { ...message('tb_x'), [field]: { deep: nested(10_000) } },
        'VALIDATION',
        field,
      );
      expect(error.message).toContain('nested more than 1000 levels deep');
    }
  });

  it('cycles and BigInt in a limited field are VALIDATION errors', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expectRejected(
      {
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', output: cycle },
      },
      'VALIDATION',
      'output',
    );
    expectRejected(
      {
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', output: { n: 1n } },
      },
      'VALIDATION',
      'output',
    );
    expectRejected(
      {
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', output: () => 1 },
      },
      'VALIDATION',
      'output',
    );
  });

  it('cycles and BigInt anywhere a sink writes are VALIDATION errors, not lost blocks', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = { again: cycle };
    for (const field of ['metadata', 'extra', 'raw'] as const) {
      const cyclic = expectRejected(
        { ...message('tb_x'), [field]: { a: cycle } },
        'VALIDATION',
        field,
      );
      expect(cyclic.message).toContain('contains a cycle');
      const big = expectRejected({ ...message('tb_x'), [field]: { n: 10n } }, 'VALIDATION', field);
      expect(big.message).toContain('BigInt');
    }
    expectRejected(
      {
        ...toolCall('tb_x', 'tb_m', 'c9'),
        payload: { call_id: 'c9', name: 'n', arguments: {}, args: [1n] },
      },
      'VALIDATION',
      'payload.args',
    );
    // a value shared by two branches is not a cycle
    const shared = { x: 1 };
    const deepShared = nested(40) as Record<string, unknown>;
    expect(
      expectAccepted({ ...message('tb_x'), metadata: { a: shared, b: shared, deep: deepShared } })
        .id,
    ).toBe('tb_x');
  });

  it('a lone surrogate in an id or a metadata / extra key is a VALIDATION error', () => {
    expectRejected({ ...message('tb_\ud800') }, 'VALIDATION', 'id');
    expectRejected({ ...message('tb_x'), metadata: { 'k\udc00': 1 } }, 'VALIDATION', 'metadata');
    expectRejected({ ...message('tb_x'), extra: { 'k\ud800': 1 } }, 'VALIDATION', 'extra');
  });

  it('a 100 MB string is rejected by size, not truncated, and JSON text that large is never parsed', () => {
    const huge = 'x'.repeat(100 * 1024 * 1024);
    const error = expectRejected(
      {
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', output: huge },
      },
      'PAYLOAD_TOO_LARGE',
      'output',
    );
    expect(error.details).toMatchObject({ limit_bytes: 2_097_152, actual_bytes: huge.length });
    expectRejected(
      { ...message('tb_x'), payload: { role: 'user', content: huge } },
      'PAYLOAD_TOO_LARGE',
      'content',
    );
    const args = expectRejected(
      { ...toolCall('tb_x', 'tb_m', 'c9'), payload: { call_id: 'c9', name: 'n', arguments: huge } },
      'PAYLOAD_TOO_LARGE',
      'arguments',
    );
    expect(args.details.actual_bytes).toBe(huge.length);
  });

  it('__proto__ and constructor keys are kept as data, with no prototype pollution', () => {
    const line =
      '{"id":"tb_x","trace_id":"tr_1","sub_type":"MESSAGE","created_at":"2025-01-31T12:00:00Z","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"payload":{"role":"user","content":"hi","__proto__":{"role":"system","polluted":true},"constructor":"x"},"metadata":{"__proto__":{"polluted":true}}}';
    const block = expectAccepted(JSON.parse(line));
    expect(Object.hasOwn(block.payload, '__proto__')).toBe(true);
    expect(block.payload.role).toBe('user');
    expect((block.payload as Record<string, unknown>).constructor).toBe('x');
    expect(Object.hasOwn(block.metadata, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(block)).toBe(Object.prototype);
    // ids and sub types named like Object.prototype members are just strings
    expectRejected({ ...message('tb_x'), sub_type: 'constructor' }, 'VALIDATION', 'sub_type');
    expectRejected({ ...message('tb_x'), sub_type: '__proto__' }, 'VALIDATION', 'sub_type');
    expectRejected(think('tb_x', '__proto__'), 'VALIDATION', 'parent_block_id');
    expect(
      validateBlocks([
        message('__proto__'),
        think('constructor', '__proto__'),
        think('tb_t', 'toString'),
      ]).errors.map((e) => e.details.block_id),
    ).toEqual(['tb_t']);
  });

  it('parent cycles and duplicate ids', () => {
    expectRejected(think('tb_x', 'tb_x'), 'VALIDATION', 'parent_block_id');
    expectRejected(toolCall('tb_x', 'tb_y', 'c9'), 'VALIDATION', 'parent_block_id');
    expectRejected(message('tb_m'), 'VALIDATION', 'id');
    expectRejected(
      { ...think('tb_t', 'tb_m'), payload: { text: 'other text' } },
      'VALIDATION',
      'id',
    );
  });

  it('multi-byte UTF-8 exactly at a limit is accepted, one byte over is 413', () => {
    const cases: [string, string][] = [
      ['é'.repeat(32_768), 'x'],
      ['😀'.repeat(16_384), 'x'],
      [`${'€'.repeat(21_845)}x`, 'x'],
    ];
    for (const [atLimit, extra] of cases) {
      const content = { ...message('tb_x'), payload: { role: 'user', content: atLimit } };
      expect(expectAccepted(content).payload).toMatchObject({ content: atLimit });
      const over = expectRejected(
        { ...content, payload: { role: 'user', content: atLimit + extra } },
        'PAYLOAD_TOO_LARGE',
        'content',
      );
      expect(over.details).toMatchObject({
        limit_bytes: 65_536,
        actual_bytes: 65_537,
        sub_type: 'MESSAGE',
      });
    }
    // a non-string value counts its JSON form: {"a":"..."} is 8 bytes around the text
    const output = { a: 'é'.repeat((2_097_152 - 8) / 2) };
    expect(
      expectAccepted({
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', output },
      }).id,
    ).toBe('tb_x');
    const tooBig = { a: `${output.a}x` };
    expect(
      expectRejected(
        {
          ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
          payload: { call_id: 'call_tb_c', output: tooBig },
        },
        'PAYLOAD_TOO_LARGE',
        'output',
      ).details.actual_bytes,
    ).toBe(2_097_153);
  });

  it('lone surrogates are VALIDATION errors, in strings and nested values; valid pairs pass', () => {
    expectRejected(
      { ...message('tb_x'), payload: { role: 'user', content: 'a\ud800b' } },
      'VALIDATION',
      'content',
    );
    expectRejected({ ...think('tb_x', 'tb_m'), payload: { text: '\udc00' } }, 'VALIDATION', 'text');
    expectRejected(
      {
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', output: { a: ['x\udbff'] } },
      },
      'VALIDATION',
      'output',
    );
    expectRejected(
      {
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', delta: { 'k\ud800': 1 } },
      },
      'VALIDATION',
      'delta',
    );
    expectRejected(
      {
        ...toolCall('tb_x', 'tb_m', 'c9'),
        payload: { call_id: 'c9', name: 'n', arguments: '{"a":"\ud800"}' },
      },
      'VALIDATION',
      'arguments',
    );
    // also when the value is too big for the quick bound and takes the JSON.stringify path
    expectRejected(
      {
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', output: { a: 'x'.repeat(400_000), b: '\ud800' } },
      },
      'VALIDATION',
      'output',
    );
    expect(
      expectAccepted({
        ...message('tb_x'),
        payload: { role: 'user', content: '😀 \\ud800 is only text' },
      }).id,
    ).toBe('tb_x');
    expect(
      expectAccepted({
        ...toolResult('tb_x', 'tb_c', 'call_tb_c'),
        payload: { call_id: 'call_tb_c', output: { a: 'x'.repeat(400_000), b: '\\ud800 😀' } },
      }).id,
    ).toBe('tb_x');
  });

  it('throwing getters and proxies become VALIDATION errors', () => {
    const trap = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
      },
    );
    const error = expectRejected(trap, 'VALIDATION');
    expect(error.cause).toBeInstanceOf(Error);
    expectRejected(
      {
        ...message('tb_x'),
        payload: {
          role: 'user',
          get content(): string {
            throw new Error('getter');
          },
        },
      },
      'VALIDATION',
    );
    const report = validateBlocks([message('tb_m'), trap]);
    expect(report.errors.map((e) => [e.code, e.details.path])).toEqual([['VALIDATION', '1']]);
  });

  it('validateBlocks reports bad input too, and keeps going', () => {
    const report = validateBlocks([
      undefined,
      message('tb_m'),
      { ...think('tb_t', 'tb_m'), payload: { text: 'a\ud800' } },
      think('tb_t2', 'tb_m'),
    ]);
    expect(report.errors.map((e) => [e.details.path, e.code, e.details.field])).toEqual([
      ['0', 'VALIDATION', undefined],
      ['2', 'VALIDATION', 'text'],
    ]);
  });
});
