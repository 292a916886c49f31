import { TracewardenError } from '../errors/tracewarden-error.js';

/** Options of {@link InvalidCostError}. */
export interface InvalidCostErrorOptions {
  /** What the cost was and what it must be. */
  message: string;
  /** The value the cost function (or pricing) produced. */
  cost: unknown;
  /** Name of the guarded tool, when known. */
  toolName?: string | undefined;
}

const marker = Symbol.for('tracewarden.error.InvalidCostError');

/**
 * A call's cost was not a finite amount >= 0: a budget's `cost` / `costPerCall` function returned
 * NaN, a string, Infinity or a negative number (or a settlement was given one). The value never
 * reaches the ledger, so the budget keeps holding; a guarded call that produced it fails with this
 * error (status `failure`) and is charged its reserved estimate instead.
 *
 * @example
 * ```ts
 * try { await tool(); } catch (e) {
 *   if (InvalidCostError.isInstance(e)) console.error(e.cost, e.message);
 * }
 * ```
 */
export class InvalidCostError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'INVALID_COST';
  /** The rejected cost, as produced. */
  readonly cost: unknown;
  /** Name of the guarded tool, when known. */
  readonly toolName: string | undefined;

  /**
   * @param options - message, the rejected cost and the tool name
   */
  constructor(options: InvalidCostErrorOptions) {
    super('INVALID_COST', { message: options.message });
    this.cost = options.cost;
    this.toolName = options.toolName;
  }

  /**
   * Whether `error` is an `InvalidCostError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (InvalidCostError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is InvalidCostError {
    return TracewardenError.hasMarker(error, marker);
  }
}
