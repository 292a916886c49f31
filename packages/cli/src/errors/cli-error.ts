import { TracewardenError } from '@tracewarden/core';

/** Codes of {@link CliError}. */
export type CliErrorCode =
  | 'CLI_USAGE'
  | 'CLI_FILE_NOT_FOUND'
  | 'CLI_FILE_UNREADABLE'
  | 'CLI_UNKNOWN_FORMAT'
  | 'CLI_INVALID_JSON'
  | 'CLI_LINE_TOO_LONG'
  | 'CLI_POLICY_INVALID'
  | 'CLI_WRITE_FAILED'
  | 'CLI_PUSH_FAILED';

/** Exit codes of the `tracewarden` command. */
export const exitCodes = Object.freeze({
  /** Everything was fine. */
  ok: 0,
  /** The command ran and found problems (invalid traces, a `block` policy violation). */
  problems: 1,
  /** The command line was wrong: unknown option or format, missing file, bad policy. */
  usage: 2,
  /** Interrupted with Ctrl-C (SIGINT), 128 + 2 as shells report it. */
  interrupted: 130,
} as const);

/** Options of {@link CliError}. */
export interface CliErrorOptions {
  code: CliErrorCode;
  /** What was wrong and what to do about it. */
  message: string;
  /** The file concerned, when there is one. */
  file?: string;
  /** 1-based line in `file`, when known. */
  line?: number;
  /** 1-based column in `line`, when known. */
  column?: number;
  /** The exit code this error ends the command with. @default 2 */
  exitCode?: number;
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.CliError');

/**
 * An error the command line reports to the user and exits on: a usage problem (exit 2) or an
 * input that cannot be read at all.
 *
 * @example
 * ```ts
 * throw new CliError({ code: 'CLI_FILE_NOT_FOUND', file: 'a.json', message: 'a.json: no such file; check the path' });
 * ```
 */
export class CliError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: CliErrorCode;
  /** The file concerned, when there is one. */
  readonly file: string | undefined;
  /** 1-based line, when known. */
  readonly line: number | undefined;
  /** 1-based column, when known. */
  readonly column: number | undefined;
  /** Exit code of the command when this error ends it. */
  readonly exitCode: number;

  /**
   * @param options - code, message, and the position and exit code when they apply
   */
  constructor(options: CliErrorOptions) {
    super(options.code, { message: options.message, cause: options.cause });
    this.file = options.file;
    this.line = options.line;
    this.column = options.column;
    this.exitCode = options.exitCode ?? exitCodes.usage;
  }

  /**
   * Whether `error` is a `CliError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (CliError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is CliError {
    return TracewardenError.hasMarker(error, marker);
  }
}
