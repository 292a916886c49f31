import { createHash } from 'node:crypto';
import { canonicalJson } from '@tracewarden/core';
import { parseChatTrace } from './read-chat-trace.js';
import { traceFieldsOf } from './trace-fields.js';

/**
 * @internal A chat-event trace's id from its content: `tr_` and 26 hex digits of the SHA-256 of
 * its events as read and its other fields (not of the file's text), so that the events
 * `convert --to events` writes of its blocks read back under the same id, whatever their key
 * order and spacing.
 * @param trace - the trace's events, as `parseTrace` gives them
 * @param fields - its fields besides its events (`traceFieldsOf(value, '')`), if any
 * @returns the id
 * @example
 * ```ts
 * contentTraceId(parseTrace(value), traceFieldsOf(value, '')); // 'tr_e37f7c504ce25e0596ee3b1616'
 * ```
 */
export function contentTraceId(trace: readonly unknown[], fields: unknown): string {
  const hash = createHash('sha256')
    .update(canonicalJson({ events: trace, fields: fields ?? {} }) ?? '')
    .digest('hex')
    .slice(0, 26);
  return `tr_${hash}`;
}

/**
 * @internal The id `convert` and `push` give a chat-event trace that names none (a bare event
 * list), read from its JSON value: {@link contentTraceId} of its parsed events and its fields.
 * @param value - the trace as it would be read (a JSON value: an event list or a trace object)
 * @returns the id, or undefined when the value does not parse as a trace
 * @example
 * ```ts
 * contentTraceIdOf([{ role: 'user', content: 'hi' }]); // 'tr_e37f7c504ce25e0596ee3b1616'
 * ```
 */
export function contentTraceIdOf(value: unknown): string | undefined {
  try {
    return contentTraceId(parseChatTrace(value), traceFieldsOf(value, ''));
  } catch {
    return undefined;
  }
}
