import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import { formatAddress, parseAddress, resolveAddress } from './addresses.js';

const trace = [
  { role: 'user', content: 'Hello, how are you?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: '1',
        type: 'function',
        function: {
          name: 'send',
          arguments: { text: 'call me at 555-0100', 'a.b': 1, '0': 'zero' },
        },
      },
    ],
  },
];

function validationPath(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TraceError);
    expect((error as TraceError).code).toBe('VALIDATION');
    return (error as TraceError).details.path;
  }
  throw new Error('expected a VALIDATION error');
}

describe('formatAddress', () => {
  it('formats the address forms policies and errors use', () => {
    expect(formatAddress([3])).toBe('3');
    expect(formatAddress([3, 'tool_calls', 0])).toBe('3.tool_calls.0');
    expect(formatAddress([1, 'tool_calls', 0, 'function', 'arguments', 'text'])).toBe(
      '1.tool_calls.0.function.arguments.text',
    );
    expect(formatAddress([3, 'content'], [7, 8])).toBe('3.content:7-8');
    expect(formatAddress([1, 'tool_calls', 0, 'function', 'arguments', 'text'], [10, 15])).toBe(
      '1.tool_calls.0.function.arguments.text:10-15',
    );
  });

  it('escapes keys that contain separators or look like indexes', () => {
    expect(formatAddress([1, 'a.b'])).toBe('1.a\\.b');
    expect(formatAddress([1, 'x:y'])).toBe('1.x\\:y');
    expect(formatAddress([1, '0'])).toBe('1.\\0');
    expect(parseAddress('1.a\\.b').path).toEqual([1, 'a.b']);
    expect(parseAddress('1.\\0').path).toEqual([1, '0']);
  });

  it('rejects paths that do not start with an event index, negative indexes and bad ranges', () => {
    expect(() => formatAddress([])).toThrow(TraceError);
    expect(() => formatAddress(['content'])).toThrow(/event index/);
    expect(() => formatAddress([1, -1])).toThrow(TraceError);
    expect(() => formatAddress([1, 1.5])).toThrow(TraceError);
    expect(() => formatAddress([1, 'content'], [5, 2])).toThrow(/start <= end/);
  });
});

describe('parseAddress', () => {
  it('parses paths and ranges', () => {
    expect(parseAddress('3')).toEqual({ path: [3] });
    expect(parseAddress('3.content:7-8')).toEqual({ path: [3, 'content'], range: [7, 8] });
    expect(parseAddress('1.tool_calls.0.function.arguments.text:10-15')).toEqual({
      path: [1, 'tool_calls', 0, 'function', 'arguments', 'text'],
      range: [10, 15],
    });
  });

  it('keeps non-canonical numbers such as 01 as string keys', () => {
    expect(parseAddress('1.01').path).toEqual([1, '01']);
  });

  it.each([
    [''],
    ['content'],
    ['-1'],
    ['3.content:'],
    ['3.content:8-7'],
    ['3.content:a-b'],
    ['3.content:1-2-3'],
    ['3.x\\'],
    ['99999999999999999999'],
  ])('rejects %j with VALIDATION naming the address', (address) => {
    expect(validationPath(() => parseAddress(address))).toBe(address);
  });

  it('parse(format(x)) gives x back for any path and range', () => {
    const segment = fc.oneof(
      fc.nat(),
      fc.string({ unit: fc.constantFrom('a', '.', ':', '\\', '0', '1', '-', 'é') }),
    );
    fc.assert(
      fc.property(
        fc.nat(),
        fc.array(segment, { maxLength: 6 }),
        fc.option(fc.tuple(fc.nat(), fc.nat()), { nil: undefined }),
        (event, rest, pair) => {
          const path = [event, ...rest];
          const range =
            pair === undefined
              ? undefined
              : ([Math.min(...pair), Math.max(...pair)] as [number, number]);
          const parsed = parseAddress(formatAddress(path, range));
          expect(parsed.path).toEqual(path);
          expect(parsed.range).toEqual(range);
        },
      ),
    );
  });
});

describe('resolveAddress', () => {
  it('finds events, tool calls, nested values and ranges', () => {
    expect(resolveAddress(trace, '0')).toBe(trace[0]);
    expect(resolveAddress(trace, '1.tool_calls.0.function.name')).toBe('send');
    expect(resolveAddress(trace, '0.content:0-5')).toBe('Hello');
    expect(resolveAddress(trace, '1.tool_calls.0.function.arguments.text:11-19')).toBe('555-0100');
    expect(resolveAddress(trace, '1.tool_calls.0.function.arguments.a\\.b')).toBe(1);
    expect(resolveAddress(trace, '1.tool_calls.0.function.arguments.\\0')).toBe('zero');
    expect(resolveAddress(trace, { path: [0, 'role'] })).toBe('user');
  });

  it('returns undefined for what is not there, and never follows prototypes', () => {
    expect(resolveAddress(trace, '5')).toBeUndefined();
    expect(resolveAddress(trace, '0.missing')).toBeUndefined();
    expect(resolveAddress(trace, '0.constructor')).toBeUndefined();
    expect(resolveAddress(trace, '0.__proto__')).toBeUndefined();
    expect(resolveAddress(trace, '1.tool_calls.length')).toBeUndefined();
    expect(resolveAddress(trace, '0.content:0-500')).toBeUndefined();
    expect(resolveAddress(trace, '1.content:0-1')).toBeUndefined();
  });
});
