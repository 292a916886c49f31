/**
 * Tool calls whose id is `""` (Gemini-backed agents), through the handler and the agent
 * middleware: decision 030, as `wrapOpenAI` and the AI SDK adapter record them. Each call is
 * recorded once under an id core generates, each result under its call by decision 002's order
 * rule, and the answer re-sent with its `""` ids is not recorded again.
 */
import {
  type AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { createTracer, guard, recommendedPolicy, type Tracer } from '@tracewarden/core';
import { type ScriptedServer, startScriptedServer } from '@tracewarden/testing';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { conversationOf, expectSoundTrace, responses } from '../__fixtures__/trace-checks.js';
import { TracewardenCallbackHandler } from '../handler/index.js';
import { tracewardenAgentMiddleware } from '../middleware/index.js';
import { guardTools } from '../tools/index.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const turns = [
  { toolCalls: [{ id: '', name: 'get_inbox', arguments: {} }] },
  {
    toolCalls: [
      { id: '', name: 'send_email', arguments: { to: 'maria@acme.example', body: 'Thursday.' } },
    ],
  },
  { text: 'Replied to Maria.' },
];

function tools(sent: string[]) {
  return [
    tool(async () => 'Maria: can we meet Thursday?', {
      name: 'get_inbox',
      description: 'inbox',
      schema: z.object({}),
    }),
    tool(
      async ({ to }: { to: string; body: string }) => {
        sent.push(to);
        return 'sent';
      },
      {
        name: 'send_email',
        description: 'send',
        schema: z.object({ to: z.string(), body: z.string() }),
      },
    ),
  ];
}

function model(url: string): ChatOpenAI {
  return new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'sk-test',
    configuration: { baseURL: url },
    maxRetries: 0,
  });
}

/** Each call recorded once under a generated id, each result under its own call, once. */
function expectEachCallOnce(tracer: Tracer, failures: unknown[]): void {
  expect(failures).toEqual([]);
  const blocks = expectSoundTrace(tracer);
  const conversation = conversationOf(tracer).filter(
    (message) => (message as { role: string }).role === 'assistant',
  );
  expect(conversation).toEqual([
    {
      role: 'assistant',
      content: null,
      thinks: [],
      tool_calls: [
        {
          call_id: expect.stringMatching(/^call_.+_\d+$/),
          name: 'get_inbox',
          arguments: {},
          results: ['Maria: can we meet Thursday?'],
        },
      ],
    },
    {
      role: 'assistant',
      content: null,
      thinks: [],
      tool_calls: [
        {
          call_id: expect.stringMatching(/^call_.+_\d+$/),
          name: 'send_email',
          arguments: { to: 'maria@acme.example', body: 'Thursday.' },
          results: ['sent'],
        },
      ],
    },
    { role: 'assistant', content: 'Replied to Maria.', thinks: [], tool_calls: [] },
  ]);
  // every assistant MESSAGE is a model call's answer: none recorded again when re-sent
  expect(responses(blocks)).toHaveLength(3);
  for (const block of blocks)
    if (block.sub_type === 'TOOL_RESULT') expect(block.metadata.status).toBe('success');
}

describe('tool calls with "" ids (decision 030)', () => {
  it('agent middleware (guarded tools, a policy): each call and result once', async () => {
    server = await startScriptedServer({ turns: [...turns] });
    const tracer = createTracer();
    const failures: unknown[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const sent: string[] = [];
    const agent = createAgent({
      model: model(server.url),
      tools: guardTools(tools(sent)),
      systemPrompt: 'You are an email assistant.',
      middleware: [
        tracewardenAgentMiddleware({
          tracer,
          policy: recommendedPolicy(),
          onRecordingError: (error) => failures.push(error),
        }),
      ],
    });
    await agent.invoke({ messages: [new HumanMessage('Answer Maria.')] });
    // the guarded tools record their results too: no "call_id must be a non-empty string"
    expect(warn.mock.calls).toEqual([]);
    warn.mockRestore();
    expect(sent).toEqual(['maria@acme.example']);
    expectEachCallOnce(tracer, failures);
  });

  it("agent middleware (a core guard() inside the tools' own functions): each call and result once", async () => {
    server = await startScriptedServer({ turns: [...turns] });
    const tracer = createTracer();
    const failures: unknown[] = [];
    const sent: string[] = [];
    const [inbox, send] = tools(sent).map((plain) =>
      guard(
        (args: unknown) => (plain as { invoke(input: unknown): Promise<unknown> }).invoke(args),
        {
          name: `guarded_${plain.name}`,
        },
      ),
    );
    const agent = createAgent({
      model: model(server.url),
      tools: [
        tool(async () => inbox?.({}), {
          name: 'get_inbox',
          description: 'inbox',
          schema: z.object({}),
        }),
        tool(async (args: { to: string; body: string }) => send?.(args), {
          name: 'send_email',
          description: 'send',
          schema: z.object({ to: z.string(), body: z.string() }),
        }),
      ],
      middleware: [
        tracewardenAgentMiddleware({ tracer, onRecordingError: (error) => failures.push(error) }),
      ],
    });
    await agent.invoke({ messages: [new HumanMessage('Answer Maria.')] });
    expect(sent).toEqual(['maria@acme.example']);
    // no TOOL_CALL of the guards' own: each result under the model's call, with its guard's record
    expectEachCallOnce(tracer, failures);
    for (const block of tracer.blocks())
      if (block.sub_type === 'TOOL_RESULT')
        expect(block.metadata).toMatchObject({ guard: { attempts: [{ attempt: 1 }] } });
  });

  it('callback handler, manual loop (a policy): each call and result once', async () => {
    server = await startScriptedServer({ turns: [...turns] });
    const tracer = createTracer();
    const failures: unknown[] = [];
    const handler = new TracewardenCallbackHandler({
      tracer,
      policy: recommendedPolicy(),
      onRecordingError: (error) => failures.push(error),
    });
    const sent: string[] = [];
    const list = tools(sent);
    const byName = new Map<string, { invoke(call: unknown, config: unknown): Promise<unknown> }>(
      list.map((each) => [each.name, each as never]),
    );
    const bound = model(server.url).bindTools(list);
    const messages: BaseMessage[] = [
      new SystemMessage('You are an email assistant.'),
      new HumanMessage('Answer Maria.'),
    ];
    for (let turn = 0; turn < 4; turn++) {
      const answer: AIMessage = await bound.invoke(messages, { callbacks: [handler] });
      messages.push(answer);
      if (!answer.tool_calls?.length) break;
      for (const call of answer.tool_calls) {
        const result = await byName.get(call.name)?.invoke(call, { callbacks: [handler] });
        messages.push(
          result instanceof ToolMessage
            ? result
            : new ToolMessage({ content: String(result), tool_call_id: '' }),
        );
      }
    }
    expect(sent).toEqual(['maria@acme.example']);
    expectEachCallOnce(tracer, failures);
  });
});
