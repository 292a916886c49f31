/**
 * Concurrent conversations whose provider numbers tool calls per answer (`call_0`, `call_1` in
 * every conversation: TGI, llama.cpp-style servers), traced without a `tracer` (one trace per
 * run): each conversation stays in its own trace, found by what is the run's own (its answers,
 * its first message), never moved into another's by a call id both use.
 */
import {
  type AIMessage,
  type BaseMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
} from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { BaseChatModel as LowestChatModel } from '@langchain/core-lowest/language_models/chat_models';
import {
  AIMessage as LowestAIMessage,
  type BaseMessage as LowestBaseMessage,
  HumanMessage as LowestHumanMessage,
} from '@langchain/core-lowest/messages';
import type { ChatResult } from '@langchain/core-lowest/outputs';
import { tool as lowestTool } from '@langchain/core-lowest/tools';
import { ChatOpenAI } from '@langchain/openai';
import { createTracer, parsePolicy, type Tracer } from '@tracewarden/core';
import { type ScriptedServer, startScriptedServer } from '@tracewarden/testing';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { conversationOf, expectSoundTrace } from '../__fixtures__/trace-checks.js';
import { TracewardenCallbackHandler } from '../handler/index.js';
import { tracewardenAgentMiddleware } from '../middleware/index.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Conversation `n` asks for `box<n>` twice (`call_0`, then `call_1`), then answers. An odd
 * conversation's first answer comes 50 ms after the even one's; an even conversation's tool
 * takes 200 ms, so the odd one records both its calls while the even one's first call still runs.
 */
async function sameIdsServer(): Promise<ScriptedServer> {
  return startScriptedServer({
    turns: (request) => {
      const messages = (request.body as { messages: { role: string }[] }).messages;
      const n = Number(/conv (\d+)/.exec(JSON.stringify(messages))?.[1]);
      const k = messages.filter((message) => message.role === 'tool').length;
      if (k >= 2) return { text: `done ${n}` };
      return {
        ...(k === 0 && n % 2 === 1 ? { fault: { type: 'slow-first-byte', delayMs: 50 } } : {}),
        toolCalls: [{ id: `call_${k}`, name: 'get_inbox', arguments: { box: `box${n}` } }],
      };
    },
  });
}

const getInbox = tool(
  async ({ box }: { box: string }) => {
    if (Number(box.slice(3)) % 2 === 0) await sleep(200);
    return `inbox of ${box}`;
  },
  { name: 'get_inbox', description: 'inbox', schema: z.object({ box: z.string() }) },
);

/** What conversation `n` must be, alone in its trace. */
function expectedConversation(n: number): unknown[] {
  const call = (k: number) => ({
    role: 'assistant',
    content: null,
    thinks: [],
    tool_calls: [
      {
        call_id: `call_${k}`,
        name: 'get_inbox',
        arguments: { box: `box${n}` },
        results: [`inbox of box${n}`],
      },
    ],
  });
  return [
    { role: 'user', content: `conv ${n}`, thinks: [], tool_calls: [] },
    call(0),
    call(1),
    { role: 'assistant', content: `done ${n}`, thinks: [], tool_calls: [] },
  ];
}

function expectTwoConversations(made: Tracer[], conversations: readonly number[] = [0, 1]): void {
  expect(made).toHaveLength(2);
  const byConversation = made
    .map((tracer) => {
      expectSoundTrace(tracer);
      return conversationOf(tracer);
    })
    .sort((a, b) =>
      JSON.stringify(a[0]).localeCompare(JSON.stringify(b[0]), 'en', { numeric: true }),
    );
  expect(byConversation).toEqual(conversations.map(expectedConversation));
}

function model(url: string): ChatOpenAI {
  return new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'sk-test',
    configuration: { baseURL: url },
    maxRetries: 0,
  });
}

describe('concurrent conversations with the same call ids, no tracer', () => {
  it('agent middleware: each agent run in its own trace', async () => {
    server = await sameIdsServer();
    const made: Tracer[] = [];
    const tracerFactory = () => {
      const tracer = createTracer();
      made.push(tracer);
      return tracer;
    };
    const agent = createAgent({
      model: model(server.url),
      tools: [getInbox],
      middleware: [tracewardenAgentMiddleware({ tracerFactory })],
    });
    await Promise.all(
      [0, 1].map((n) => agent.invoke({ messages: [new HumanMessage(`conv ${n}`)] })),
    );
    expectTwoConversations(made);
  });

  it('callback handler on the same agent: each agent run in its own trace', async () => {
    server = await sameIdsServer();
    const made: Tracer[] = [];
    const handler = new TracewardenCallbackHandler({
      tracerFactory: () => {
        const tracer = createTracer();
        made.push(tracer);
        return tracer;
      },
    });
    const agent = createAgent({ model: model(server.url), tools: [getInbox] });
    await Promise.all(
      [0, 1].map((n) =>
        agent.invoke({ messages: [new HumanMessage(`conv ${n}`)] }, { callbacks: [handler] }),
      ),
    );
    expectTwoConversations(made);
  });

  it('one handler, manual bindTools loops: each loop in its own trace', async () => {
    server = await sameIdsServer();
    const made: Tracer[] = [];
    const handler = new TracewardenCallbackHandler({
      tracerFactory: () => {
        const tracer = createTracer();
        made.push(tracer);
        return tracer;
      },
    });
    const bound = model(server.url).bindTools([getInbox]);
    const loop = async (n: number) => {
      const messages: BaseMessage[] = [new HumanMessage(`conv ${n}`)];
      for (let turn = 0; turn < 4; turn++) {
        const answer: AIMessage = await bound.invoke(messages, { callbacks: [handler] });
        messages.push(answer);
        if (!answer.tool_calls?.length) break;
        for (const call of answer.tool_calls)
          messages.push(await getInbox.invoke(call, { callbacks: [handler] }));
      }
    };
    await Promise.all([loop(0), loop(1)]);
    expectTwoConversations(made);
  });

  it('one handler, manual loops re-sending a history rebuilt from storage each turn', async () => {
    server = await sameIdsServer();
    const made: Tracer[] = [];
    const handler = new TracewardenCallbackHandler({
      tracerFactory: () => {
        const tracer = createTracer();
        made.push(tracer);
        return tracer;
      },
    });
    const bound = model(server.url).bindTools([getInbox]);
    const loop = async (n: number) => {
      let stored = mapChatMessagesToStoredMessages([new HumanMessage(`conv ${n}`)]);
      for (let turn = 0; turn < 4; turn++) {
        // no answer object is re-sent: only the call ids (and their tools and arguments) are left
        const messages = mapStoredMessagesToChatMessages(stored);
        const answer: AIMessage = await bound.invoke(messages, { callbacks: [handler] });
        messages.push(answer);
        for (const call of answer.tool_calls ?? [])
          messages.push(await getInbox.invoke(call, { callbacks: [handler] }));
        stored = mapChatMessagesToStoredMessages(messages);
        if (!answer.tool_calls?.length) break;
      }
    };
    // conversations of their own: the calls of earlier tests' conversations 0 and 1 (the same
    // ids, tools and arguments) would leave a rebuilt history no trace to tell apart
    await Promise.all([loop(2), loop(3)]);
    expectTwoConversations(made, [2, 3]);
  });

  it('one handler, manual loops on @langchain/core 1.0.0 (no call id at tool start)', async () => {
    /** Answers conversation `n` as the scripted server does, after `delayMs`. */
    class SameIdsModel extends LowestChatModel {
      constructor(
        private readonly n: number,
        private readonly delayMs: number,
      ) {
        super({});
      }
      _llmType(): string {
        return 'same-ids';
      }
      async _generate(messages: LowestBaseMessage[]): Promise<ChatResult> {
        const k = messages.filter((message) => message.getType() === 'tool').length;
        if (k === 0) await sleep(this.delayMs);
        const message =
          k >= 2
            ? new LowestAIMessage(`done ${this.n}`)
            : new LowestAIMessage({
                content: '',
                tool_calls: [
                  {
                    name: 'get_inbox',
                    args: { box: `box${this.n}` },
                    id: `call_${k}`,
                    type: 'tool_call',
                  },
                ],
              });
        return { generations: [{ text: '', message }] };
      }
    }
    const inbox = lowestTool(
      async ({ box }: { box: string }) => {
        if (box === 'box0') await sleep(200);
        return `inbox of ${box}`;
      },
      { name: 'get_inbox', description: 'inbox', schema: z.object({ box: z.string() }) },
    );
    const made: Tracer[] = [];
    const handler = new TracewardenCallbackHandler({
      tracerFactory: () => {
        const tracer = createTracer();
        made.push(tracer);
        return tracer;
      },
    });
    const loop = async (n: number) => {
      const chat = new SameIdsModel(n, n * 50);
      const messages: LowestBaseMessage[] = [new LowestHumanMessage(`conv ${n}`)];
      for (let turn = 0; turn < 4; turn++) {
        const answer = await chat.invoke(messages, { callbacks: [handler as never] });
        messages.push(answer);
        if (!answer.tool_calls?.length) break;
        for (const call of answer.tool_calls)
          messages.push(await inbox.invoke(call, { callbacks: [handler as never] }));
      }
    };
    await Promise.all([loop(0), loop(1)]);
    expectTwoConversations(made);
  });
});

describe('a policy in refuse mode, two conversations with the same call id', () => {
  it('a call blocked in one conversation is not run when the other reuses its id', async () => {
    server = await startScriptedServer({
      turns: (request) => {
        const messages = (request.body as { messages: { content: string }[] }).messages;
        return messages.at(-1)?.content.includes('mail')
          ? { toolCalls: [{ id: 'call_0', name: 'send_email', arguments: { to: 'evil@x.com' } }] }
          : { toolCalls: [{ id: 'call_0', name: 'get_weather', arguments: { city: 'Paris' } }] };
      },
    });
    const sent: string[] = [];
    const sendEmail = tool(
      async ({ to }) => {
        sent.push(to);
        return `sent to ${to}`;
      },
      { name: 'send_email', description: 'Sends an email.', schema: z.object({ to: z.string() }) },
    );
    const getWeather = tool(async ({ city }) => `Sunny in ${city}`, {
      name: 'get_weather',
      description: 'Tells the weather.',
      schema: z.object({ city: z.string() }),
    });
    const handler = new TracewardenCallbackHandler({
      policy: parsePolicy('raise "no mail" if:\n    (call: ToolCall)\n    call is tool:send_email'),
      onPolicyViolation: 'refuse',
    });
    const model = new ChatOpenAI({
      model: 'gpt-4o-mini',
      apiKey: 'test',
      configuration: { baseURL: server.url },
    }).bindTools([sendEmail, getWeather]);
    // both answers arrive before either conversation runs its tool
    const mail = await model.invoke([new HumanMessage('mail it')], { callbacks: [handler] });
    const weather = await model.invoke([new HumanMessage('weather')], { callbacks: [handler] });
    const [mailCall] = mail.tool_calls ?? [];
    const [weatherCall] = weather.tool_calls ?? [];
    if (mailCall === undefined || weatherCall === undefined) throw new Error('no tool calls');
    const refused = await sendEmail.invoke(mailCall, { callbacks: [handler] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const forecast = await getWeather.invoke(weatherCall, { callbacks: [handler] });
    expect(sent).toEqual([]);
    expect(String(refused)).toContain('blocked by policy');
    expect(forecast.content).toBe('Sunny in Paris');
    const mailTrace = handler.tracers.find(
      (tracer) => tracer.findToolCall('call_0')?.payload.name === 'send_email',
    );
    const result = mailTrace?.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload.output).toContain('not executed');
  });
});
