/**
 * `refuse` mode through the callback handler and `createAgent`, over real HTTP (`ChatOpenAI`
 * against the scripted server): what the trace records for a refused call is what the model read
 * for it, and a refused call whose tool ran anyway (the handler not attached to the tool run) is
 * recorded as having run, with a process warning saying why.
 */
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { type Block, createTracer, parsePolicy, type Tracer } from '@tracewarden/core';
import { type ScriptedServer, startScriptedServer } from '@tracewarden/testing';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { expectSoundTrace } from '../__fixtures__/trace-checks.js';
import { guardTools } from '../tools/index.js';
import { TracewardenCallbackHandler } from './tracewarden-callback-handler.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

const noMail = parsePolicy(`
raise "no mail" if:
    (call: ToolCall)
    call is tool:send_email
`);

const refusal = 'Tool call send_email was blocked by policy: no mail. It was not executed.';

/** Parallel calls (one tool fails, one is refused), a second turn with one more call, an answer. */
async function agentServer(): Promise<ScriptedServer> {
  return startScriptedServer({
    turns: [
      {
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_weather', arguments: { city: 'Oslo' } },
          { name: 'send_email', arguments: { to: 'evil@x.example' } },
        ],
      },
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] },
      { text: 'Done.' },
    ],
  });
}

function agentTools(sent: string[]) {
  const getWeather = tool(
    async ({ city }: { city: string }) => {
      if (city === 'Oslo') throw new Error('no data for Oslo');
      return `Sunny in ${city}`;
    },
    { name: 'get_weather', description: 'weather', schema: z.object({ city: z.string() }) },
  );
  const sendEmail = tool(
    async ({ to }: { to: string }) => {
      sent.push(to);
      return `sent to ${to}`;
    },
    { name: 'send_email', description: 'mail', schema: z.object({ to: z.string() }) },
  );
  return [getWeather, sendEmail];
}

function chatModel(url: string, handler?: TracewardenCallbackHandler): ChatOpenAI {
  return new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'sk-test',
    configuration: { baseURL: url },
    maxRetries: 0,
    ...(handler === undefined ? {} : { callbacks: [handler] }),
  });
}

/** The TOOL_RESULTs of the recorded `send_email` call, in order. */
function sendEmailResults(tracer: Tracer): Block[] {
  const call = tracer
    .blocks()
    .find((block) => block.sub_type === 'TOOL_CALL' && block.payload.name === 'send_email');
  expect(call).toBeDefined();
  return tracer
    .blocks()
    .filter((block) => block.sub_type === 'TOOL_RESULT' && block.parent_block_id === call?.id);
}

/** The content of each tool message of each request the model got, by call id (the latest). */
function readByModel(scripted: ScriptedServer): Record<string, unknown> {
  const read: Record<string, unknown> = {};
  for (const request of scripted.requests)
    for (const message of (request.body as { messages: Record<string, unknown>[] }).messages)
      if (message.role === 'tool') read[String(message.tool_call_id)] = message.content;
  return read;
}

function refusedCallRan(spy: { mock: { calls: unknown[][] } }): unknown[][] {
  return spy.mock.calls.filter(
    (args) => (args[1] as { code?: unknown } | undefined)?.code === 'TRACEWARDEN_REFUSED_CALL_RAN',
  );
}

describe('createAgent with the handler in refuse mode', () => {
  it('records the refusal as the tool node answers it, word for word (handler per call)', async () => {
    server = await agentServer();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const sent: string[] = [];
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      policy: noMail,
      onPolicyViolation: 'refuse',
      pricing: false,
    });
    const agent = createAgent({ model: chatModel(server.url), tools: agentTools(sent) });
    const result = await agent.invoke(
      { messages: [{ role: 'user', content: 'go' }] },
      { callbacks: [handler] },
    );
    expect(sent).toEqual([]);
    expect(result.messages.at(-1)?.content).toBe('Done.');
    expectSoundTrace(tracer);
    const results = sendEmailResults(tracer);
    // one result: the refusal, in the words the model read it in
    expect(results).toHaveLength(1);
    const read = `PolicyViolationError: ${refusal}\n Please fix your mistakes.`;
    expect(results[0]?.payload.output).toBe(read);
    expect(results[0]?.metadata).toMatchObject({ status: 'failure', refused: true });
    expect(readByModel(server)[String(results[0]?.payload.call_id)]).toBe(read);
    expect(refusedCallRan(warn)).toEqual([]);
  });

  it('records what a guarded tool answered for a refused call, without a warning (handler in the model constructor)', async () => {
    server = await agentServer();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const sent: string[] = [];
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      policy: noMail,
      onPolicyViolation: 'refuse',
      pricing: false,
    });
    const agent = createAgent({
      model: chatModel(server.url, handler),
      tools: guardTools(agentTools(sent)),
    });
    await agent.invoke({ messages: [{ role: 'user', content: 'go' }] });
    expect(sent).toEqual([]);
    expectSoundTrace(tracer);
    const results = sendEmailResults(tracer);
    const answered = readByModel(server)[String(results[0]?.payload.call_id)];
    // the guarded tool refused the call in its own words: those are recorded too
    expect(answered).not.toBe(refusal);
    expect(answered).toContain(refusal);
    expect(results.map((block) => block.payload.output)).toEqual([refusal, answered]);
    expect(results[1]?.metadata).toMatchObject({
      status: 'failure',
      refused: true,
      as_read: true,
    });
    expect(refusedCallRan(warn)).toEqual([]);
  });

  it('records a refused call whose tool ran without the handler as having run, and warns once (handler in the model constructor)', async () => {
    server = await agentServer();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const sent: string[] = [];
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      policy: noMail,
      onPolicyViolation: 'refuse',
      pricing: false,
    });
    // the tools run without the handler: the model's constructor callbacks are not inherited
    const agent = createAgent({ model: chatModel(server.url, handler), tools: agentTools(sent) });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] });
    expect(sent).toEqual(['evil@x.example']);
    expect(result.messages.at(-1)?.content).toBe('Done.');
    expectSoundTrace(tracer);
    const results = sendEmailResults(tracer);
    // the refusal recorded when the model proposed the call, then what really happened (once,
    // though the next two requests re-send it)
    expect(results.map((block) => block.payload.output)).toEqual([
      refusal,
      'sent to evil@x.example',
    ]);
    expect(results[1]?.metadata).toEqual({
      status: 'success',
      tool_name: 'send_email',
      refusal_not_enforced: true,
      as_read: true,
    });
    expect(readByModel(server)[String(results[1]?.payload.call_id)]).toBe('sent to evil@x.example');
    const warnings = refusedCallRan(warn);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.[0])).toMatch(/send_email.*without the handler attached/);
  });
});
