import type { Palette } from './use-color.js';

/** One problem found in an input file, as the command line reports it. */
export interface Problem {
  /** The file, as given on the command line. */
  file: string;
  /** 1-based line, when known. */
  line?: number | undefined;
  /** 1-based column, for JSON syntax errors. */
  column?: number | undefined;
  /** Where in the trace: `tr_1/tb_7` (a block), `#2/3.tool_calls.0` (an event), an entry's call id. */
  address?: string | undefined;
  /** The seed's error code (`VALIDATION`, `PAYLOAD_TOO_LARGE`, `PARENT_SUBTYPE_MISMATCH`, ...). */
  code: string;
  /** The seed's HTTP status of the code, when it has one. */
  http_status?: number | undefined;
  /** What is wrong and what to do about it. */
  message: string;
  /** The error's structured details (snake_case, as on the wire). */
  details?: Record<string, unknown> | undefined;
}

/**
 * Formats a problem as one compiler-style line: `file:line:column: CODE address: message`.
 *
 * @param problem - the problem
 * @param palette - colours (identity functions when colour is off)
 * @returns the line, without a trailing newline
 * @example
 * ```ts
 * formatProblem({ file: 'a.jsonl', line: 3, code: 'DUPLICATE_CALL_ID', address: 'tr_1/tb_3', message: '...' }, palette);
 * // 'a.jsonl:3: DUPLICATE_CALL_ID tr_1/tb_3: ...'
 * ```
 */
export function formatProblem(problem: Problem, palette: Palette): string {
  let where = problem.file;
  if (problem.line !== undefined) where += `:${problem.line}`;
  if (problem.line !== undefined && problem.column !== undefined) where += `:${problem.column}`;
  const address =
    problem.address === undefined || problem.address === ''
      ? ''
      : ` ${palette.cyan(problem.address)}`;
  const message = problem.message.replace(/[\r\n]+/g, ' ');
  return `${palette.bold(where)}: ${palette.red(problem.code)}${address}: ${message}`;
}
