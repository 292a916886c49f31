import { GuardError, type GuardErrorOptions } from './guard-error.js';

/**
 * The circuit breaker of a tool is open (or half-open with every probe slot taken), so the call was refused without running (status `circuit_open`).
 *
 * @example
 * ```ts
 * if (e instanceof CircuitOpenError) scheduleLater();
 * ```
 */
export class CircuitOpenError extends GuardError {
  declare readonly code: 'CIRCUIT_OPEN';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('CIRCUIT_OPEN', 'circuit_open', options);
  }
}
