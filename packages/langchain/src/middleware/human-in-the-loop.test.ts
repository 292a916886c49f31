import { Command, MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createTracer, parsePolicy } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import {
  type AnyAgentMiddleware,
  createAgent,
  HumanMessage,
  humanInTheLoopMiddleware,
  tool,
} from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { conversationOf, expectSoundTrace } from '../__fixtures__/trace-checks.js';
import { TracewardenCallbackHandler } from '../handler/index.js';
import { tracewardenAgentMiddleware } from './index.js';

// LangChain's human-in-the-loop middleware lets a person edit a proposed call before it runs;
// the agent then re-sends the edited turn to the model. The trace keeps one turn and one call
// (the model's proposal), with one result: not a second, phantom turn whose call is `e1_2`.

const policy = parsePolicy(`
raise "no mail outside acme.example" if:
    (call: ToolCall)
    call is tool:send_email
    not match(r".*@acme\\.example$", call.function.arguments.to)
`);

describe('a human edits a proposed call before it runs (humanInTheLoopMiddleware)', () => {
  for (const attach of ['handler', 'middleware'] as const)
    for (const editedTo of ['carol@acme.example', 'eve@attacker.example'])
      it(`records the model's call once, with one result (${attach}, edited to ${editedTo})`, async () => {
        await using server = await startScriptedServer({
          turns: [
            {
              toolCalls: [
                { id: 'e1', name: 'send_email', arguments: { to: 'bob@acme.example', body: 'hi' } },
              ],
            },
            { text: 'done' },
          ],
        });
        const tracer = createTracer();
        const sent: string[] = [];
        const sendEmail = tool(
          async ({ to }: { to: string; body: string }) => {
            sent.push(to);
            return `sent to ${to}`;
          },
          {
            name: 'send_email',
            description: 'Sends an email.',
            schema: z.object({ to: z.string(), body: z.string() }),
          },
        );
        const options = { tracer, policy, onPolicyViolation: 'refuse' as const };
        // its config type resolves to `never` under exactOptionalPropertyTypes (langchain 1.5)
        const hitl = (
          humanInTheLoopMiddleware as unknown as (config: {
            interruptOn: Record<string, boolean>;
          }) => AnyAgentMiddleware
        )({ interruptOn: { send_email: true } });
        const agent = createAgent({
          model: new ChatOpenAI({
            model: 'gpt-4o-mini',
            apiKey: 'test',
            configuration: { baseURL: server.url },
            maxRetries: 0,
          }),
          tools: [sendEmail],
          checkpointer: new MemorySaver(),
          middleware:
            attach === 'middleware' ? [hitl, tracewardenAgentMiddleware(options)] : [hitl],
        });
        const config = {
          configurable: { thread_id: `hitl-${attach}-${editedTo}` },
          ...(attach === 'handler' ? { callbacks: [new TracewardenCallbackHandler(options)] } : {}),
        };
        const paused = await agent.invoke({ messages: [new HumanMessage('mail bob')] }, config);
        expect(paused.__interrupt__).toBeDefined();
        await agent.invoke(
          new Command({
            resume: {
              decisions: [
                {
                  type: 'edit',
                  editedAction: { name: 'send_email', args: { to: editedTo, body: 'hi' } },
                },
              ],
            },
          }),
          config,
        );
        const allowed = editedTo.endsWith('@acme.example');
        expect(sent).toEqual(allowed ? [editedTo] : []);
        expectSoundTrace(tracer);
        const conversation = conversationOf(tracer);
        expect(conversation.map((message) => (message as { role: string }).role)).toEqual([
          'user',
          'assistant',
          'assistant',
        ]);
        const [call] = (
          conversation[1] as {
            tool_calls: { call_id: string; arguments: unknown; results: unknown[] }[];
          }
        ).tool_calls;
        expect(call).toMatchObject({
          call_id: 'e1',
          arguments: { to: 'bob@acme.example', body: 'hi' },
        });
        expect(call?.results).toHaveLength(1);
        if (allowed) expect(call?.results[0]).toBe(`sent to ${editedTo}`);
        else expect(String(call?.results[0])).toContain('blocked by policy');
        expect(conversation[2]).toMatchObject({ content: 'done' });
      });
});
