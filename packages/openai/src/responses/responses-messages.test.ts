import type { Response } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import {
  responsesInputToNeutral,
  responsesResponse,
  responsesToolNames,
} from './responses-messages.js';

const hostedShell = {
  id: 'sh_1',
  type: 'shell_call',
  call_id: 'call_hosted',
  status: 'completed',
  action: { commands: ['ls'], timeout_ms: null, max_output_length: null },
  environment: { type: 'container_reference', container_id: 'cntr_1' },
};
const hostedOutput = {
  id: 'sho_1',
  type: 'shell_call_output',
  call_id: 'call_hosted',
  status: 'completed',
  max_output_length: null,
  output: [{ stdout: 'a', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
};

describe('built-in calls in the Responses-API shapes', () => {
  it('a shell OpenAI hosts ran its call already: neither the call nor its output is a tool call or result', () => {
    const response = {
      id: 'resp_1',
      model: 'm',
      status: 'completed',
      output: [
        hostedShell,
        hostedOutput,
        { ...hostedShell, call_id: 'call_local', environment: null },
      ],
    } as unknown as Response;
    expect(responsesResponse(response, null).toolCalls).toEqual([
      { id: 'call_local', name: 'shell', arguments: hostedShell.action },
    ]);
    expect(responsesInputToNeutral([hostedShell, hostedOutput], undefined)).toEqual([]);
  });

  it('links a local_shell_call_output by call_id or id, and a batched computer call is { actions }', () => {
    const actions = [{ type: 'screenshot' }, { type: 'click', button: 'left', x: 1, y: 2 }];
    const messages = responsesInputToNeutral(
      [
        { type: 'computer_call', call_id: 'call_cu', status: 'completed', actions },
        { type: 'local_shell_call_output', id: 'call_a', output: '{}' },
        { type: 'local_shell_call_output', call_id: 'call_b', id: 'lsho_b', output: '{}' },
      ],
      undefined,
    );
    expect(messages).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_cu',
            type: 'function',
            function: { name: 'computer', arguments: { actions } },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '{}' },
      { role: 'tool', tool_call_id: 'call_b', content: '{}' },
    ]);
  });

  it('names the offered built-in tools as their calls are named', () => {
    expect(
      responsesToolNames([
        { type: 'shell' },
        { type: 'local_shell' },
        { type: 'apply_patch' },
        { type: 'computer' },
        { type: 'computer_use_preview', display_width: 1, display_height: 1, environment: 'linux' },
        { type: 'function', name: 'lookup' },
      ]),
    ).toEqual(
      ['shell', 'local_shell', 'apply_patch', 'computer', 'computer', 'lookup'].map((name) => ({
        name,
      })),
    );
  });
});
