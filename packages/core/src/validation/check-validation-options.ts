import { optionTypes } from '../errors/option-types.js';
import { lazySchema, validateOptions } from '../errors/validate-options.js';

/** Any value: the value of each option is checked where it is read (`limits`, `traceId`). */
const checkedWhereRead = () =>
  optionTypes.custom<unknown>(() => true, 'any value (checked where it is read)').optional();

const withLimits = lazySchema(() =>
  optionTypes.strictObject({ limits: checkedWhereRead(), traceId: checkedWhereRead() }),
);
const traceIdOnly = lazySchema(() => optionTypes.strictObject({ traceId: checkedWhereRead() }));

/**
 * Checks the options object of `validateBlocks`, `checkBlock`, `createBlockValidator` (`limits`,
 * `traceId`) and `stitchBlocks` (`traceId`): nothing, or an object without unknown keys, so a
 * typo (`trace_id`) is an error rather than ignored, and `null` a typed error rather than a raw
 * `TypeError`. The usual options pass a look at their keys.
 * @throws {ConfigurationError} `INVALID_OPTIONS`, naming the rejected option
 * @internal
 */
export function checkValidationOptions(
  entryPoint: string,
  options: unknown,
  takesLimits: boolean,
): void {
  if (options === undefined) return;
  if (typeof options === 'object' && options !== null && !Array.isArray(options)) {
    let known = true;
    for (const key in options)
      if (key !== 'traceId' && (key !== 'limits' || !takesLimits)) {
        known = false;
        break;
      }
    if (known) return;
  }
  validateOptions(takesLimits ? withLimits : traceIdOnly, options, { entryPoint });
}
