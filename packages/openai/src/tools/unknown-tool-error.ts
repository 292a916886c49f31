import { TracewardenError } from '@tracewarden/core';

/** Codes of {@link UnknownToolError}. */
export type UnknownToolErrorCode = 'UNKNOWN_TOOL';

/** Options of {@link UnknownToolError}. */
export interface UnknownToolErrorOptions {
  /** The name the model used. */
  toolName: string;
  /** The names of the tools in the tool set. */
  known: readonly string[];
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.UnknownToolError');

/**
 * A tool named by the model that is not in the tool set (status `hallucinated`).
 *
 * @example
 * ```ts
 * if (UnknownToolError.isInstance(e)) console.error(e.toolName);
 * ```
 */
export class UnknownToolError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: UnknownToolErrorCode;
  /** The name the model used. */
  readonly toolName: string;

  /**
   * @param options - the tool name the model used, the known tool names and an optional cause
   */
  constructor(options: UnknownToolErrorOptions) {
    super('UNKNOWN_TOOL', {
      message: `the model called tool "${options.toolName}", which is not in the tool set (${options.known.join(', ') || 'none'}); add it or tell the model which tools exist`,
      cause: options.cause,
    });
    this.toolName = options.toolName;
  }

  /**
   * Whether `error` is an `UnknownToolError`, from this or any other copy of the package: use it
   * rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (UnknownToolError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is UnknownToolError {
    return TracewardenError.hasMarker(error, marker);
  }
}
