/**
 * The Responses API's built-in tools the developer's code carries out (`shell_call`,
 * `local_shell_call`, `apply_patch_call`, `computer_call`), through the real client over HTTP:
 * recorded as TOOL_CALLs named `shell`, `local_shell`, `apply_patch`, `computer` with the action
 * as arguments, checked by the policy, removed in refuse mode, and their output items recorded
 * as TOOL_RESULTs under the call; streamed and not.
 */
import {
  type Block,
  PolicyViolationError,
  parsePolicy,
  type Tracer,
  validateBlocks,
} from '@tracewarden/core';
import type { ScriptedToolCall, ScriptedTurn } from '@tracewarden/testing';
import type {
  Response,
  ResponseInputItem,
  ResponseStreamEvent,
  Tool,
} from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import {
  expectWholeTrace,
  responsesTurn,
  resultUnder,
  setupForTest,
  toolCall,
} from '../__fixtures__/setup.js';
import { executeToolCalls } from '../tools/execute-tool-calls.js';
import type { WrapOpenAIOptions } from './wrap-openai.js';

const start = (turns: ScriptedTurn[], options: WrapOpenAIOptions = {}) =>
  setupForTest({ turns, chunkSize: 4 }, options);

const noRm = parsePolicy(`
raise "no rm" if:
    (call: ToolCall)
    call is tool:shell
    "rm -rf" in call.function.arguments.commands[0]
`);

const tools: Tool[] = [
  { type: 'shell' },
  { type: 'local_shell' },
  { type: 'apply_patch' },
  { type: 'computer_use_preview', display_width: 800, display_height: 600, environment: 'linux' },
  { type: 'function', name: 'lookup', parameters: {}, strict: false },
];

const shellAction = {
  commands: ['ls -la "src"', 'pwd'],
  timeout_ms: 1000,
  max_output_length: null,
};
const localShellAction = {
  type: 'exec',
  command: ['cat', 'README.md'],
  env: { LANG: 'C' },
  working_directory: '/repo',
};
const patchOperation = { type: 'update_file', path: 'src/a.ts', diff: '@@\n-a\n+b 🎉' };
const clickAction = { type: 'click', button: 'left', x: 10, y: 20 };

const shellCall: ScriptedToolCall = { type: 'shell', id: 'call_sh', arguments: shellAction };
const rmCall: ScriptedToolCall = {
  type: 'shell',
  id: 'call_rm',
  arguments: { commands: ['rm -rf /'], timeout_ms: null, max_output_length: null },
};
const localShellCall: ScriptedToolCall = {
  type: 'local_shell',
  id: 'call_lsh',
  arguments: localShellAction,
};
const patchCall: ScriptedToolCall = {
  type: 'apply_patch',
  id: 'call_ap',
  arguments: patchOperation,
};
const clickCall: ScriptedToolCall = { type: 'computer', id: 'call_cu', arguments: clickAction };
const lookupCall: ScriptedToolCall = { id: 'call_lookup', name: 'lookup', arguments: { q: 'x' } };

const shellOutput = [
  { stdout: 'a.ts\n', stderr: '', outcome: { type: 'exit' as const, exit_code: 0 } },
];
const screenshot = {
  type: 'computer_screenshot' as const,
  image_url: 'data:image/png;base64,AAAA',
};

/** The output items the developer's code sends back for the four built-in calls. */
const builtInOutputs: ResponseInputItem[] = [
  { type: 'shell_call_output', call_id: 'call_sh', output: shellOutput, max_output_length: null },
  { type: 'local_shell_call_output', id: 'call_lsh', output: '{"stdout":"# readme"}' },
  { type: 'apply_patch_call_output', call_id: 'call_ap', status: 'failed', output: 'no such file' },
  { type: 'computer_call_output', call_id: 'call_cu', output: screenshot },
];

/** What the caller of the Responses API saw: the response, and every event when streamed. */

function assistantMessages(tracer: Tracer): Block[] {
  return tracer
    .blocks()
    .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
}

/** The text of a response's message items (a raw stream's snapshot has no `output_text`). */
function textOf(response: Response): string {
  return response.output
    .flatMap((item) =>
      item.type === 'message'
        ? item.content.map((part) => (part.type === 'output_text' ? part.text : ''))
        : [],
    )
    .join('');
}

for (const stream of [false, true]) {
  const mode = stream ? 'streamed' : 'not streamed';

  describe(`built-in tool calls the developer runs, Responses API (${mode})`, () => {
    it('records each call under the name of its offered tool, with its action, and each output item as its TOOL_RESULT', async () => {
      const { tracer, client, server } = await start([
        { text: 'Working.', toolCalls: [shellCall, localShellCall, patchCall, clickCall] },
        { text: 'Done.' },
      ]);
      const input: ResponseInputItem[] = [{ role: 'user', content: 'fix it' }];
      const { response } = await responsesTurn(client, input, stream, tools);
      expect(response.output.map((item) => item.type)).toEqual([
        'message',
        'shell_call',
        'local_shell_call',
        'apply_patch_call',
        'computer_call',
      ]);
      expect(toolCall(tracer, 'call_sh')?.payload).toEqual({
        call_id: 'call_sh',
        name: 'shell',
        arguments: shellAction,
      });
      expect(toolCall(tracer, 'call_lsh')?.payload).toEqual({
        call_id: 'call_lsh',
        name: 'local_shell',
        arguments: localShellAction,
      });
      expect(toolCall(tracer, 'call_ap')?.payload).toEqual({
        call_id: 'call_ap',
        name: 'apply_patch',
        arguments: patchOperation,
      });
      expect(toolCall(tracer, 'call_cu')?.payload).toEqual({
        call_id: 'call_cu',
        name: 'computer',
        arguments: clickAction,
      });
      // the offered tools read as the calls do
      expect(assistantMessages(tracer)[0]?.metadata.tools).toEqual([
        'shell',
        'local_shell',
        'apply_patch',
        'computer',
        'lookup',
      ]);

      input.push(...(response.output as ResponseInputItem[]), ...builtInOutputs);
      await responsesTurn(client, input, stream, tools);
      expect(server.requests).toHaveLength(2);
      expect(resultUnder(tracer, 'call_sh')?.payload).toEqual({
        call_id: 'call_sh',
        output: JSON.stringify(shellOutput),
      });
      expect(resultUnder(tracer, 'call_lsh')?.payload).toEqual({
        call_id: 'call_lsh',
        output: '{"stdout":"# readme"}',
      });
      const patched = resultUnder(tracer, 'call_ap');
      expect(patched?.payload).toEqual({ call_id: 'call_ap', output: 'no such file' });
      expect(patched?.metadata).toMatchObject({ status: 'failure' });
      expect(resultUnder(tracer, 'call_cu')?.payload).toEqual({
        call_id: 'call_cu',
        output: JSON.stringify(screenshot),
      });
      // the re-sent items are the recorded response: its message and calls are not recorded again
      expect(assistantMessages(tracer)).toHaveLength(2);
      expect(tracer.blocks().filter((block) => block.sub_type === 'TOOL_CALL')).toHaveLength(4);
      expectWholeTrace(tracer);
    });

    it("'throw': the policy reads the shell call's commands and rejects it before the caller sees any of it", async () => {
      const { tracer, client } = await start([{ toolCalls: [rmCall] }], { policy: noRm });
      const seen: ResponseStreamEvent[] = [];
      const thrown = await (async () => {
        if (!stream)
          return client.responses.create({ model: 'gpt-4o-mini', input: 'clean up', tools });
        const sse = await client.responses.create({
          model: 'gpt-4o-mini',
          input: 'clean up',
          tools,
          stream: true,
        });
        for await (const event of sse) seen.push(event);
      })().catch((error: unknown) => error);
      expect(PolicyViolationError.isInstance(thrown)).toBe(true);
      expect((thrown as PolicyViolationError).code).toBe('POLICY_VIOLATION');
      expect(seen.some((event) => event.type.startsWith('response.shell_call'))).toBe(false);
      expect(seen.some((event) => event.type.startsWith('response.output_item'))).toBe(false);
      expect(toolCall(tracer, 'call_rm')?.metadata).toMatchObject({
        policy: 'block',
        violations: [{ message: 'no rm', action: 'block' }],
      });
      expect(validateBlocks(tracer.blocks()).ok).toBe(true);
    });

    it("'refuse': the caller never sees the refused shell call and reads the refusal; allowed calls stay", async () => {
      const { tracer, client, server } = await start(
        [{ toolCalls: [rmCall, patchCall, lookupCall] }, { text: 'I will not delete it.' }],
        { policy: noRm, onPolicyViolation: 'refuse' },
      );
      const input: ResponseInputItem[] = [{ role: 'user', content: 'clean up' }];
      const { response, events } = await responsesTurn(client, input, stream, tools);
      expect(response.output.map((item) => item.type)).toEqual([
        'message',
        'apply_patch_call',
        'function_call',
      ]);
      expect(textOf(response)).toMatch(/^Tool call shell was blocked by policy: no rm/);
      expect(events.some((event) => event.type.startsWith('response.shell_call'))).toBe(false);
      expect(JSON.stringify(events)).not.toContain('call_rm');
      expect(JSON.stringify(events)).not.toContain('rm -rf');
      if (stream) {
        expect(events.at(-1)?.type).toBe('response.completed');
        // the allowed built-in call is delivered whole
        expect(events).toContainEqual(
          expect.objectContaining({
            type: 'response.output_item.done',
            item: expect.objectContaining({ type: 'apply_patch_call', call_id: 'call_ap' }),
          }),
        );
      }
      // the developer runs the allowed calls: executeToolCalls only the function
      const answers = await executeToolCalls(response, { lookup: () => 'found' });
      expect(answers).toEqual([
        { type: 'function_call_output', call_id: 'call_lookup', output: 'found' },
      ]);
      input.push(...(response.output as ResponseInputItem[]), ...answers, {
        type: 'apply_patch_call_output',
        call_id: 'call_ap',
        status: 'completed',
        output: 'patched',
      });
      await responsesTurn(client, input, stream, tools);
      expect(JSON.stringify(server.requests[1]?.body)).toContain('blocked by policy');
      expect(resultUnder(tracer, 'call_rm')?.metadata).toMatchObject({ refused: true });
      expect(resultUnder(tracer, 'call_ap')?.payload).toEqual({
        call_id: 'call_ap',
        output: 'patched',
      });
      expect(resultUnder(tracer, 'call_ap')?.metadata).toMatchObject({ status: 'success' });
      expect(assistantMessages(tracer)).toHaveLength(2);
      expectWholeTrace(tracer);
    });

    it('executeToolCalls leaves built-in calls to the developer, even with a tool of their name', async () => {
      const { tracer, client } = await start([{ toolCalls: [shellCall, lookupCall] }]);
      const { response } = await responsesTurn(
        client,
        [{ role: 'user', content: 'x' }],
        stream,
        tools,
      );
      const ran: unknown[] = [];
      const answers = await executeToolCalls(response, {
        shell: (args: unknown) => ran.push(args),
        lookup: () => 'found',
      });
      expect(ran).toEqual([]);
      expect(answers).toEqual([
        { type: 'function_call_output', call_id: 'call_lookup', output: 'found' },
      ]);
      expect(toolCall(tracer, 'call_sh')?.payload.name).toBe('shell');
      expect(resultUnder(tracer, 'call_sh')).toBeUndefined();
    });
  });
}

describe('built-in tool calls cut short', () => {
  it('a Responses stream dropped mid-commands records the shell call as partial', async () => {
    const { tracer, client } = await start([
      { toolCalls: [shellCall], fault: { type: 'drop-mid-stream', afterChunks: 5 } },
    ]);
    const thrown = await responsesTurn(client, [{ role: 'user', content: 'x' }], true, tools).catch(
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(Error);
    const call = toolCall(tracer, 'call_sh');
    expect(call?.payload.name).toBe('shell');
    expect(call?.metadata.partial).toBe(true);
    expect(validateBlocks(tracer.blocks()).ok).toBe(true);
  });
});
