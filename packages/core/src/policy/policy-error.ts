import { TracewardenError } from '../errors/tracewarden-error.js';
import type { PolicyResult } from './policy-types.js';

/**
 * Codes of {@link PolicyError}: `POLICY_SYNTAX` (the text does not parse), `POLICY_TYPE` (it parses
 * but does not compile: unknown name, type or function, bad pattern), `POLICY_INPUT` (a trace
 * or tool call handed to a policy is not usable) and `POLICY_LIMIT` (checking a trace hit a named
 * limit, e.g. a lookahead regex past `MAX_REGEX_STEPS`).
 */
export type PolicyErrorCode = 'POLICY_SYNTAX' | 'POLICY_TYPE' | 'POLICY_INPUT' | 'POLICY_LIMIT';

/** Options of {@link PolicyError}. */
export interface PolicyErrorOptions {
  code: PolicyErrorCode;
  /** What was wrong and what was expected; the position is appended by the constructor. */
  message: string;
  /** 1-based line in the policy text (syntax and type errors). */
  line?: number;
  /** 1-based column in the policy text (syntax and type errors). */
  column?: number;
  /** Address into the trace (input errors), e.g. `"3.tool_calls.0"`. */
  address?: string;
  /** A limit one rule hit in `Policy.check`: the violations of the rules that finished. */
  partial?: PolicyResult;
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.PolicyError');

/**
 * A policy could not be parsed or compiled, or was given unusable input. Syntax and type errors
 * carry the 1-based `line` and `column` of the offending token, and the message ends with
 * `at line:column`.
 *
 * @example
 * ```ts
 * try { parsePolicy('raise "x" if\n  true'); } catch (e) {
 *   if (PolicyError.isInstance(e)) console.error(e.code, e.line, e.column, e.message);
 * }
 * ```
 */
export class PolicyError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: PolicyErrorCode;
  /** 1-based line of the problem in the policy text, when it has one. */
  readonly line: number | undefined;
  /** 1-based column of the problem in the policy text, when it has one. */
  readonly column: number | undefined;
  /** Address into the trace of the offending event (input errors). */
  readonly address: string | undefined;
  /**
   * For a `POLICY_LIMIT` thrown by `Policy.check`: the violations of every rule that finished
   * (the others are still checked when one rule hits a limit), so a caller can report them with
   * the rule that could not.
   */
  readonly partial: PolicyResult | undefined;

  constructor(options: PolicyErrorOptions) {
    const where =
      options.line !== undefined
        ? ` at ${options.line}:${options.column ?? 1}`
        : options.address !== undefined
          ? ` at event ${options.address}`
          : '';
    super(options.code, { message: `${options.message}${where}`, cause: options.cause });
    this.line = options.line;
    this.column = options.column;
    this.address = options.address;
    this.partial = options.partial;
  }

  /**
   * The same as {@link PolicyError.isInstance} (its earlier name).
   * @param error - any thrown value
   * @returns true for policy errors
   */
  static isPolicyError(error: unknown): error is PolicyError {
    // (not through the class's own name: see tracewarden-error.ts)
    return TracewardenError.hasMarker(error, marker);
  }

  /**
   * Whether `error` is a `PolicyError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (PolicyError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is PolicyError {
    return TracewardenError.hasMarker(error, marker);
  }
}
