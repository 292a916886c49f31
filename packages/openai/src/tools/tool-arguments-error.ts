import { TracewardenError } from '@tracewarden/core';

/** Codes of {@link ToolArgumentsError}. */
export type ToolArgumentsErrorCode = 'TOOL_ARGUMENTS_INVALID';

/** Options of {@link ToolArgumentsError}. */
export interface ToolArgumentsErrorOptions {
  /** The tool the model called. */
  toolName: string;
  /** The model's call id. */
  callId: string;
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.ToolArgumentsError');

/**
 * A tool's arguments were not JSON text of an object (status `validation_failed`).
 *
 * @example
 * ```ts
 * if (ToolArgumentsError.isInstance(e)) console.error(e.message);
 * ```
 */
export class ToolArgumentsError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: ToolArgumentsErrorCode;

  /**
   * @param options - the tool name, the call id and an optional cause (the JSON parse error)
   */
  constructor(options: ToolArgumentsErrorOptions) {
    super('TOOL_ARGUMENTS_INVALID', {
      message: `tool call ${options.callId} of "${options.toolName}" has arguments that are not a JSON object; the model must send a JSON object`,
      cause: options.cause,
    });
  }

  /**
   * Whether `error` is a `ToolArgumentsError`, from this or any other copy of the package: use it
   * rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (ToolArgumentsError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is ToolArgumentsError {
    return TracewardenError.hasMarker(error, marker);
  }
}
