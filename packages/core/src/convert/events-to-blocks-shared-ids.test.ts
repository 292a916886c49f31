import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSequentialIds, parseTrace } from '../model/index.js';
import { validateBlocks } from '../validation/index.js';
import { blocksToEvents } from './blocks-to-events.js';
import { eventsToBlocks } from './events-to-blocks.js';

// Servers that number the calls of each answer send the same id for parallel calls and again
// every turn (`call_0`); each output must still land under its own call.

const call = (id: string, name: string) => ({
  id,
  type: 'function',
  function: { name, arguments: { for: name } },
});

function parentNames(trace: Record<string, unknown>[]): string[] {
  const blocks = eventsToBlocks(parseTrace(trace), { ids: createSequentialIds(), startTime: 0 });
  validateBlocks(blocks);
  const names = new Map<string, string>();
  for (const block of blocks) {
    if (block.sub_type === 'TOOL_CALL') names.set(block.id, block.payload.name);
  }
  return blocks
    .filter((block) => block.sub_type === 'TOOL_RESULT')
    .map((block) => names.get(block.parent_block_id ?? '') ?? '?');
}

describe('eventsToBlocks with call ids shared by parallel calls', () => {
  it("puts each output under its own call, in the calls' order", () => {
    const trace = [
      { role: 'user', content: 'Read the bill and pay it.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('call_0', 'read'), call('call_0', 'pay')],
      },
      { role: 'tool', tool_call_id: 'call_0', content: 'read' },
      { role: 'tool', tool_call_id: 'call_0', content: 'pay' },
      { role: 'assistant', content: null, tool_calls: [call('call_0', 'send')] },
      { role: 'tool', tool_call_id: 'call_0', content: 'send' },
    ];
    expect(parentNames(trace)).toEqual(['read', 'pay', 'send']);
    const blocks = eventsToBlocks(parseTrace(trace), { startTime: 0 });
    expect(parseTrace(blocksToEvents(blocks))).toStrictEqual(parseTrace(trace));
  });

  it('answers each call of each turn with its own output (property)', () => {
    const turns = fc.array(
      fc.array(fc.constantFrom('read', 'pay', 'send'), { minLength: 1, maxLength: 3 }),
      {
        minLength: 1,
        maxLength: 4,
      },
    );
    fc.assert(
      fc.property(turns, (names) => {
        const trace: Record<string, unknown>[] = [{ role: 'user', content: 'go' }];
        for (const turn of names) {
          trace.push({
            role: 'assistant',
            content: null,
            tool_calls: turn.map((name) => call('call_0', name)),
          });
          for (const name of turn)
            trace.push({ role: 'tool', tool_call_id: 'call_0', content: name });
        }
        expect(parentNames(trace)).toEqual(names.flat());
        const normal = parseTrace(trace);
        expect(parseTrace(blocksToEvents(eventsToBlocks(normal, { startTime: 0 })))).toStrictEqual(
          normal,
        );
      }),
    );
  });
});
