import { TracewardenError } from '@tracewarden/core';

/** Codes of {@link ToolOutputError}. */
export type ToolOutputErrorCode = 'TOOL_OUTPUT_NOT_JSON';

/** Options of {@link ToolOutputError}. */
export interface ToolOutputErrorOptions {
  /** The tool that returned the value. */
  toolName: string;
  /** Why the value has no JSON text: the serialiser's error, or what the value is. */
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.ToolOutputError');

/**
 * A tool returned a value with no JSON text (a circular object, a BigInt, a function): the model
 * could not read it, so `executeToolCalls` answers the call as failed (status `failure`) rather
 * than sending `[object Object]`.
 *
 * @example
 * ```ts
 * if (ToolOutputError.isInstance(e)) console.error(e.message);
 * ```
 */
export class ToolOutputError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: ToolOutputErrorCode;

  /** @param options - the tool name and why its value has no JSON text */
  constructor(options: ToolOutputErrorOptions) {
    const why = options.cause instanceof Error ? `: ${options.cause.message}` : '';
    super('TOOL_OUTPUT_NOT_JSON', {
      message: `tool "${options.toolName}" returned a value with no JSON text${why}; return a string or a JSON value (objects, arrays, numbers, booleans, null)`,
      cause: options.cause,
    });
  }

  /**
   * Whether `error` is a `ToolOutputError`, from this or any other copy of the package: use it
   * rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (ToolOutputError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is ToolOutputError {
    return TracewardenError.hasMarker(error, marker);
  }
}
