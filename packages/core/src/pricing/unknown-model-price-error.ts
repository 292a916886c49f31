import { TracewardenError } from '../errors/tracewarden-error.js';

/** Options of {@link UnknownModelPriceError}. */
export interface UnknownModelPriceErrorOptions {
  message: string;
  cause?: unknown;
  /** The model that has no price. */
  model: string;
  /** The provider asked for, if any. */
  provider?: string | undefined;
}

const marker = Symbol.for('tracewarden.error.UnknownModelPriceError');

/**
 * No price is known for a model and the unknown-model policy is `refuse` (the default). Fix it
 * with `modelPricingOverrides: { [model]: [inputPer1M, outputPer1M] }`, or choose another
 * `unknownModel` policy.
 *
 * @example
 * ```ts
 * try { priceUsage({ model: 'my-model', usage }); } catch (e) {
 *   if (UnknownModelPriceError.isInstance(e)) console.log(e.model);
 * }
 * ```
 */
export class UnknownModelPriceError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'UNKNOWN_MODEL_PRICE';
  /** The model that has no price. */
  readonly model: string;
  /** The provider asked for, if any. */
  readonly provider: string | undefined;

  /**
   * @param options - message, cause, model and provider
   */
  constructor(options: UnknownModelPriceErrorOptions) {
    super('UNKNOWN_MODEL_PRICE', { message: options.message, cause: options.cause });
    this.model = options.model;
    this.provider = options.provider;
  }

  /**
   * Whether `error` is an `UnknownModelPriceError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (UnknownModelPriceError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is UnknownModelPriceError {
    return TracewardenError.hasMarker(error, marker);
  }
}
