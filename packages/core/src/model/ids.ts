const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const alphabetCodes = Array.from(alphabet, (character) => character.charCodeAt(0));

/**
 * Key of the default generator's block-id function that takes the clock reading its caller just
 * made (a tracer stamping `created_at`), saving a second read of the same clock. A separate
 * function: the public `blockId()` ignores its arguments (it may be passed as a callback).
 * @internal
 */
export const blockIdAt: unique symbol = Symbol('tracewarden.blockIdAt');

/** The default generator, with its {@link blockIdAt} function. @internal */
export interface ClockedIdGenerator extends IdGenerator {
  [blockIdAt](at: number): string;
}

/** Source of new ids. Inject one into a tracer for deterministic ids in tests. */
export interface IdGenerator {
  /** A new block id, `tb_` followed by a unique, time-sortable suffix. */
  blockId(): string;
  /** A new trace id, `tr_` followed by a unique, time-sortable suffix. */
  traceId(): string;
  /** A new tool-call id (UUID form, as seed 004's `call_id`). */
  callId(): string;
}

/** Largest time a ULID encodes: 48 bits of milliseconds. */
const maxUlidTime = 2 ** 48 - 1;

/**
 * A clock reading as a ULID's time: whole milliseconds in [0, 2^48). A fractional reading (a
 * `performance.now()`-based clock) is floored; anything else out of range (negative, NaN, not a
 * number, past 10889) is clamped, so ids stay 26 valid characters and in creation order.
 */
function ulidTime(reading: number): number {
  const time = Math.floor(reading);
  if (time >= 0 && time <= maxUlidTime) return time;
  return time > maxUlidTime ? maxUlidTime : 0;
}

/**
 * Creates a monotonic ULID generator: ids made in the same millisecond still sort in creation
 * order, so `id` is a valid tie-breaker after `created_at`.
 * @param now - clock in milliseconds (fractions are floored; readings outside the ULID range,
 *   0 to 2^48 - 1, are clamped to it)
 * @param random - uniform random source in [0, 1)
 * @returns a function returning 26-character Crockford base32 ULIDs (it ignores arguments)
 * @example
 * ```ts
 * const next = createUlid();
 * next(); // '01JD3X4Y5Z6A7B8C9D0E1F2G3H'
 * ```
 */
export function createUlid(
  now: () => number = Date.now,
  random: () => number = Math.random,
): () => string {
  const next = ulidSource(now, random);
  return () => next(undefined);
}

/** {@link createUlid}'s generator, which also takes a reading of `now` just made. */
function ulidSource(
  now: () => number,
  random: () => number,
): (reading: number | undefined) => string {
  // Hot path (one call per traced block): within one millisecond an id is a cached prefix plus
  // one character; the 16-digit random part is only re-encoded on a carry or a new millisecond.
  const digits = new Uint8Array(16);
  let lastTime = -1;
  let prefix = '';
  let lastDigit = 0;
  // The prefix's 25 character codes, made into one flat string by one fromCharCode call: built
  // by concatenation it was 26 intermediate strings per new millisecond (bench/tracer).
  const codes: number[] = new Array<number>(25).fill(48);
  const encodePrefix = (time: number) => {
    let t = time;
    for (let i = 9; i >= 0; i--) {
      codes[i] = alphabetCodes[t % 32] as number;
      t = Math.floor(t / 32);
    }
    for (let i = 0; i < 15; i++) codes[10 + i] = alphabetCodes[digits[i] ?? 0] as number;
    prefix = String.fromCharCode.apply(null, codes);
  };
  return (reading: number | undefined) => {
    const time = ulidTime(reading === undefined ? now() : reading);
    if (time > lastTime) {
      lastTime = time;
      // 16 random digits from three readings (6 + 6 + 4 digits of 5 bits: 30 bits of a
      // reading's 52), not sixteen: a new millisecond comes with most recorded blocks
      for (let i = 0; i < 16; i += 6) {
        let bits = Math.floor(random() * 1_073_741_824);
        for (let j = i; j < i + 6 && j < 16; j++) {
          digits[j] = bits & 31;
          bits >>>= 5;
        }
      }
      // keep headroom so ids of one millisecond rarely carry into the prefix
      digits[0] = (digits[0] ?? 0) & 15;
      lastDigit = digits[15] ?? 0;
      encodePrefix(time);
      return prefix + alphabet[lastDigit];
    }
    // same (or an earlier) millisecond: increment, so ids keep their creation order
    lastDigit++;
    if (lastDigit === 32) {
      lastDigit = 0;
      digits[15] = 0;
      let i = 14;
      while (i >= 0 && digits[i] === 31) {
        digits[i] = 0;
        i--;
      }
      if (i >= 0) digits[i] = (digits[i] ?? 0) + 1;
      encodePrefix(lastTime);
    }
    return prefix + alphabet[lastDigit];
  };
}

/**
 * The default id generator: `tb_`/`tr_` + monotonic ULID, and random UUIDs for call ids.
 * @param now - clock in milliseconds
 * @returns an {@link IdGenerator}
 * @example
 * ```ts
 * const ids = createIdGenerator();
 * ids.blockId(); // 'tb_01JD3X...'
 * ```
 */
export function createIdGenerator(now: () => number = Date.now): IdGenerator {
  const ulid = ulidSource(now, Math.random);
  // The ids stay concatenations (V8 ropes); the validator's first comparison flattens them. A
  // `flat()` here (`id | 0`, an unused expression) was dropped by esbuild from the built package,
  // and flattening here or there measured the same in CPU and bytes (decision 007, session 9).
  const ids: ClockedIdGenerator = {
    blockId: () => `tb_${ulid(undefined)}`,
    traceId: () => `tr_${ulid(undefined)}`,
    callId: () => crypto.randomUUID(),
    [blockIdAt]: (at: number) => `tb_${ulid(at)}`,
  };
  return ids;
}

/**
 * A deterministic id generator for tests: `tb_000001`, `tr_000001`, `call_000001`, ...
 * @returns an {@link IdGenerator} counting from 1
 * @example
 * ```ts
 * const tracer = createTracer({ ids: createSequentialIds() });
 * ```
 */
export function createSequentialIds(): IdGenerator {
  let block = 0;
  let trace = 0;
  let call = 0;
  const pad = (n: number) => String(n).padStart(6, '0');
  return {
    blockId: () => `tb_${pad(++block)}`,
    traceId: () => `tr_${pad(++trace)}`,
    callId: () => `call_${pad(++call)}`,
  };
}
