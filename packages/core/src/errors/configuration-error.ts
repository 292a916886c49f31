import { TracewardenError } from './tracewarden-error.js';

/** Codes of {@link ConfigurationError}. */
export type ConfigurationErrorCode = 'INVALID_OPTIONS';

/** One rejected option: where it is, what was expected there, and what was given. */
export interface ConfigurationIssue {
  /** Dotted path of the option from the options object, e.g. `budget.maxCostPerSession` (`''`: the options object itself). */
  readonly path: string;
  /** What the option must be, e.g. `a finite number >= 0`. */
  readonly expected: string;
  /** What was given, rendered for a reader, e.g. `NaN`, `"5"`, `a function`. */
  readonly received: string;
}

/** Options of {@link ConfigurationError}. */
export interface ConfigurationErrorOptions {
  /** What was wrong and how to fix it. */
  message: string;
  /** The function the options were given to, e.g. `guard` or `createTracer`. */
  entryPoint: string;
  /** Every rejected option (at least one). */
  issues: readonly ConfigurationIssue[];
  /** The underlying error, if any. */
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.ConfigurationError');

/**
 * Options given to a tracewarden entry point (`guard`, `guardTools`, `createTracer`,
 * `createBudget`, the sinks, the adapters) were rejected where they were given: an unknown key
 * (a typo such as `budgets` for `budget`), a value of the wrong type, or a number out of range
 * (NaN, negative, past Node's timer maximum). Nothing was created.
 *
 * The message names every rejected option's path, what was expected and what was given;
 * {@link ConfigurationError.issues} has the same facts as data.
 *
 * @example
 * ```ts
 * try {
 *   guard(search, { budgets: { maxCostPerSession: 1 } } as never);
 * } catch (e) {
 *   if (ConfigurationError.isInstance(e)) console.error(e.issues[0]?.path); // "budgets"
 * }
 * ```
 */
export class ConfigurationError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: ConfigurationErrorCode;
  /** The function the options were given to, e.g. `guard`. */
  readonly entryPoint: string;
  /** Every rejected option. */
  readonly issues: readonly ConfigurationIssue[];

  /**
   * @param options - message, entry point, the rejected options and an optional cause
   */
  constructor(options: ConfigurationErrorOptions) {
    super('INVALID_OPTIONS', { message: options.message, cause: options.cause });
    this.entryPoint = options.entryPoint;
    this.issues = Object.freeze(options.issues.slice());
  }

  /** Path of the first rejected option (`''` for the options object itself). */
  get path(): string {
    return this.issues[0]?.path ?? '';
  }

  /**
   * Whether `error` is a `ConfigurationError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (ConfigurationError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is ConfigurationError {
    return TracewardenError.hasMarker(error, marker);
  }
}
