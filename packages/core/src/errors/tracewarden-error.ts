const marker = Symbol.for('tracewarden.error');

// A class's methods never name the class itself: the bundler would then rename the class
// (`class _TracewardenError`), and `error.name` (set from `new.target.name`) would read so.
function carriesMarker(error: unknown, classMarker: symbol): boolean {
  try {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[classMarker] === true
    );
  } catch {
    // a thrown value whose property reads throw (a hostile Proxy) is no tracewarden error
    return false;
  }
}

/** Options every tracewarden error accepts. */
export interface TracewardenErrorOptions {
  /** What went wrong and what to do about it. */
  message: string;
  /** The underlying error, if this one wraps another. */
  cause?: unknown;
}

/**
 * Base class of every error tracewarden throws. Each subclass carries a stable `code`.
 *
 * Use {@link TracewardenError.isInstance} rather than `instanceof`: it also recognises errors
 * thrown by another copy of the package (duplicate installs, bundled adapters).
 *
 * @example
 * ```ts
 * try { tracer.logMessage(input); } catch (e) {
 *   if (TracewardenError.isInstance(e)) console.error(e.code, e.message);
 * }
 * ```
 */
export class TracewardenError extends Error {
  /** @internal */
  readonly [marker] = true;
  /** Stable, SCREAMING_SNAKE error code. */
  readonly code: string;

  constructor(code: string, options: TracewardenErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }

  /**
   * Whether `error` is a tracewarden error, from this or any other copy of the package.
   * @param error - any thrown value
   * @returns true when `error` carries the tracewarden marker
   */
  static isInstance(error: unknown): error is TracewardenError {
    return carriesMarker(error, marker);
  }

  /**
   * Whether `error` carries a class's marker: each error class sets its own
   * `Symbol.for('tracewarden.error.<ClassName>')` on its instances and tests it in its static
   * `isInstance`, so a class recognises its instances (and its subclasses') from any copy of the
   * package. Safe on any thrown value.
   * @param error - any thrown value
   * @param classMarker - the class's `Symbol.for` marker
   * @returns true when `error` is an object whose `classMarker` property is `true`
   */
  protected static hasMarker(error: unknown, classMarker: symbol): boolean {
    return carriesMarker(error, classMarker);
  }
}
