import type { Trace } from '@tracewarden/core';
import type { ValueLocation } from './create-unknown-value-tally.js';
import type { Warning } from './format-warning.js';

/** Counts tool outputs whose `tool_call_id` answers no call, and reports each id once. */
export interface OrphanOutputTally {
  /** Looks through one parsed trace; `at` locates an event. */
  add(trace: Trace, at: (event: number) => ValueLocation): void;
  /** One `UNKNOWN_CALL_ID` warning per distinct id, in the order first seen. */
  warnings(): Warning[];
}

/** Distinct ids remembered; outputs with further ids are counted together. */
const maxIds = 100;

/**
 * @internal A tally of tool outputs whose `tool_call_id` matches no tool call of their trace (a
 * typo in the id, most likely). Decision 003 keeps such an output (an output of no call), so the
 * trace stays valid; but `validate` says so, as it says so of an unknown role, rather than pass it
 * in silence. The calls of the whole trace count: an output may come before the call it answers.
 *
 * @returns an empty tally
 * @example
 * ```ts
 * const tally = createOrphanOutputTally();
 * tally.add(parseTrace([{ role: 'tool', tool_call_id: 'call_x', content: 'ok' }]), (event) => ({ file, address: `#0/${event}` }));
 * tally.warnings()[0]?.code; // 'UNKNOWN_CALL_ID'
 * ```
 */
export function createOrphanOutputTally(): OrphanOutputTally {
  const seen = new Map<string, { count: number; at: ValueLocation; calls: string[] }>();
  let more: { count: number; at: ValueLocation } | undefined;
  return {
    add(trace, at) {
      let calls: Set<string> | undefined;
      for (let i = 0; i < trace.length; i++) {
        const event = trace[i];
        if (event?.role !== 'tool') continue;
        const id = (event as { tool_call_id?: unknown }).tool_call_id;
        if (typeof id !== 'string') continue;
        if (calls === undefined) {
          calls = new Set();
          for (const other of trace) {
            const list = (other as { tool_calls?: unknown }).tool_calls;
            if (!Array.isArray(list)) continue;
            for (const call of list as { id?: unknown }[])
              if (typeof call.id === 'string') calls.add(call.id);
          }
        }
        if (calls.has(id)) continue;
        const entry = seen.get(id);
        if (entry !== undefined) entry.count++;
        else if (seen.size < maxIds) seen.set(id, { count: 1, at: at(i), calls: [...calls] });
        else if (more === undefined) more = { count: 1, at: at(i) };
        else more.count++;
      }
    },
    warnings() {
      const warnings: Warning[] = [...seen].map(([id, { count, at, calls }]) => {
        const known =
          calls.length === 0
            ? 'its trace has no tool call'
            : `the calls of its trace: ${calls.slice(0, 5).join(', ')}${calls.length > 5 ? ', ...' : ''}`;
        return {
          code: 'UNKNOWN_CALL_ID' as const,
          value: id,
          count,
          ...at,
          message: `tool_call_id ${JSON.stringify(id)} answers no tool call: ${count === 1 ? '1 tool output, kept as an output of no call' : `${count.toLocaleString('en-US')} tool outputs, each kept as an output of no call`} (decision 003); a typo in the id? ${known}`,
        };
      });
      if (more !== undefined)
        warnings.push({
          code: 'UNKNOWN_CALL_ID',
          value: '',
          count: more.count,
          ...more.at,
          message: `${more.count.toLocaleString('en-US')} more tool output${more.count === 1 ? '' : 's'} with further tool_call_ids that answer no tool call, kept as outputs of no call (decision 003)`,
        });
      return warnings;
    },
  };
}
