import {
  hasResponsesItems,
  isTranscriptMetaLine,
  isWrappedMessage,
  traceEventKeys,
} from '@tracewarden/core';
import { isMetadataEvent } from './explorer-event-list.js';
import { invariantEntryKind } from './invariant-entry.js';
import { isObject } from './is-object.js';

/** The input formats the command line reads, as named by `--format`. */
export const inputFormats = ['events', 'dataset', 'blocks', 'entries'] as const;

/**
 * An input format: `events` (chat-event traces, seeds 000/001/003), `dataset` (a collection of
 * such traces with its own metadata), `blocks` (seed 002 trace blocks, e.g. the JSONL sink's
 * files) or `entries` (seed 004 `TraceEntry` tool records).
 */
export type InputFormat = (typeof inputFormats)[number];

/**
 * What one JSON value (a whole JSON document, or one JSONL line) holds:
 * - `trace`: one chat-event trace (an array of events, or `{ messages | events, metadata? }`;
 *   the array may start with Invariant Explorer's `{ metadata }` element)
 * - `traces`: an array of traces
 * - `dataset`: `{ traces: [...], metadata?, name? }`
 * - `dataset-header`: a JSONL dataset's metadata line (`{ metadata }` without events)
 * - `event`: one chat event (JSONL with one event per line: one trace), or one of Invariant's
 *   other trace entries (an MCP tool list `{ tools }`, a bare tool call)
 * - `block` / `blocks`: one block / an array of blocks, or the collector's `{ blocks }` body
 * - `entry` / `entries`: one `TraceEntry` / an array of them
 */
export type ValueKind =
  | 'trace'
  | 'traces'
  | 'dataset'
  | 'dataset-header'
  | 'event'
  | 'block'
  | 'blocks'
  | 'entry'
  | 'entries';

function isBlockLike(value: Record<string, unknown>): boolean {
  return 'sub_type' in value || 'block_type' in value;
}

function isEntryLike(value: Record<string, unknown>): boolean {
  return isObject(value.call) && isObject(value.result);
}

function isTraceObject(value: Record<string, unknown>): boolean {
  return traceEventKeys.some((key) => Array.isArray(value[key]));
}

/**
 * The key of an evaluation log's runs, when `value` is one: Inspect AI's eval log (`samples`,
 * each `{ id, epoch, messages, scores, ... }`) or tau2-bench's results (`simulations`, each with
 * its `messages`); the list's first run must be a trace object, or the list empty in a log that
 * says what it is (Inspect AI's `eval`, tau2-bench's `info`).
 * @param value - a parsed JSON object
 * @returns `samples`, `simulations`, or undefined
 */
export function runListKey(value: Record<string, unknown>): 'samples' | 'simulations' | undefined {
  for (const key of ['samples', 'simulations'] as const) {
    const list = value[key];
    if (!Array.isArray(list)) continue;
    if (isObject(list[0]) && isTraceObject(list[0])) return key;
    // a log of no run yet (a failed or cancelled eval): its own fields tell it
    if (list.length === 0 && (key === 'samples' ? isObject(value.eval) : isObject(value.info)))
      return key;
  }
  return undefined;
}

/**
 * Tells what a JSON value holds, from its shape alone.
 *
 * @param value - a parsed JSON document or JSONL line
 * @returns its kind, or undefined when it looks like none of the formats
 * @example
 * ```ts
 * classifyValue([{ role: 'user', content: 'hi' }]); // 'trace'
 * classifyValue({ id: 'tb_1', sub_type: 'MESSAGE' }); // 'block'
 * ```
 */
export function classifyValue(value: unknown): ValueKind | undefined {
  if (Array.isArray(value)) {
    const first: unknown = value[0];
    if (first === undefined) return 'trace';
    if (Array.isArray(first)) return 'traces';
    if (!isObject(first)) return undefined;
    if (isBlockLike(first)) return 'blocks';
    if (isEntryLike(first)) return 'entries';
    if (isTraceObject(first)) return 'traces';
    if ('role' in first) return 'trace';
    // an OpenAI Responses API item list may start with a call or reasoning item; a Claude Code
    // session's lines wrap messages (`{ type, message }`) beside lines about the session
    if (hasResponsesItems([first]) || isWrappedMessage(first) || isTranscriptMetaLine(first))
      return 'trace';
    // Invariant's other events: an MCP tool list `{ tools }`, a bare top-level tool call
    if (invariantEntryKind(first) !== undefined) return 'trace';
    // Invariant Explorer's raw event list: the trace's metadata, then its events
    if (isMetadataEvent(first)) {
      const second: unknown = value[1];
      if (
        second === undefined ||
        (isObject(second) && 'role' in second) ||
        invariantEntryKind(second) !== undefined
      )
        return 'trace';
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  if (isBlockLike(value)) return 'block';
  // the collector's bodies (seed 002): a batch `{ blocks }`, a page `{ blocks, next_cursor }`
  if (Array.isArray(value.blocks)) {
    const first: unknown = value.blocks[0];
    if (first === undefined || (isObject(first) && isBlockLike(first))) return 'blocks';
  }
  if (isEntryLike(value)) return 'entry';
  if (Array.isArray(value.traces)) return 'dataset';
  if (isTraceObject(value)) return 'trace';
  // an evaluation log: its runs, one trace each
  if (runListKey(value) !== undefined) return 'traces';
  if ('role' in value) return 'event';
  if (invariantEntryKind(value) !== undefined) return 'event';
  // a JSONL line that is a Responses API item (`function_call`, `function_call_output`, ...),
  // or a line of a Claude Code session file or Agent SDK output (a wrapped message, or a line
  // about the session, which reading leaves out)
  if (hasResponsesItems([value]) || isWrappedMessage(value) || isTranscriptMetaLine(value))
    return 'event';
  if (isObject(value.metadata) || typeof value.name === 'string') return 'dataset-header';
  return undefined;
}

/**
 * The input format a value kind belongs to.
 * @param kind - a {@link ValueKind}
 * @returns the matching {@link InputFormat}
 */
export function formatOfKind(kind: ValueKind): InputFormat {
  switch (kind) {
    case 'block':
    case 'blocks':
      return 'blocks';
    case 'entry':
    case 'entries':
      return 'entries';
    case 'dataset':
    case 'dataset-header':
    case 'traces':
      return 'dataset';
    default:
      return 'events';
  }
}
