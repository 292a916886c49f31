import type { ZodType } from 'zod';
import { zod } from '../errors/load-zod.js';
import { lazySchema, optionSchemas } from '../errors/validate-options.js';
import type { TracerOptions } from './create-tracer.js';

const byteLimit = () => optionSchemas.integer(1).optional();

function tracerShape() {
  return {
    traceId: zod().string().min(1).optional(),
    sinks: zod()
      .array(
        optionSchemas.withMethods('a Sink (write, flush, close), e.g. from createMemorySink()', [
          'write',
          'flush',
          'close',
        ]),
      )
      .optional(),
    limits: zod()
      .strictObject({
        messageBytes: byteLimit(),
        thinkBytes: byteLimit(),
        toolArgumentsBytes: byteLimit(),
        toolResultBytes: byteLimit(),
      })
      .optional(),
    clock: optionSchemas.function('a function returning epoch milliseconds').optional(),
    ids: optionSchemas
      .withMethods('an IdGenerator (blockId, traceId, callId)', ['blockId', 'traceId', 'callId'])
      .optional(),
    onError: optionSchemas.function().optional(),
    flushOnExit: zod().boolean().optional(),
  };
}

/**
 * The schema of `createTracer()`'s options: no unknown keys, sinks and id generators by shape,
 * byte limits whole numbers >= 1.
 * @internal
 */
export const tracerOptionsSchema = lazySchema((): ZodType => zod().strictObject(tracerShape()));

/**
 * A tracer as an option of another entry point (an adapter's `tracer`): an object with the
 * tracer's methods, so that a function or a misspelt object is rejected where it is given rather
 * than warned about once per block.
 * @returns the schema (built on first use, then shared)
 * @example
 * ```ts
 * validateOptions(z.strictObject({ tracer: tracerSchema().optional() }), options, { entryPoint: 'wrapOpenAI' });
 * ```
 */
export const tracerSchema = lazySchema(
  (): ZodType =>
    optionSchemas.withMethods('a Tracer (from createTracer())', [
      'logMessage',
      'logAct',
      'logObserve',
      'recordEntry',
      'blocks',
      'flush',
    ]),
);

type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : { missing: Exclude<keyof B, keyof A>; extra: Exclude<keyof A, keyof B> };
// fails to compile when an option is added to TracerOptions but not to the schema
const tracerKeysAgree: SameKeys<ReturnType<typeof tracerShape>, TracerOptions> = true;
void tracerKeysAgree;
