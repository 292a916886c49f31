/**
 * The Responses API's hosted tools (web search, file search, code interpreter, image generation,
 * remote MCP servers, a shell in an OpenAI container): OpenAI runs them before the response
 * arrives, so no policy can hold them, but the trace must show what ran. Through the real client
 * over HTTP, streamed and not: each is a TOOL_CALL under the answer (`provider_executed: true`)
 * with its result under it, the response reaches the caller unchanged, and the next turn (which
 * re-sends the items) records no second answer.
 */
import { type Block, parsePolicy } from '@tracewarden/core';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { expectWholeTrace, responsesTurn, setupForTest } from '../__fixtures__/setup.js';

const webSearch = {
  type: 'web_search_call',
  id: 'ws_1',
  status: 'completed',
  action: { type: 'search', query: 'weather in Paris' },
};
const mcpCall = {
  type: 'mcp_call',
  id: 'mcp_1',
  server_label: 'crm',
  name: 'lookup_customer',
  arguments: '{"email":"ana@example.com"}',
  output: '{"name":"Ana"}',
  error: null,
};
const mcpFailure = {
  type: 'mcp_call',
  id: 'mcp_2',
  server_label: 'crm',
  name: 'delete_customer',
  arguments: '{"id":7}',
  output: null,
  error: 'permission denied',
};
const image = {
  type: 'image_generation_call',
  id: 'ig_1',
  status: 'completed',
  result: 'iVBORw0KGgo'.repeat(1000),
  revised_prompt: 'a cat',
};
const hostedShell = {
  type: 'shell_call',
  id: 'sh_1',
  call_id: 'call_hosted',
  status: 'completed',
  action: { commands: ['ls'], timeout_ms: null, max_output_length: null },
  environment: { type: 'container_reference', container_id: 'cntr_1' },
};
const hostedShellOutput = {
  type: 'shell_call_output',
  id: 'sho_1',
  call_id: 'call_hosted',
  status: 'completed',
  max_output_length: null,
  output: [{ stdout: 'a.txt', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
};

const hostedItems = [webSearch, mcpCall, mcpFailure, image, hostedShell, hostedShellOutput];

/** Each recorded TOOL_CALL with its results: what ran, and what it gave. */
function calls(blocks: readonly Block[]) {
  return blocks
    .filter((block) => block.sub_type === 'TOOL_CALL')
    .map((call) => ({
      call_id: call.payload.call_id,
      name: call.payload.name,
      arguments: call.payload.arguments,
      provider_executed: call.metadata.provider_executed,
      parent: blocks.find((block) => block.id === call.parent_block_id)?.payload.role,
      results: blocks
        .filter((block) => block.sub_type === 'TOOL_RESULT' && block.parent_block_id === call.id)
        .map((result) => [result.metadata.status, result.payload.output]),
    }));
}

describe.each([false, true])('hosted tool calls (stream %s)', (stream) => {
  it('are recorded under the answer with their results; the response is unchanged', async () => {
    const { tracer, client } = await setupForTest(
      { turns: [{ hostedItems, text: 'Done.' }, { text: 'You are welcome.' }], chunkSize: 4 },
      {
        // a policy that names them cannot hold them: they ran before the response came
        policy: parsePolicy(
          'raise "no search" if:\n    (call: ToolCall)\n    call is tool:web_search',
        ),
        onPolicyViolation: 'refuse',
      },
    );
    const input: ResponseInputItem[] = [{ role: 'user', content: 'weather, then the customer' }];
    const { response } = await responsesTurn(client, input, stream);
    expect(response.output.map((item) => item.type)).toEqual([
      'web_search_call',
      'mcp_call',
      'mcp_call',
      'image_generation_call',
      'shell_call',
      'shell_call_output',
      'message',
    ]);
    const message = response.output.at(-1) as { content?: { text?: string }[] };
    expect(message.content?.[0]?.text).toBe('Done.');
    expect(calls(tracer.blocks())).toEqual([
      {
        call_id: 'ws_1',
        name: 'web_search',
        arguments: { type: 'search', query: 'weather in Paris' },
        provider_executed: true,
        parent: 'assistant',
        results: [['success', { status: 'completed' }]],
      },
      {
        call_id: 'mcp_1',
        name: 'lookup_customer',
        arguments: { email: 'ana@example.com' },
        provider_executed: true,
        parent: 'assistant',
        results: [['success', '{"name":"Ana"}']],
      },
      {
        call_id: 'mcp_2',
        name: 'delete_customer',
        arguments: { id: 7 },
        provider_executed: true,
        parent: 'assistant',
        results: [['failure', 'permission denied']],
      },
      {
        call_id: 'ig_1',
        name: 'image_generation',
        arguments: {},
        provider_executed: true,
        parent: 'assistant',
        results: [['success', { status: 'completed', revised_prompt: 'a cat' }]],
      },
      {
        call_id: 'call_hosted',
        name: 'shell',
        arguments: hostedShell.action,
        provider_executed: true,
        parent: 'assistant',
        results: [['success', hostedShellOutput.output]],
      },
    ]);
    expectWholeTrace(tracer);

    // the next turn re-sends the items: the same answer, not a second one
    await responsesTurn(
      client,
      [
        ...input,
        ...(response.output as unknown as ResponseInputItem[]),
        { role: 'user', content: 'thanks' },
      ],
      stream,
    );
    const answers = tracer
      .blocks()
      .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
    expect(answers).toHaveLength(2);
    expect(calls(tracer.blocks())).toHaveLength(5);
    expectWholeTrace(tracer);
  });
});
