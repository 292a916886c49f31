import type { BlockLimits } from '@tracewarden/core';
import { ServerError } from '../errors/index.js';

/** Request limits of the collector; each over-limit request is a 413 `PAYLOAD_TOO_LARGE`. */
export interface ServerLimits {
  /** Bytes of a request body as sent (compressed, when gzip). Env `TRACEWARDEN_MAX_BODY_BYTES`. @default 13631488 (13 MiB: a 2 MB result written with JSON escapes, plus 1 MiB) */
  maxBodyBytes: number;
  /** Bytes of a gzip body once decompressed. Env `TRACEWARDEN_MAX_DECOMPRESSED_BYTES`. @default 67108864 (64 MiB) */
  maxDecompressedBytes: number;
  /** Blocks in one `POST .../blocks` batch. Env `TRACEWARDEN_MAX_BATCH_BLOCKS`. @default 10000 */
  maxBatchBlocks: number;
  /** Blocks one trace may hold. Env `TRACEWARDEN_MAX_TRACE_BLOCKS`. @default 1000000 */
  maxTraceBlocks: number;
}

/**
 * The default {@link ServerLimits}.
 *
 * @example
 * ```ts
 * defaultServerLimits.maxBodyBytes; // 13631488
 * ```
 */
export const defaultServerLimits: Readonly<ServerLimits> = Object.freeze({
  maxBodyBytes: 13 * 1024 * 1024,
  maxDecompressedBytes: 64 * 1024 * 1024,
  maxBatchBlocks: 10_000,
  maxTraceBlocks: 1_000_000,
});

const variables: Readonly<Record<keyof ServerLimits, string>> = {
  maxBodyBytes: 'TRACEWARDEN_MAX_BODY_BYTES',
  maxDecompressedBytes: 'TRACEWARDEN_MAX_DECOMPRESSED_BYTES',
  maxBatchBlocks: 'TRACEWARDEN_MAX_BATCH_BLOCKS',
  maxTraceBlocks: 'TRACEWARDEN_MAX_TRACE_BLOCKS',
};

/** Room for a block's other fields above its largest field (escaped), in a body. */
const bodyOverheadBytes = 1024 * 1024;

/**
 * Resolves the limits in force: options win over `TRACEWARDEN_MAX_*` variables, which win over
 * {@link defaultServerLimits}. A body limit left to its default grows to fit the largest block
 * field the byte limits allow, written with JSON escapes (six bytes a byte at most: a 2 MB
 * result of control characters is 12 MB of JSON), plus 1 MiB, and so does the decompressed limit; a body limit set below that is kept
 * (the caller may warn, see {@link bodyLimitBelowBlockLimit}).
 *
 * @param overrides - limits to force (positive integers)
 * @param env - the environment to read
 * @param blockLimits - the block byte limits in force (seed 002's `LIMIT_*`)
 * @default env `process.env`
 * @returns a frozen, complete set of limits
 * @throws {@link ServerError} `INVALID_REQUEST` naming the variable or option that is not a positive integer
 * @example
 * ```ts
 * resolveServerLimits({ maxBatchBlocks: 500 }, { TRACEWARDEN_MAX_BODY_BYTES: '1048576' });
 * ```
 */
export function resolveServerLimits(
  overrides: Partial<ServerLimits> = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
  blockLimits?: Readonly<BlockLimits>,
): Readonly<ServerLimits> {
  const limits: ServerLimits = { ...defaultServerLimits };
  const needed = bodyBytesFor(blockLimits);
  if (needed > limits.maxBodyBytes) limits.maxBodyBytes = needed;
  if (needed > limits.maxDecompressedBytes) limits.maxDecompressedBytes = needed;
  for (const name of Object.keys(variables) as (keyof ServerLimits)[]) {
    const variable = variables[name];
    const text = env[variable];
    if (text !== undefined && text.trim() !== '') {
      const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(value) || value <= 0) {
        throw new ServerError({
          code: 'INVALID_REQUEST',
          message: `environment variable ${variable} must be a positive whole number, got ${JSON.stringify(text)}; set it to e.g. ${defaultServerLimits[name]} or unset it`,
          details: { setting: variable },
        });
      }
      limits[name] = value;
    }
    const option = overrides[name];
    if (option !== undefined) {
      if (!Number.isSafeInteger(option) || option <= 0) {
        throw new ServerError({
          code: 'INVALID_REQUEST',
          message: `option limits.${name} must be a positive whole number, got ${String(option)}; pass e.g. ${defaultServerLimits[name]} or omit it`,
          details: { setting: name },
        });
      }
      limits[name] = option;
    }
  }
  return Object.freeze(limits);
}

/** The largest block field the byte limits allow, in bytes. */
function largestBlockField(blockLimits: Readonly<BlockLimits>): number {
  return Math.max(0, ...Object.values(blockLimits));
}

/**
 * JSON text bytes per byte of a field at most: a control character is written `\u0001`, so a
 * field that fits its byte limit can take six times that in the body that carries it.
 */
const jsonEscapeFactor = 6;

/** The body a block with its largest field at the limit needs (0 without block limits). */
function bodyBytesFor(blockLimits: Readonly<BlockLimits> | undefined): number {
  return blockLimits === undefined
    ? 0
    : largestBlockField(blockLimits) * jsonEscapeFactor + bodyOverheadBytes;
}

/**
 * Why a body limit set by the user cannot carry a block field the byte limits allow, or
 * `undefined` when it can: the collector says so once at start, as a warning.
 *
 * @param limits - the resolved server limits
 * @param blockLimits - the block byte limits in force
 * @returns the warning's text, or undefined
 */
export function bodyLimitBelowBlockLimit(
  limits: Readonly<ServerLimits>,
  blockLimits: Readonly<BlockLimits>,
): string | undefined {
  const largest = largestBlockField(blockLimits);
  if (limits.maxBodyBytes >= largest) return undefined;
  return `a request body may hold at most ${limits.maxBodyBytes} bytes (TRACEWARDEN_MAX_BODY_BYTES), less than the largest block field the byte limits allow (${largest} bytes): such blocks get 413 for the body, not for the field; raise TRACEWARDEN_MAX_BODY_BYTES to at least ${bodyBytesFor(blockLimits)} (room for such a field written with JSON escapes)`;
}
