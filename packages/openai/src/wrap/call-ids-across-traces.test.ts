import { createTracer, type Tracer, validateBlocks } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { executeToolCalls, wrapOpenAI } from '../index.js';

const results = (tracer: Tracer) =>
  tracer
    .blocks()
    .filter((block) => block.sub_type === 'TOOL_RESULT')
    .map((block) => [block.payload.call_id, block.payload.output]);

/**
 * The answer of a client wrapped to record into `tracer`, as the SDK's stream helper builds it:
 * an object the wrapper never saw, so `executeToolCalls` finds the trace by the call.
 */
async function streamedMessage(url: string, tracer: Tracer, content: string) {
  const client = wrapOpenAI(new OpenAI({ baseURL: url, apiKey: 'test' }), {
    tracer,
    pricing: false,
  });
  const completion = await client.chat.completions
    .stream({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] })
    .finalChatCompletion();
  return completion.choices[0]?.message as never;
}

describe('one call id in two conversations (local servers number calls per response: call_0)', () => {
  it("each tool result lands in the trace that recorded its call, never in the other user's", async () => {
    await using server = await startScriptedServer({
      turns: [
        { toolCalls: [{ name: 'lookup', arguments: { user: 'alice' }, id: 'call_0' }] },
        { toolCalls: [{ name: 'lookup', arguments: { user: 'bob' }, id: 'call_0' }] },
      ],
    });
    const alice = createTracer();
    const bob = createTracer();
    const forAlice = await streamedMessage(server.url, alice, 'alice');
    const forBob = await streamedMessage(server.url, bob, 'bob');
    const lookup = ({ user }: { user: string }) => `secret of ${user}`;
    await executeToolCalls(forAlice, { lookup });
    await executeToolCalls(forBob, { lookup });
    expect(results(alice)).toEqual([['call_0', 'secret of alice']]);
    expect(results(bob)).toEqual([['call_0', 'secret of bob']]);
    for (const tracer of [alice, bob]) {
      expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
      expect(tracer.stitched().orphans).toEqual({ tool_calls: [], tool_results: [] });
    }
  });

  it('the very same call waiting in two conversations is filed in neither, and said once', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    await using server = await startScriptedServer({
      turns: [
        { toolCalls: [{ name: 'get_inbox', arguments: {}, id: 'call_9' }] },
        { toolCalls: [{ name: 'get_inbox', arguments: {}, id: 'call_9' }] },
      ],
    });
    const [alice, bob] = [createTracer(), createTracer()];
    const forAlice = await streamedMessage(server.url, alice, 'inbox');
    await streamedMessage(server.url, bob, 'inbox');
    await executeToolCalls(forAlice, { get_inbox: () => "alice's mail" });
    expect(results(alice)).toEqual([]);
    expect(results(bob)).toEqual([]);
    expect(
      warn.mock.calls.filter(
        ([, options]) => (options as { code?: string })?.code === 'TRACEWARDEN_AMBIGUOUS_CALL_ID',
      ),
    ).toHaveLength(1);
    // named, it lands where it belongs
    await executeToolCalls(forAlice, { get_inbox: () => "alice's mail" }, { tracer: alice });
    expect(results(alice)).toEqual([['call_9', "alice's mail"]]);
    warn.mockRestore();
  });

  it.each([
    ['empty', ''],
    ['not JSON', 'not json'],
  ])(
    'a call whose arguments are %s (zero-argument tools of local servers) finds its trace too',
    async (_label, args) => {
      await using server = await startScriptedServer({
        turns: [{ toolCalls: [{ name: 'get_inbox', arguments: args, id: `call_${args.length}` }] }],
      });
      const tracer = createTracer();
      const message = await streamedMessage(server.url, tracer, 'inbox');
      await executeToolCalls(message, { get_inbox: () => 'mail' });
      expect(results(tracer)).toHaveLength(1);
    },
  );
});
