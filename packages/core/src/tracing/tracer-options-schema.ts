import { optionTypes } from '../errors/option-types.js';
import { lazySchema } from '../errors/validate-options.js';
import { optionSchemas } from '../errors/zod-options.js';
import type { TracerOptions } from './create-tracer.js';

const byteLimit = () => optionTypes.integer(1).optional();

function tracerShape() {
  return {
    traceId: optionTypes.string(1).optional(),
    sinks: optionTypes
      .array(
        optionTypes.withMethods('a Sink (write, flush, close), e.g. from createMemorySink()', [
          'write',
          'flush',
          'close',
        ]),
      )
      .optional(),
    limits: optionTypes
      .strictObject({
        messageBytes: byteLimit(),
        thinkBytes: byteLimit(),
        toolArgumentsBytes: byteLimit(),
        toolResultBytes: byteLimit(),
      })
      .optional(),
    clock: optionTypes.function('a function returning epoch milliseconds').optional(),
    ids: optionTypes
      .withMethods('an IdGenerator (blockId, traceId, callId)', ['blockId', 'traceId', 'callId'])
      .optional(),
    onError: optionTypes.function().optional(),
    flushOnExit: optionTypes.boolean().optional(),
  };
}

/**
 * The schema of `createTracer()`'s options: no unknown keys, sinks and id generators by shape,
 * byte limits whole numbers >= 1.
 * @internal
 */
export const tracerOptionsSchema = lazySchema(() => optionTypes.strictObject(tracerShape()));

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
  // zod, unlike core's own schemas: it is documented for composing into a zod schema
  () =>
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
