/** Result of {@link scanJson}. */
export interface JsonScan {
  /** The first syntax error, when the text is not valid JSON. */
  error?: { offset: number; reason: string };
  /**
   * Start offset of every value up to `maxDepth` levels deep, keyed by its dotted path
   * (`''` for the document, `'3'`, `'traces.0.2'`).
   */
  offsets: Map<string, number>;
}

const whitespace = new Set([0x20, 0x09, 0x0a, 0x0d]);

interface Frame {
  kind: 'array' | 'object';
  path: string;
  index: number;
  /** Object frames: the key of the value being read. */
  key: string;
  /** What the frame expects next. */
  state: 'first' | 'value' | 'comma' | 'key' | 'colon';
}

/**
 * Scans JSON text without building values: finds the first syntax error (what `JSON.parse`
 * does not always locate) and the offsets of values near the top, so problems in a JSON
 * document can be reported with a line number. Iterative, so deep nesting cannot overflow.
 *
 * @param text - the JSON text
 * @param maxDepth - how many container levels to record offsets for
 * @default maxDepth 3
 * @returns the first error (if any) and the recorded offsets
 * @example
 * ```ts
 * scanJson('[1, {"a": tru}]').error; // { offset: 10, reason: "expected a value" }
 * ```
 */
export function scanJson(text: string, maxDepth = 3): JsonScan {
  const offsets = new Map<string, number>();
  const stack: Frame[] = [];
  let i = 0;
  const n = text.length;
  const skip = () => {
    while (i < n && whitespace.has(text.charCodeAt(i))) i++;
  };
  const fail = (reason: string): JsonScan => ({
    error: { offset: Math.min(i, n), reason },
    offsets,
  });

  const readString = (): string | undefined => {
    // at an opening quote
    const start = i + 1;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return text.slice(start, i - 1);
      }
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return undefined;
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) return undefined;
        i += 2;
        continue;
      }
      if (c < 0x20) return undefined;
      i++;
    }
    return undefined;
  };

  const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

  /** Reads a scalar or opens a container at `path`; returns an error reason or undefined. */
  const readValue = (path: string): string | undefined => {
    skip();
    if (i >= n) return 'unexpected end of input, expected a value';
    if (stack.length < maxDepth + 1) offsets.set(path, i);
    const c = text[i];
    if (c === '{') {
      i++;
      stack.push({ kind: 'object', path, index: 0, key: '', state: 'first' });
      return undefined;
    }
    if (c === '[') {
      i++;
      stack.push({ kind: 'array', path, index: 0, key: '', state: 'first' });
      return undefined;
    }
    if (c === '"')
      return readString() === undefined
        ? 'bad string (unescaped control character, bad escape or no closing quote)'
        : undefined;
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, i)) {
        i += literal.length;
        return undefined;
      }
    }
    number.lastIndex = i;
    const match = number.exec(text);
    if (match !== null && match[0].length > 0) {
      i += match[0].length;
      return undefined;
    }
    return `unexpected character ${JSON.stringify(c)}, expected a value`;
  };

  const join = (base: string, part: string | number) =>
    base === '' ? String(part) : `${base}.${part}`;

  let error = readValue('');
  if (error !== undefined) return fail(error);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    skip();
    const c = text[i];
    if (c === undefined)
      return fail(
        `unexpected end of input, expected ${frame.kind === 'array' ? "',' or ']'" : "',' or '}'"}`,
      );
    if (frame.kind === 'array') {
      if (frame.state === 'first' && c === ']') {
        i++;
        stack.pop();
        continue;
      }
      if (frame.state === 'comma') {
        if (c === ']') {
          i++;
          stack.pop();
          continue;
        }
        if (c !== ',') return fail("expected ',' or ']'");
        i++;
        frame.index++;
      }
      frame.state = 'comma';
      error = readValue(join(frame.path, frame.index));
      if (error !== undefined) return fail(error);
      continue;
    }
    // object
    if ((frame.state === 'first' || frame.state === 'comma') && c === '}') {
      i++;
      stack.pop();
      continue;
    }
    if (frame.state === 'comma') {
      if (c !== ',') return fail("expected ',' or '}'");
      i++;
      frame.state = 'key';
      continue;
    }
    if (frame.state === 'first' || frame.state === 'key') {
      if (c !== '"') return fail('expected a double-quoted property name');
      const key = readString();
      if (key === undefined) return fail('bad property name');
      frame.key = key;
      frame.state = 'colon';
      continue;
    }
    if (frame.state === 'colon') {
      if (c !== ':') return fail("expected ':' after property name");
      i++;
      frame.state = 'comma';
      error = readValue(join(frame.path, frame.key));
      if (error !== undefined) return fail(error);
    }
  }
  skip();
  if (i < n) return fail('unexpected text after the JSON value');
  return { offsets };
}
