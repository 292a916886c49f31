import { describe, expect, it } from 'vitest';
import { argumentStrings, callArgumentsOf, callArgumentsText } from './call-arguments.js';
import { EventStore } from './event-store.js';

const storeOf = (trace: Record<string, unknown>[]): EventStore => {
  const store = new EventStore();
  for (const event of trace) store.append(event);
  return store;
};
const outputs = (store: EventStore) =>
  store.candidates('ToolOutput').map((position) => store.probe(position));

describe('callArgumentsOf', () => {
  // review 18, finding 8: of two parallel calls of one tool, each output gets its own call's
  // arguments (found by id, not by the nearest call of the same name)
  it('gives each output of parallel calls of one tool its own call’s arguments', () => {
    const store = storeOf([
      { role: 'user', content: 'Compare a.txt and b.txt.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'a',
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"a.txt"}' },
          },
          {
            id: 'b',
            type: 'function',
            function: { name: 'read_file', arguments: { path: 'b.txt' } },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'b', content: 'B' },
    ]);
    const [first, second] = outputs(store);
    expect(callArgumentsOf(store, first!)).toEqual({ path: 'a.txt' });
    expect(callArgumentsOf(store, second!)).toEqual({ path: 'b.txt' });
    expect(callArgumentsText(store, second!)).toBe('{"path":"b.txt"}');
  });

  it('falls back to the nearest call of the tool for an output without an id', () => {
    const store = storeOf([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ type: 'function', function: { name: 'list_files', arguments: 'not json' } }],
      },
      { role: 'tool', name: 'list_files', content: 'x.txt' },
    ]);
    const [output] = outputs(store);
    expect(callArgumentsText(store, output!)).toBe('not json');
    expect(argumentStrings(callArgumentsOf(store, output!))).toEqual(['not json']);
  });
});
