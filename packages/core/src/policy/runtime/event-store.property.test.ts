import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventsToBlocks } from '../../convert/events-to-blocks.js';
import { parseTrace } from '../../model/parse-trace.js';
import { EventStore } from './event-store.js';

/**
 * A policy links each tool output to the call the CLI's view and the converters put it under
 * (`parseTrace`, then `eventsToBlocks`): decision 002's order rule for outputs without an id
 * (absent, `null`, or Gemini's `""`, decision 030), and parallel calls sharing an id answered in
 * their order. Before, the policy engine took the latest call with the id (or the most recent
 * call), so a rule on `out is tool:get_inbox` read another tool's output.
 */

type Event = Record<string, unknown>;

/** Where each tool output lands in the blocks: [event index, call index] of its call. */
function linkedByConverters(trace: Event[]): Map<number, [number, number] | undefined> {
  const blocks = eventsToBlocks(parseTrace(trace), { traceId: 'tr', startTime: 0 });
  const callAt = new Map<string, [number, number]>();
  const linked = new Map<number, [number, number] | undefined>();
  let event = -1;
  let sub = 0;
  for (const block of blocks) {
    if (block.sub_type === 'TOOL_CALL') {
      callAt.set(block.id, [event, sub++]);
      continue;
    }
    if (block.sub_type === 'THINK') continue;
    event++;
    sub = 0;
    const role = trace[event]?.role;
    if (role !== 'tool' && role !== 'function') continue;
    linked.set(
      event,
      block.sub_type === 'TOOL_RESULT' ? callAt.get(block.parent_block_id ?? '') : undefined,
    );
  }
  return linked;
}

function linkedByPolicy(trace: Event[]): Map<number, [number, number] | undefined> {
  const store = new EventStore();
  for (const event of trace) store.append(event);
  return linksOf(store);
}

/** Each tool output's call in a store: [event index, call index], by the output's event index. */
function linksOf(store: EventStore): Map<number, [number, number] | undefined> {
  const linked = new Map<number, [number, number] | undefined>();
  for (let p = 0; p < store.size; p++) {
    const event = store.event(p);
    if (event.kind !== 'ToolOutput') continue;
    const call = event.callPosition < 0 ? undefined : store.event(event.callPosition);
    linked.set(event.index, call === undefined ? undefined : [call.index, call.sub]);
  }
  return linked;
}

const callIds = fc.constantFrom<unknown>(undefined, '', 'call_0', 'call_1', 7, 'unique');
const outputIds = fc.constantFrom<unknown>(undefined, '', null, 'call_0', 'call_1', 7, 'nope');

/** A conversation: text turns, assistant turns with 1-3 calls, and 0-4 tool outputs after. */
const traces = fc
  .array(
    fc.oneof(
      fc.constant<Event[]>([{ role: 'user', content: 'go on' }]),
      // OpenAI's legacy function calling: a `function_call`, answered by `function` messages
      fc.nat(2).map((answers): Event[] => [
        { role: 'assistant', content: null, function_call: { name: 'legacy', arguments: '{}' } },
        ...Array.from({ length: answers }, () => ({
          role: 'function',
          name: 'legacy',
          content: 'y',
        })),
      ]),
      fc
        .tuple(
          fc.array(callIds, { minLength: 1, maxLength: 3 }),
          fc.array(outputIds, { maxLength: 4 }),
        )
        .map(([ids, outputs]) => {
          const calls = ids.map((id, j) => ({
            ...(id === undefined ? {} : { id }),
            type: 'function',
            function: { name: `tool_${j}`, arguments: '{}' },
          }));
          const events: Event[] = [{ role: 'assistant', content: null, tool_calls: calls }];
          for (const id of outputs)
            events.push({
              role: 'tool',
              ...(id === undefined ? {} : { tool_call_id: id }),
              content: 'x',
            });
          return events;
        }),
    ),
    { maxLength: 8 },
  )
  .map((turns) => {
    // unique ids stay unique, and no output names a call that only comes later
    let n = 0;
    const trace: Event[] = [{ role: 'user', content: 'start' }];
    const seen = new Set<unknown>();
    for (const turn of turns)
      for (const event of turn) {
        const calls = event.tool_calls as Event[] | undefined;
        if (calls !== undefined)
          for (const call of calls) {
            if (call.id === 'unique') call.id = `u_${n++}`;
            if (call.id !== undefined) seen.add(call.id);
          }
        const id = event.tool_call_id;
        if (
          event.role === 'tool' &&
          typeof id !== 'undefined' &&
          id !== '' &&
          id !== null &&
          id !== 'nope' &&
          !seen.has(id)
        )
          event.tool_call_id = 'nope';
        trace.push(event);
      }
    return trace;
  });

describe('policy events: tool outputs link to the calls the converters link them to', () => {
  it('links every output as parseTrace then eventsToBlocks do, on random conversations', () => {
    fc.assert(
      fc.property(traces, (trace) => {
        expect(linkedByPolicy(trace)).toEqual(linkedByConverters(trace));
      }),
      { numRuns: 400 },
    );
  });

  it('keeps the links after a rolled-back proposal, and after outputs rolled back', () => {
    fc.assert(
      fc.property(traces, fc.nat(), (trace, cut) => {
        const at = cut % trace.length;
        const store = new EventStore();
        for (const event of trace.slice(0, at)) store.append(event);
        const mark = store.mark();
        for (const event of trace.slice(at)) store.append(event);
        store.appendProposedCall({ function: { name: 'send_email', arguments: {} } });
        store.rollback(mark);
        for (const event of trace.slice(at)) store.append(event);
        expect(linksOf(store)).toEqual(linkedByConverters(trace));
      }),
      { numRuns: 200 },
    );
  });
});
