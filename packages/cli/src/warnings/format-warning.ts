import type { Palette } from '../output/index.js';

/**
 * A value the command does not know, reported once however many records carry it: the first
 * place it occurs and how many records do.
 */
export interface Warning {
  /**
   * What was found: `UNKNOWN_ROLE` (a chat event's role), `UNKNOWN_SUB_TYPE` (a block's sub
   * type), `LONE_SURROGATE` (a chat-event trace whose text holds halves of characters, read as
   * U+FFFD), `EMPTY_TRACE` (a trace with no events, whose own fields `convert` has no block to
   * keep on, or no blocks at all), `EMPTY_DATASET` (a dataset with no traces, whose own fields
   * blocks have no place for), `INVALID_UTF8` (lines of a file with bytes that are not UTF-8, read as
   * U+FFFD), `UNKNOWN_CALL_ID` (a tool output whose `tool_call_id` answers no call, kept as
   * an output of no call), `DUPLICATE_TRACE_ID` (a second trace with an id, converted under `<id>_2`),
   * `UNREAD_TOOL_PART` (a content part that is a tool call or output in another API's shape) or
   * `UNKNOWN_BLOCK_FIELD` (a block's top-level field outside seed 002's, which a block cannot keep)
   * or `INVALID_FIGURE` (a token count or cost that is not a non-negative number, left out of
   * `stats`' totals).
   */
  code:
    | 'UNKNOWN_ROLE'
    | 'UNKNOWN_SUB_TYPE'
    | 'LONE_SURROGATE'
    | 'EMPTY_TRACE'
    | 'EMPTY_DATASET'
    | 'INVALID_UTF8'
    | 'UNKNOWN_CALL_ID'
    | 'DUPLICATE_TRACE_ID'
    | 'UNREAD_TOOL_PART'
    | 'UNKNOWN_BLOCK_FIELD'
    | 'INVALID_FIGURE';
  /**
   * The unknown value as written, e.g. `asistant`; the trace's label for the per-trace codes;
   * the part type for `UNREAD_TOOL_PART`.
   */
  value: string;
  /** Records (events or blocks) that carry it; for `LONE_SURROGATE`, the surrogates replaced. */
  count: number;
  /** The file of its first occurrence, as given on the command line. */
  file: string;
  /** 1-based line of its first occurrence, when known. */
  line?: number | undefined;
  /** Where in the trace it first occurs: `#0/2` (an event), `tr_1/tb_7` (a block). */
  address?: string | undefined;
  /** What was found, what the command did with it, and the values it knows. */
  message: string;
}

/**
 * Formats a warning as one compiler-style line, like a problem's:
 * `file:line: warning CODE address: message`.
 *
 * @param warning - the warning
 * @param palette - colours (identity functions when colour is off)
 * @returns the line, without a trailing newline
 * @example
 * ```ts
 * formatWarning({ code: 'UNKNOWN_ROLE', value: 'asistant', count: 1, file: 'chat.json', line: 3, address: '#0/1', message: '...' }, palette);
 * // 'chat.json:3: warning UNKNOWN_ROLE #0/1: ...'
 * ```
 */
export function formatWarning(warning: Warning, palette: Palette): string {
  const where = warning.line === undefined ? warning.file : `${warning.file}:${warning.line}`;
  const address =
    warning.address === undefined || warning.address === ''
      ? ''
      : ` ${palette.cyan(warning.address)}`;
  return `${palette.bold(where)}: ${palette.yellow(`warning ${warning.code}`)}${address}: ${warning.message}`;
}
