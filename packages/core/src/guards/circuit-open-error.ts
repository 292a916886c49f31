import { GuardError, type GuardErrorOptions } from './guard-error.js';

const marker = Symbol.for('tracewarden.error.CircuitOpenError');

/**
 * The circuit breaker of a tool is open (or half-open with every probe slot taken), so the call was refused without running (status `circuit_open`).
 *
 * @example
 * ```ts
 * if (CircuitOpenError.isInstance(e)) scheduleLater();
 * ```
 */
export class CircuitOpenError extends GuardError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'CIRCUIT_OPEN';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('CIRCUIT_OPEN', 'circuit_open', options);
  }

  /**
   * Whether `error` is a `CircuitOpenError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (CircuitOpenError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is CircuitOpenError {
    return GuardError.hasMarker(error, marker);
  }
}
