import { createTracer, guard, PolicyViolationError, parsePolicy } from '@tracewarden/core';
import { describe, expect, it } from 'vitest';
import { setup } from '../__fixtures__/setup.js';
import { executeToolCalls } from '../tools/execute-tool-calls.js';

const policy = parsePolicy(`
raise "danger is never allowed" if:
    (call: ToolCall)
    call is tool:danger
`);

describe('Responses API stream with a policy: nothing of a call passes before the verdict', () => {
  it("'throw': the stream fails before any event of the blocked call reaches the caller", async () => {
    const { server, client } = await setup(
      { turns: [{ toolCalls: [{ id: 'call_d', name: 'danger', arguments: { x: 1 } }] }] },
      { policy },
    );
    await using _ = server;
    const seen: string[] = [];
    let failure: unknown;
    try {
      const stream = await client.responses.create({
        model: 'gpt-4o-mini',
        input: 'go',
        stream: true,
      });
      for await (const event of stream) seen.push(event.type);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(PolicyViolationError);
    expect(seen.filter((type) => type.includes('function_call'))).toEqual([]);
    expect(
      seen.filter(
        (type) => type === 'response.output_item.added' || type === 'response.output_item.done',
      ),
    ).toEqual([]);
  });

  it("'refuse': every event of the refused call is dropped, the text events are kept", async () => {
    const { server, client } = await setup(
      {
        turns: [
          { text: 'Let me.', toolCalls: [{ id: 'call_d', name: 'danger', arguments: { x: 1 } }] },
        ],
      },
      { policy, onPolicyViolation: 'refuse' },
    );
    await using _ = server;
    const seen: { type: string; item?: { type?: string } }[] = [];
    const stream = await client.responses.create({
      model: 'gpt-4o-mini',
      input: 'go',
      stream: true,
    });
    for await (const event of stream) seen.push(event as never);
    expect(seen.some((event) => event.type.startsWith('response.function_call_arguments'))).toBe(
      false,
    );
    expect(seen.some((event) => event.item?.type === 'function_call')).toBe(false);
    expect(seen.some((event) => event.type === 'response.output_text.delta')).toBe(true);
    // the stream still ends with the (fixed) final snapshot an agent loop continues from
    expect(seen.at(-1)?.type).toBe('response.completed');
  });

  it("'refuse': an allowed call next to a refused one arrives whole, and response.completed ends the stream", async () => {
    const { server, client } = await setup(
      {
        turns: [
          {
            toolCalls: [
              { id: 'call_ok', name: 'lookup', arguments: { q: 'x' } },
              { id: 'call_d', name: 'danger', arguments: { x: 1 } },
            ],
          },
        ],
      },
      { policy, onPolicyViolation: 'refuse' },
    );
    await using _ = server;
    const seen: { type: string; item?: { type?: string; call_id?: string }; response?: unknown }[] =
      [];
    const stream = await client.responses.create({
      model: 'gpt-4o-mini',
      input: 'go',
      stream: true,
    });
    for await (const event of stream) seen.push(event as never);
    const calls = seen.filter((event) => event.item?.type === 'function_call');
    expect(calls.map((event) => [event.type, event.item?.call_id])).toEqual([
      ['response.output_item.added', 'call_ok'],
      ['response.output_item.done', 'call_ok'],
    ]);
    expect(seen.some((event) => event.type === 'response.function_call_arguments.done')).toBe(true);
    const last = seen.at(-1) as { type: string; response: { output: { call_id?: string }[] } };
    expect(last.type).toBe('response.completed');
    expect(last.response.output.map((item) => item.call_id)).toContain('call_ok');
    expect(last.response.output.map((item) => item.call_id)).not.toContain('call_d');
  });
});

describe("Responses API in 'refuse' mode, not streamed: the next turn re-sends the response", () => {
  it('records the refusal once: the re-sent output (refusal text, kept calls) is the recorded response', async () => {
    const { server, client, tracer } = await setup(
      {
        turns: [
          {
            toolCalls: [
              { id: 'call_ok', name: 'lookup', arguments: { q: 'x' } },
              { id: 'call_d', name: 'danger', arguments: { x: 1 } },
            ],
          },
          { text: 'done' },
        ],
      },
      { policy, onPolicyViolation: 'refuse' },
    );
    await using _ = server;
    const input = [{ role: 'user' as const, content: 'go' }];
    const first = await client.responses.create({ model: 'gpt-4o-mini', input });
    const outputs = await executeToolCalls(first, { lookup: () => 'found' });
    await client.responses.create({
      model: 'gpt-4o-mini',
      input: [...input, ...(first.output as never[]), ...(outputs as never[])],
    });
    const blocks = tracer.blocks();
    expect(blocks.map((block) => block.sub_type)).toEqual([
      'MESSAGE',
      'MESSAGE',
      'TOOL_CALL',
      'TOOL_CALL',
      'TOOL_RESULT',
      'TOOL_RESULT',
      'MESSAGE',
    ]);
    const assistants = blocks.filter(
      (block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant',
    );
    expect(assistants.map((block) => block.payload.content)).toEqual([null, 'done']);
  });
});

describe('executeToolCalls with a guarded tool and no trace found for the call', () => {
  it("records into the guard's own tracer (its option), as before", async () => {
    const own = createTracer();
    const lookup = guard((args: Record<string, unknown>) => `found ${String(args.q)}`, {
      name: 'lookup',
      tracer: own,
    });
    const messages = await executeToolCalls(
      {
        tool_calls: [
          { id: 'call_z', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
        ],
      },
      { lookup: lookup as never },
    );
    expect(messages).toEqual([{ role: 'tool', tool_call_id: 'call_z', content: 'found x' }]);
    expect(own.findToolCall('call_z')).toBeDefined();
  });
});
