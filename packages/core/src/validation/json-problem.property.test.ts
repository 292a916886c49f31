import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonProblem, maxJsonDepth } from './json-problem.js';

function stringifies(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('jsonProblem', () => {
  it('agrees with JSON.stringify on values without cycles (BigInt, dates, typed arrays, maps...)', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withTypedArray: true,
          withNullPrototype: true,
          withSparseArray: true,
        }),
        (value) => {
          expect(jsonProblem(value, false) === undefined).toBe(stringifies(value));
        },
      ),
    );
  });

  it('finds a cycle at any depth, and does not take a shared value for one', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat({ max: 5 }), (value, depth) => {
        const root: Record<string, unknown> = { value };
        let node = root;
        for (let i = 0; i < depth; i++) {
          const next = { value };
          node.next = next;
          node = next;
        }
        expect(jsonProblem(root, false)).toBeUndefined();
        node.back = root;
        expect(jsonProblem(root, false)).toContain('cycle');
      }),
    );
  });

  it('allows nesting up to the limit and rejects past it', () => {
    expect(jsonProblem(nested(maxJsonDepth - 1), false)).toBeUndefined();
    expect(jsonProblem(nested(maxJsonDepth + 1), false)).toContain('nested more than');
  });

  it('rejects own keys with a lone surrogate only when asked', () => {
    expect(jsonProblem({ 'b\ud800': 1 }, true)).toContain('lone UTF-16 surrogate');
    expect(jsonProblem({ 'b\ud800': 1 }, false)).toBeUndefined();
    // nested data is JSON like any payload: JSON.stringify escapes the surrogate
    expect(jsonProblem({ a: { 'b\ud800': 1 } }, true)).toBeUndefined();
  });

  it('reports a toJSON or getter that throws instead of throwing', () => {
    const hostile = {
      get x() {
        throw new Error('getter');
      },
      deep: nested(40),
    };
    expect(jsonProblem(hostile, false)).toContain('getter');
  });
});
