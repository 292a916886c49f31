import { textPartKey } from '../../model/text-part-key.js';
import type { PolicyEventType } from '../policy-types.js';
import { PolicyEvent } from './policy-event.js';
import { textsOf, toPlain, valuesEqual } from './policy-values.js';
import type { EvalContext } from './rule-plan.js';
import { markRange } from './value-locations.js';

/** @internal Python's `in`: substrings (marking ranges), list elements, dict keys. */
export function contains(
  container: unknown,
  item: unknown,
  ctx: EvalContext,
  address: string | undefined,
): boolean {
  if (container === null || container === undefined) return false;
  if (typeof item === 'string' && typeof container === 'string' && ctx.ranges === undefined)
    return container.includes(item);
  if (typeof item === 'string') {
    const isChunks =
      Array.isArray(container) &&
      container.length > 0 &&
      container.every(
        (c) =>
          typeof c === 'object' && c !== null && typeof (c as { type?: unknown }).type === 'string',
      );
    if (typeof container === 'string' || container instanceof PolicyEvent || isChunks) {
      const pieces =
        typeof container === 'string'
          ? [{ text: container, address }]
          : container instanceof PolicyEvent
            ? textsOf(container, address)
            : (container as { type: string; text?: unknown }[]).flatMap((chunk, i) =>
                chunk.type === 'text' && typeof chunk.text === 'string'
                  ? [
                      {
                        text: chunk.text,
                        address:
                          address === undefined
                            ? undefined
                            : `${address}.${i}.${textPartKey(chunk)}`,
                      },
                    ]
                  : [],
              );
      let found = false;
      for (const piece of pieces) {
        let at = piece.text.indexOf(item);
        if (at < 0) continue;
        found = true;
        if (ctx.ranges === undefined) return true;
        while (at >= 0 && piece.address !== undefined && item !== '') {
          markRange(ctx.ranges, piece.address, at, at + item.length);
          at = piece.text.indexOf(item, at + item.length);
        }
      }
      return found;
    }
  }
  if (Array.isArray(container)) return container.some((c) => valuesEqual(c, item));
  if (typeof container === 'object' && !(container instanceof PolicyEvent)) {
    return typeof item === 'string' && Object.hasOwn(container, item);
  }
  return false;
}

/** @internal The longest string `text * n` may build (10M characters). */
export const MAX_REPEATED_LENGTH = 10_000_000;

/** @internal Python's arithmetic on numbers, strings and lists; None where Python would raise. */
export function arithmetic(operator: string, a: unknown, b: unknown): unknown {
  if (operator === '+') {
    if (typeof a === 'number' && typeof b === 'number') return a + b;
    if (typeof a === 'string' && typeof b === 'string') return a + b;
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
    return null;
  }
  if (operator === '*') {
    if (typeof a === 'number' && typeof b === 'number') return a * b;
    if (typeof a === 'string' && typeof b === 'number') {
      // a trace string repeated past MAX_REPEATED_LENGTH is None, not a RangeError or 1 GB
      if (b <= 0 || Number.isNaN(b)) return '';
      return a.length * Math.floor(b) <= MAX_REPEATED_LENGTH ? a.repeat(Math.floor(b)) : null;
    }
    return null;
  }
  if (typeof a !== 'number' || typeof b !== 'number') return null;
  switch (operator) {
    case '**':
      return a === 0 && b < 0 ? null : a ** b;
    case '-':
      return a - b;
    case '/':
      return b === 0 ? null : a / b;
    case '//':
      return b === 0 ? null : Math.floor(a / b);
    default:
      return b === 0 ? null : a - b * Math.floor(a / b);
  }
}

/** @internal Whether a value is an event of a rule type (`Message` includes tool outputs). */
export function matchesType(value: unknown, type: PolicyEventType): boolean {
  if (!(value instanceof PolicyEvent)) return false;
  const kind = value.kind;
  return type === 'Event' || kind === type || (type === 'Message' && kind === 'ToolOutput');
}

/** @internal A value as host functions receive it (events as their data). */
export function plainArgument(value: unknown): unknown {
  return toPlain(value);
}

/** Python's `all(el in a for el in b)`, which is what Invariant evaluates `a contains_only b` as. */
export function containsOnly(container: unknown, items: unknown, ctx: EvalContext): boolean {
  const elements = Array.isArray(items)
    ? items
    : typeof items === 'string'
      ? [...items]
      : typeof items === 'object' && items !== null && !(items instanceof PolicyEvent)
        ? Object.keys(items)
        : undefined;
  if (elements === undefined) return false;
  return elements.every((item) => contains(container, item, ctx, undefined));
}
