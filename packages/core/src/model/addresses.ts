import { TraceError } from '../errors/index.js';
import { textPartKey } from './text-part-key.js';

/** One step of an address: an array index (number) or an object key (string). */
export type AddressSegment = string | number;

/** An address split into its parts: a path from the event index down, and an optional character range. */
export interface ParsedAddress {
  /** Starts with the event index; then keys and indexes, e.g. `[1, 'tool_calls', 0, 'function']`. */
  path: AddressSegment[];
  /** Half-open UTF-16 code-unit range `[start, end)` inside the string at `path`. */
  range?: [number, number];
}

const canonicalInteger = /^(?:0|[1-9][0-9]*)$/;
const rangePattern = /^([0-9]+)-([0-9]+)$/;

function invalid(address: string, message: string): TraceError {
  return new TraceError({ code: 'VALIDATION', message, details: { path: address } });
}

function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function escapeSegment(segment: string): string {
  let out = '';
  for (const char of segment) {
    out += char === '\\' || char === '.' || char === ':' ? `\\${char}` : char;
  }
  // A digit-only key would read back as an index; the escape marks it as a string key.
  return canonicalInteger.test(segment) ? `\\${out}` : out;
}

/**
 * Formats the stable address of an event, a value inside it, or a character range in a string.
 *
 * Addresses are what policies and errors point at: `"3"` (event 3), `"3.tool_calls.0"` (its
 * first tool call), `"1.tool_calls.0.function.arguments.text"`, `"3.content:7-8"` (characters
 * 7 to 8, end exclusive, counted in UTF-16 code units as JS strings are). String keys that
 * contain `.`, `:` or `\`, or that look like an index, are escaped with `\` so that
 * {@link parseAddress} gives back exactly the same path.
 *
 * @param path - the event index first, then keys (strings) and array indexes (numbers)
 * @param range - optional `[start, end]` character range, `0 <= start <= end`
 * @returns the address string
 * @throws TraceError `VALIDATION` when the path is empty, does not start with an event index,
 *   holds a negative or fractional number, or the range is not `0 <= start <= end`
 * @example
 * ```ts
 * formatAddress([3, 'tool_calls', 0]); // '3.tool_calls.0'
 * formatAddress([3, 'content'], [7, 8]); // '3.content:7-8'
 * ```
 */
export function formatAddress(
  path: readonly AddressSegment[],
  range?: readonly [number, number],
): string {
  if (!isIndex(path[0])) {
    throw invalid(
      String(path[0]),
      'An address must start with an event index (a non-negative integer); pass the event index as the first path segment.',
    );
  }
  let out = String(path[0]);
  for (let i = 1; i < path.length; i++) {
    const segment = path[i];
    if (typeof segment === 'number') {
      if (!isIndex(segment)) {
        throw invalid(
          out,
          `Address segment ${i} must be a non-negative integer index or a string key, got ${segment}.`,
        );
      }
      out += `.${segment}`;
    } else if (typeof segment === 'string') {
      out += `.${escapeSegment(segment)}`;
    } else {
      throw invalid(out, `Address segment ${i} must be a string or a number.`);
    }
  }
  if (range !== undefined) {
    const [start, end] = range;
    if (!isIndex(start) || !isIndex(end) || start > end) {
      throw invalid(
        out,
        `Address range must be two non-negative integers with start <= end, got [${start}, ${end}].`,
      );
    }
    out += `:${start}-${end}`;
  }
  return out;
}

/**
 * Parses an address made by {@link formatAddress} (or written by hand) into its path and range.
 *
 * @param address - e.g. `"3"`, `"3.tool_calls.0"`, `"3.content:7-8"`
 * @returns the path (indexes as numbers, keys as strings) and the range if there is one
 * @throws TraceError `VALIDATION` (with `details.path` the address) when the address is empty,
 *   does not start with an event index, ends in a lone `\`, or has a malformed range
 * @example
 * ```ts
 * parseAddress('1.tool_calls.0.function.arguments.text:10-15');
 * // { path: [1, 'tool_calls', 0, 'function', 'arguments', 'text'], range: [10, 15] }
 * ```
 */
export function parseAddress(address: string): ParsedAddress {
  if (typeof address !== 'string') {
    throw invalid(String(address), 'An address must be a string such as "3.tool_calls.0".');
  }
  const path: AddressSegment[] = [];
  let segment = '';
  let escaped = false;
  let rangeText: string | undefined;
  const pushSegment = () => {
    if (!escaped && canonicalInteger.test(segment)) {
      const index = Number(segment);
      if (!Number.isSafeInteger(index)) {
        throw invalid(address, `Address index ${segment} is too large.`);
      }
      path.push(index);
    } else {
      path.push(segment);
    }
    segment = '';
    escaped = false;
  };
  for (let i = 0; i < address.length; i++) {
    const char = address[i] as string;
    if (char === '\\') {
      const next = address[i + 1];
      if (next === undefined) {
        throw invalid(
          address,
          `Address "${address}" ends with a lone "\\"; escape a backslash as "\\\\".`,
        );
      }
      segment += next;
      escaped = true;
      i++;
    } else if (char === '.') {
      pushSegment();
    } else if (char === ':') {
      rangeText = address.slice(i + 1);
      break;
    } else {
      segment += char;
    }
  }
  pushSegment();
  if (!isIndex(path[0])) {
    throw invalid(
      address,
      `Address "${address}" must start with an event index, e.g. "3" or "3.content:7-8".`,
    );
  }
  if (rangeText === undefined) return { path };
  const match = rangePattern.exec(rangeText);
  const start = match ? Number(match[1]) : Number.NaN;
  const end = match ? Number(match[2]) : Number.NaN;
  if (!isIndex(start) || !isIndex(end) || start > end) {
    throw invalid(
      address,
      `Address "${address}" has a malformed range "${rangeText}"; write it as ":start-end" with start <= end.`,
    );
  }
  return { path, range: [start, end] };
}

/**
 * Looks up the value an address points at in a trace (or any JSON value indexed by event).
 *
 * Only own properties are followed (an address never reaches `constructor` or a prototype), and
 * arrays are only indexed by number. With a range, the value must be a string and the range
 * must fit inside it.
 *
 * @param trace - the trace (an array of events) or any JSON value
 * @param address - an address string or an already parsed address
 * @returns the value, the substring for a range, or `undefined` when nothing is there
 * @throws TraceError `VALIDATION` when the address string is malformed
 * @example
 * ```ts
 * resolveAddress(trace, '1.tool_calls.0.function.name'); // 'get_inbox'
 * resolveAddress(trace, '0.content:0-5'); // 'Hello'
 * ```
 */
export function resolveAddress(trace: unknown, address: string | ParsedAddress): unknown {
  const parsed = typeof address === 'string' ? parseAddress(address) : address;
  let current: unknown = trace;
  for (const segment of parsed.path) {
    if (Array.isArray(current)) {
      const index = typeof segment === 'number' ? segment : Number.NaN;
      if (!isIndex(index) || index >= current.length) return undefined;
      current = current[index];
    } else if (typeof current === 'object' && current !== null) {
      let key = String(segment);
      // the text of a part parseTrace normalised from `{ type: 'text', content }` is addressed
      // by its input key: found in the normalised trace as well as in the file
      if (!Object.hasOwn(current, key) && key !== 'text' && key === textPartKey(current))
        key = 'text';
      if (!Object.hasOwn(current, key)) return undefined;
      current = (current as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  if (parsed.range === undefined) return current;
  const [start, end] = parsed.range;
  if (typeof current !== 'string' || end > current.length) return undefined;
  return current.slice(start, end);
}
