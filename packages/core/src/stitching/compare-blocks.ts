/**
 * Orderings shared by stitching and conversion. Blocks may come straight from `JSON.parse`, so
 * every field is read defensively: a missing `created_at` or `id` sorts as the empty string.
 * @internal
 */

interface Ordered {
  readonly id?: unknown;
  readonly created_at?: unknown;
  readonly payload?: unknown;
}

const Z = 90;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Compares two ISO 8601 timestamps by the instant they name. Same-length UTC strings (the usual
 * case) compare as strings, which is their time order; anything else goes through `Date.parse`:
 * the same instant written two ways (`...00Z`, `...00.000Z`, `+01:00`) is a tie, which the
 * seed's next key (`id`) breaks. Unreadable text falls back to string order.
 * @internal
 */
function compareCreatedAt(a: string, b: string): number {
  if (a === b) return 0;
  if (
    a.length !== b.length ||
    a.charCodeAt(a.length - 1) !== Z ||
    b.charCodeAt(b.length - 1) !== Z
  ) {
    const timeA = instantOf(a);
    const timeB = instantOf(b);
    if (!Number.isNaN(timeA) && !Number.isNaN(timeB))
      return timeA !== timeB ? timeA - timeB : compareSubMilliseconds(a, b);
  }
  return a < b ? -1 : 1;
}

/**
 * The instant a timestamp names, in ms. A leap second (`23:59:60`, which seed 002's timestamps
 * allow and `Date.parse` does not read) is the instant after second 59: read as the next
 * minute's second 0, so every valid timestamp has an instant and the order stays consistent
 * whatever the input order.
 */
function instantOf(text: string): number {
  const time = Date.parse(text);
  if (!Number.isNaN(time) || text.charCodeAt(17) !== 54 || text.charCodeAt(18) !== 48) return time;
  return Date.parse(`${text.slice(0, 17)}59${text.slice(19)}`) + 1000;
}

const fraction = /:\d\d\.(\d+)/;

/**
 * Two timestamps of the same millisecond by the digits `Date.parse` drops (`.0001` before
 * `.0002`), so that the order agrees with the string order of same-length UTC strings.
 */
function compareSubMilliseconds(a: string, b: string): number {
  const digitsA = fraction.exec(a)?.[1]?.slice(3) ?? '';
  const digitsB = fraction.exec(b)?.[1]?.slice(3) ?? '';
  const width = Math.max(digitsA.length, digitsB.length);
  const paddedA = digitsA.padEnd(width, '0');
  const paddedB = digitsB.padEnd(width, '0');
  return paddedA === paddedB ? 0 : paddedA < paddedB ? -1 : 1;
}

function compareWhole(a: Ordered, b: Ordered): number {
  // Only reached for duplicate ids with equal timestamps: order by content so that any input
  // order gives the same result.
  let left = '';
  let right = '';
  try {
    left = JSON.stringify(a) ?? '';
    right = JSON.stringify(b) ?? '';
  } catch {
    return 0;
  }
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * Orders blocks by `created_at`, then `id` (root messages, thinks).
 * @internal
 */
export function compareBlocks(a: Ordered, b: Ordered): number {
  const byTime = compareCreatedAt(text(a.created_at), text(b.created_at));
  if (byTime !== 0) return byTime;
  const idA = text(a.id);
  const idB = text(b.id);
  if (idA !== idB) return idA < idB ? -1 : 1;
  return a === b ? 0 : compareWhole(a, b);
}

/**
 * The block's `payload.seq` if it is a number.
 * @internal
 */
export function seqOf(block: Ordered): number | undefined {
  const payload = block.payload;
  if (typeof payload !== 'object' || payload === null) return undefined;
  const seq = (payload as { seq?: unknown }).seq;
  return typeof seq === 'number' ? seq : undefined;
}

/**
 * Orders blocks by `payload.seq` (blocks without one last), then `created_at`, then `id`
 * (tool calls, tool results).
 * @internal
 */
export function compareSequencedBlocks(a: Ordered, b: Ordered): number {
  const seqA = seqOf(a);
  const seqB = seqOf(b);
  if (seqA !== seqB) {
    if (seqA === undefined) return 1;
    if (seqB === undefined) return -1;
    return seqA - seqB;
  }
  return compareBlocks(a, b);
}
