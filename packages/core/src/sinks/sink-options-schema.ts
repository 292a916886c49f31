import type { ZodType } from 'zod';
import { zod } from '../errors/load-zod.js';
import { lazySchema, optionSchemas } from '../errors/validate-options.js';
import type { ConsoleSinkOptions } from './create-console-sink.js';
import type { JsonlFileSinkOptions } from './create-jsonl-file-sink.js';

function jsonlShape() {
  return {
    bufferBytes: optionSchemas.integer(0).optional(),
    onError: optionSchemas.function().optional(),
    sync: zod().boolean().optional(),
    flushOnExit: zod().boolean().optional(),
  };
}

function consoleShape() {
  return {
    stream: optionSchemas
      .withMethods('a writable stream (with a write method)', ['write'])
      .optional(),
    color: zod().boolean().optional(),
    maxWidth: optionSchemas.integer(1).optional(),
    full: zod().boolean().optional(),
  };
}

/** @internal */
export const jsonlFileSinkOptionsSchema = lazySchema(
  (): ZodType => zod().strictObject(jsonlShape()),
);

/** @internal */
export const consoleSinkOptionsSchema = lazySchema(
  (): ZodType => zod().strictObject(consoleShape()),
);

type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : { missing: Exclude<keyof B, keyof A>; extra: Exclude<keyof A, keyof B> };
// fail to compile when an option is added to a sink's options but not to its schema
const jsonlKeysAgree: SameKeys<ReturnType<typeof jsonlShape>, JsonlFileSinkOptions> = true;
const consoleKeysAgree: SameKeys<ReturnType<typeof consoleShape>, ConsoleSinkOptions> = true;
void jsonlKeysAgree;
void consoleKeysAgree;
