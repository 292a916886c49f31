import { TracewardenError } from '../errors/tracewarden-error.js';
import type { ToolCallStatus, TraceEntry } from '../model/tool-records.js';

/** Codes of the errors a guard throws when it blocks a call. */
export type GuardErrorCode =
  | 'TIMEOUT'
  | 'CIRCUIT_OPEN'
  | 'BUDGET_EXCEEDED'
  | 'RATE_LIMITED'
  | 'VALIDATION_FAILED'
  | 'HALLUCINATED';

/** Options every {@link GuardError} accepts. */
export interface GuardErrorOptions {
  /** What was refused and what to do about it. */
  message: string;
  /** The underlying error, if any (e.g. the last attempt's error of a timed-out call). */
  cause?: unknown;
  /** The finished call as recorded; `undefined` only when thrown outside `guard()` (e.g. by a budget). */
  entry?: TraceEntry | undefined;
  /** Name of the tool the guard protects. */
  toolName?: string | undefined;
}

const marker = Symbol.for('tracewarden.error.GuardError');

/**
 * Base class of the errors a guard throws when its action is `block`. Carries the seed's
 * {@link ToolCallStatus} of the refused call and the {@link TraceEntry} recorded for it, so a
 * caller can report exactly why a call did not happen.
 *
 * Guards never retry a `GuardError` (nor any other tracewarden error): a refusal is a decision,
 * not a transient failure.
 *
 * @example
 * ```ts
 * try { await search('x'); } catch (e) {
 *   if (GuardError.isInstance(e)) console.log(e.code, e.status, e.entry?.result.metadata);
 * }
 * ```
 */
export class GuardError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: GuardErrorCode;
  /** The seed's status of the refused call (`timeout`, `circuit_open`, ...). */
  readonly status: ToolCallStatus;
  /** The recorded call and result. */
  readonly entry: TraceEntry | undefined;
  /** Name of the guarded tool, when known. */
  readonly toolName: string | undefined;

  constructor(code: GuardErrorCode, status: ToolCallStatus, options: GuardErrorOptions) {
    super(code, { message: options.message, cause: options.cause });
    this.status = status;
    this.entry = options.entry;
    this.toolName = options.toolName;
  }

  /**
   * The same as {@link GuardError.isInstance} (its earlier name).
   * @param error - any thrown value
   * @returns true for guard refusals
   */
  static isGuardError(error: unknown): error is GuardError {
    // (not through the class's own name: see tracewarden-error.ts)
    return TracewardenError.hasMarker(error, marker);
  }

  /**
   * Whether `error` is a `GuardError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (GuardError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is GuardError {
    return TracewardenError.hasMarker(error, marker);
  }
}
