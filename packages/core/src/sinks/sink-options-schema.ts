import { optionTypes } from '../errors/option-types.js';
import { lazySchema } from '../errors/validate-options.js';
import type { ConsoleSinkOptions } from './create-console-sink.js';
import type { JsonlFileSinkOptions } from './create-jsonl-file-sink.js';
import type { HttpSinkOptions } from './http-sink-options.js';

function jsonlShape() {
  return {
    bufferBytes: optionTypes.integer(0).optional(),
    onError: optionTypes.function().optional(),
    sync: optionTypes.boolean().optional(),
    flushOnExit: optionTypes.boolean().optional(),
  };
}

function consoleShape() {
  return {
    stream: optionTypes
      .withMethods('a writable stream (with a write method)', ['write'])
      .optional(),
    color: optionTypes.boolean().optional(),
    maxWidth: optionTypes.integer(1).optional(),
    full: optionTypes.boolean().optional(),
  };
}

function httpShape() {
  const text = (what: string) =>
    optionTypes.custom<string>((value) => typeof value === 'string' && value.trim() !== '', what);
  return {
    url: text('the collector\'s base URL, e.g. "http://127.0.0.1:7319"'),
    apiKey: text('a non-empty API key (tracewarden keys create)'),
    organization: text("a non-empty organization name (the API key's)").optional(),
    // upper bounds: the collector's default request limits (httpSinkLimits)
    maxBatchBlocks: bounded(1, 10_000).optional(),
    maxBatchBytes: bounded(1024, 8 * 1024 * 1024).optional(),
    flushIntervalMs: bounded(0, 2_147_483_647).optional(),
    maxBufferedBlocks: optionTypes.integer(1).optional(),
    requestTimeoutMs: bounded(1, 2_147_483_647).optional(),
    retryBaseDelayMs: bounded(0, 2_147_483_647).optional(),
    maxRetryDelayMs: bounded(0, 2_147_483_647).optional(),
    flushTimeoutMs: bounded(1, 2_147_483_647).optional(),
    compression: optionTypes.oneOf(['gzip', 'none']).optional(),
    onError: optionTypes.function().optional(),
    fetch: optionTypes.function('a fetch function').optional(),
  };
}

/** A whole number in `[min, max]`. */
function bounded(min: number, max: number) {
  return optionTypes.custom<number>(
    (value) =>
      typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max,
    `a whole number between ${min} and ${max}`,
  );
}

/** @internal */
export const httpSinkOptionsSchema = lazySchema(() => optionTypes.strictObject(httpShape()));

/** @internal */
export const jsonlFileSinkOptionsSchema = lazySchema(() => optionTypes.strictObject(jsonlShape()));

/** @internal */
export const consoleSinkOptionsSchema = lazySchema(() => optionTypes.strictObject(consoleShape()));

type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : { missing: Exclude<keyof B, keyof A>; extra: Exclude<keyof A, keyof B> };
// fail to compile when an option is added to a sink's options but not to its schema
const jsonlKeysAgree: SameKeys<ReturnType<typeof jsonlShape>, JsonlFileSinkOptions> = true;
const consoleKeysAgree: SameKeys<ReturnType<typeof consoleShape>, ConsoleSinkOptions> = true;
const httpKeysAgree: SameKeys<ReturnType<typeof httpShape>, HttpSinkOptions> = true;
void jsonlKeysAgree;
void httpKeysAgree;
void consoleKeysAgree;
