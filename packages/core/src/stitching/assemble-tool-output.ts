import type { ToolResultBlock } from '../model/index.js';

/**
 * A tool call's full output from its results: the first result carrying `output` wins;
 * otherwise the `delta` pieces in the given order, concatenated when they are all strings and
 * collected in an array when not.
 *
 * @param results - the call's TOOL_RESULT blocks, already ordered by `seq`, `created_at`, `id`
 * @returns the output, or `undefined` when no result has an `output` or a `delta`
 * @example
 * ```ts
 * assembleToolOutput([{ ...r, payload: { call_id: 'c', delta: 'Hel', seq: 0 } },
 *                     { ...r, payload: { call_id: 'c', delta: 'lo', seq: 1 } }]); // 'Hello'
 * ```
 */
export function assembleToolOutput(results: readonly ToolResultBlock[]): unknown {
  let deltas: unknown[] | undefined;
  let allStrings = true;
  for (let i = 0; i < results.length; i++) {
    const payload: unknown = results[i]?.payload;
    if (typeof payload !== 'object' || payload === null) continue;
    const { output, delta } = payload as { output?: unknown; delta?: unknown };
    if (output !== undefined) return output;
    if (delta === undefined) continue;
    if (deltas === undefined) deltas = [];
    deltas.push(delta);
    if (typeof delta !== 'string') allStrings = false;
  }
  if (deltas === undefined) return undefined;
  return allStrings ? deltas.join('') : deltas;
}
