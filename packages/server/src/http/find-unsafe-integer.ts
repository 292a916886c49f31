/** An integer in JSON text that a JavaScript number cannot hold exactly. @internal */
export interface UnsafeInteger {
  /** Where it is, from the parsed value's root: `blocks.0.metadata.tokens` (`''` for the root). */
  path: string;
  /** The number as written. */
  literal: string;
}

// 2^53 has 16 digits: a text without such a run of digits holds no unsafe integer
const longDigitRun = /\d{16}/;
const integerLiteral = /^-?\d+$/;

type Reviver = (
  this: unknown,
  key: string,
  value: unknown,
  context?: { source?: string },
) => unknown;

/**
 * Finds the first integer written in JSON text that `JSON.parse` turns into another number: one
 * beyond ±(2^53 - 1) that no double holds exactly (9007199254740993 becomes 9007199254740992),
 * or so long it becomes Infinity. Stored, it would silently be another value. Texts without a run of 16 digits (nearly all) are settled by one scan; others
 * are parsed again with `JSON.parse`'s source access to see each number as written.
 *
 * @param text - JSON text that `JSON.parse` accepts
 * @returns the first such integer and its path, or undefined
 * @internal
 */
export function findUnsafeInteger(text: string): UnsafeInteger | undefined {
  if (!longDigitRun.test(text)) return undefined;
  let holder: object | undefined;
  let found: { key: string; literal: string } | undefined;
  const reviver: Reviver = function (key, value, context) {
    if (
      found === undefined &&
      typeof value === 'number' &&
      !Number.isSafeInteger(value) &&
      context?.source !== undefined &&
      integerLiteral.test(context.source) &&
      // a large integer that is exactly a double (2^53, 10^20) is kept as written
      (!Number.isFinite(value) || BigInt(context.source) !== BigInt(value))
    ) {
      holder = this as object;
      found = { key, literal: context.source };
    }
    return value;
  };
  const root: unknown = JSON.parse(text, reviver as Parameters<typeof JSON.parse>[1]);
  if (found === undefined) return undefined;
  return { path: pathTo(root, holder, found.key), literal: found.literal };
}

/** The dotted path of `key` in `holder`, found in `root` by identity (iteratively: any depth). */
function pathTo(root: unknown, holder: object | undefined, key: string): string {
  const stack: { value: unknown; path: string }[] = [{ value: root, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string };
    if (typeof value !== 'object' || value === null) continue;
    if (value === holder) return path === '' ? key : `${path}.${key}`;
    for (const [name, child] of Object.entries(value)) {
      stack.push({ value: child, path: path === '' ? name : `${path}.${name}` });
    }
  }
  // the root itself (its holder is the reviver's wrapper)
  return '';
}
