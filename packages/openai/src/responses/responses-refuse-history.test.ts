import { parsePolicy } from '@tracewarden/core';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { setup } from '../__fixtures__/setup.js';
import { executeToolCalls } from '../tools/execute-tool-calls.js';

// In 'refuse' mode a response whose calls were all refused is re-sent as its text alone (the
// refusal), right before the next response's items: no function_call_output separates them.
// Each must still be read as the response the trace recorded, never recorded again.

const policy = parsePolicy(`
raise "danger is never allowed" if:
    (call: ToolCall)
    call is tool:danger
`);

describe('Responses API in refuse mode: the re-sent history is recorded once', () => {
  it('a fully refused response followed by another one, and by calls of the next', async () => {
    const { server, client, tracer } = await setup(
      {
        turns: [
          { toolCalls: [{ id: 'call_1', name: 'danger', arguments: { x: 1 } }] },
          { toolCalls: [{ id: 'call_2', name: 'danger', arguments: { x: 2 } }] },
          {
            toolCalls: [
              { id: 'call_3', name: 'lookup', arguments: { q: 'a' } },
              { id: 'call_4', name: 'lookup', arguments: { q: 'b' } },
            ],
          },
          { text: 'Done.' },
        ],
      },
      { policy, onPolicyViolation: 'refuse' },
    );
    await using _ = server;
    const input: ResponseInputItem[] = [{ role: 'user', content: 'go' }];
    for (let turn = 0; turn < 4; turn++) {
      const response = await client.responses.create({ model: 'gpt-4o-mini', input });
      input.push(...(response.output as ResponseInputItem[]));
      if (response.output.some((item) => item.type === 'function_call'))
        input.push(...(await executeToolCalls(response, { lookup: () => 'found' })));
    }
    const assistant = tracer
      .blocks()
      .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
    expect(assistant).toHaveLength(4);
    const calls = tracer
      .blocks()
      .flatMap((block) => (block.sub_type === 'TOOL_CALL' ? [block.payload.call_id] : []));
    expect(calls).toEqual(['call_1', 'call_2', 'call_3', 'call_4']);
    expect(tracer.stitched().orphans).toEqual({ tool_calls: [], tool_results: [] });
  });
});
