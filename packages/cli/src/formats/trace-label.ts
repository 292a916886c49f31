import { isObject } from './is-object.js';

/**
 * A report name for a trace: its `metadata.id`, `metadata.trace_id`, `id` or `trace_id` when it
 * has one.
 *
 * @param value - the trace as read
 * @param index - its 0-based position among the file's traces
 * @returns the id, or `#index` when the trace has none
 * @example
 * ```ts
 * traceLabel({ messages: [], metadata: { id: 'run-7' } }, 0); // 'run-7'
 * traceLabel([{ role: 'user', content: 'hi' }], 3); // '#3'
 * ```
 */
export function traceLabel(value: unknown, index: number): string {
  if (isObject(value)) {
    const metadata = value.metadata;
    for (const candidate of [
      isObject(metadata) ? metadata.id : undefined,
      // what `convert --to events` writes for a trace named by its blocks
      isObject(metadata) ? metadata.trace_id : undefined,
      value.id,
      value.trace_id,
    ]) {
      if (typeof candidate === 'string' && candidate !== '') return candidate;
      if (typeof candidate === 'number') return String(candidate);
    }
  }
  return `#${index}`;
}
