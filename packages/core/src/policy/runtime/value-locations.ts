/**
 * Where rule values came from in the trace, so violations can point at them.
 *
 * A location is a plain address (`"3"`, `"1.tool_calls.0.function.arguments.to"`) or a span of
 * the text at an address, written `<address>\u0000<start>-<end>` internally and
 * `<address>:<start>-<end>` in results. Spans rebase: a word of a line of `msg.content` is a span
 * of `msg.content`, not of the line. Lists whose elements have their own locations (lines of
 * `splitlines()`, links found in a text) carry them under a symbol key, so they stay ordinary
 * arrays for every other operation.
 * @internal
 */

const SPAN = '\u0000';

/** @internal Symbol key of the element locations of a list. */
export const LOCATIONS: unique symbol = Symbol('tracewarden.locations');

type LocatedList = unknown[] & { [LOCATIONS]?: readonly (string | undefined)[] };

/** @internal Attaches element locations to a list (returns the same list). */
export function withLocations<T>(items: T[], locations: readonly (string | undefined)[]): T[] {
  (items as LocatedList)[LOCATIONS] = locations;
  return items;
}

/** @internal The element locations of a list, when it has them. */
export function locationsOf(value: unknown): readonly (string | undefined)[] | undefined {
  return Array.isArray(value) ? (value as LocatedList)[LOCATIONS] : undefined;
}

/** @internal Whether a location is a span of text (not a whole value). */
export function isSpan(location: string | undefined): boolean {
  return location?.includes(SPAN) === true;
}

/**
 * @internal The location of characters `start`..`end` of the text at `location` (itself a plain
 * address or a span).
 */
export function textSpan(
  location: string | undefined,
  start: number,
  end: number,
): string | undefined {
  if (location === undefined) return undefined;
  const at = location.lastIndexOf(SPAN);
  if (at < 0) return `${location}${SPAN}${start}-${end}`;
  const offset = Number.parseInt(location.slice(at + 1), 10);
  return `${location.slice(0, at)}${SPAN}${offset + start}-${offset + end}`;
}

/** @internal A location as results show it (`3.content:7-15`). */
export function locationText(location: string): string {
  return location.replace(SPAN, ':');
}

/** @internal Records the range `start`..`end` of the text at `location`, when ranges are kept. */
export function markRange(
  ranges: string[] | undefined,
  location: string | undefined,
  start: number,
  end: number,
): void {
  if (ranges === undefined || location === undefined) return;
  ranges.push(locationText(textSpan(location, start, end) as string));
}

/** @internal The location of element `index` of a list found at `location`. */
export function elementLocation(
  list: unknown[],
  index: number,
  location: string | undefined,
): string | undefined {
  const own = locationsOf(list);
  if (own !== undefined) return own[index];
  return location === undefined || isSpan(location) ? undefined : `${location}.${index}`;
}

/**
 * @internal What a violation lists for a bound value's location: a text span as a range, a whole
 * string as the range of all its characters, anything else by its address.
 */
export function boundRange(value: unknown, location: string): string {
  if (isSpan(location)) return locationText(location);
  return typeof value === 'string' ? `${location}:0-${value.length}` : location;
}

// Python's str.splitlines() boundaries (\r\n counts as one)
const lineBreak = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g;

/** @internal Python's `str.splitlines()`, with each line's start offset. */
export function splitLines(text: string): { lines: string[]; starts: number[] } {
  const lines: string[] = [];
  const starts: number[] = [];
  let start = 0;
  for (const m of text.matchAll(lineBreak)) {
    lines.push(text.slice(start, m.index));
    starts.push(start);
    start = m.index + m[0].length;
  }
  if (start < text.length) {
    lines.push(text.slice(start));
    starts.push(start);
  }
  return { lines, starts };
}

/** @internal Python's `str.split(sep)` / `str.split()`, with each part's start offset. */
export function splitText(text: string, separator: unknown): { parts: string[]; starts: number[] } {
  const parts: string[] = [];
  const starts: number[] = [];
  if (typeof separator === 'string' && separator !== '') {
    let start = 0;
    for (;;) {
      const at = text.indexOf(separator, start);
      if (at < 0) break;
      parts.push(text.slice(start, at));
      starts.push(start);
      start = at + separator.length;
    }
    parts.push(text.slice(start));
    starts.push(start);
    return { parts, starts };
  }
  for (const m of text.matchAll(/\S+/g)) {
    parts.push(m[0]);
    starts.push(m.index);
  }
  return { parts, starts };
}
