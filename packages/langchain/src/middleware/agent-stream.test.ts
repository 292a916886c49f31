/**
 * `createAgent(...).stream()` traced with the agent middleware and with the callback handler:
 * each stream mode gives the trace the non-streamed run gives, and a policy block mid-stream
 * keeps the tool from running. ChatOpenAI streams token by token from the scripted server over
 * real HTTP (LangGraph's `messages` mode makes it stream inside `invoke()`).
 */
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { createTracer, PolicyViolationError, parsePolicy, type Tracer } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import { createAgent } from 'langchain';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Attachment } from '../__fixtures__/agent-harness.js';
import { conversationOf, expectSoundTrace, responses } from '../__fixtures__/trace-checks.js';
import { ran, sendEmail, weather } from '../__fixtures__/weather-tools.js';
import { TracewardenCallbackHandler } from '../handler/index.js';
import { tracewardenAgentMiddleware } from './tracewarden-agent-middleware.js';

type StreamMode = 'values' | 'updates' | 'messages';

const weatherTurns = [
  {
    reasoning: 'I need the weather first.',
    toolCalls: [{ name: 'weather', arguments: { city: 'Paris' }, id: 'call_p' }],
  },
  { reasoning: 'The tool says sunny.', text: 'It is sunny in Paris.' },
];

/** A tool call, then a reply the model stopped at its token limit. */
const cutShortTurns = [
  { toolCalls: [{ name: 'weather', arguments: { city: 'Paris' }, id: 'call_p' }] },
  { text: 'It is sunny', finishReason: 'length' },
];

const mailTurns = [
  {
    toolCalls: [
      { name: 'send_email', arguments: { to: 'eve@evil.example', body: 'x' }, id: 'call_m' },
    ],
  },
  { text: 'I could not send it.' },
];

const noEmail = parsePolicy(`
raise "send_email is not allowed" if:
    (call: ToolCall)
    call is tool:send_email
`);

interface AgentRun {
  attachment: Attachment;
  turns: readonly object[];
  /** `undefined`: `invoke()`, not streamed. */
  streamMode: StreamMode | undefined;
  policy?: { onPolicyViolation: 'throw' | 'refuse' };
}

interface AgentOutcome {
  tracer: Tracer;
  /** What the stream delivered, in order. */
  parts: unknown[];
  error: unknown;
}

async function runAgent(run: AgentRun): Promise<AgentOutcome> {
  await using server = await startScriptedServer({ turns: [...run.turns] as never });
  const tracer = createTracer();
  const options = {
    tracer,
    ...(run.policy === undefined ? {} : { policy: noEmail, ...run.policy }),
  };
  const handler =
    run.attachment === 'handler' ? new TracewardenCallbackHandler(options) : undefined;
  const agent = createAgent({
    model: new ChatOpenAI({
      model: 'gpt-4o-mini',
      apiKey: 'sk-test',
      configuration: { baseURL: server.url },
      maxRetries: 0,
    }),
    tools: [weather, sendEmail],
    systemPrompt: 'Be brief.',
    middleware: run.attachment === 'middleware' ? [tracewardenAgentMiddleware(options)] : [],
  });
  const input = { messages: [new HumanMessage('Weather in Paris?')] };
  const config = handler === undefined ? {} : { callbacks: [handler] };
  const parts: unknown[] = [];
  let error: unknown;
  try {
    if (run.streamMode === undefined) parts.push(await agent.invoke(input, config));
    else
      for await (const part of await agent.stream(input, {
        ...config,
        streamMode: run.streamMode,
      }))
        parts.push(part);
  } catch (caught) {
    error = caught;
  }
  await handler?.flush();
  return { tracer, parts, error };
}

/** `PolicyViolationError` as thrown, or as the cause `createAgent` wraps a middleware's error in. */
function isPolicyViolation(error: unknown): boolean {
  return (
    PolicyViolationError.isInstance(error) ||
    PolicyViolationError.isInstance((error as { cause?: unknown } | undefined)?.cause)
  );
}

/** The message chunks a `messages` stream delivered (`[chunk, metadata]` pairs). */
function streamedMessages(parts: readonly unknown[]): BaseMessage[] {
  return parts.map((part) => (part as [BaseMessage, unknown])[0]);
}

beforeEach(() => {
  ran.length = 0;
});

describe.each(['middleware', 'handler'] as const)('agent.stream() with the %s', (attachment) => {
  it.each(['values', 'updates', 'messages'] as const)(
    'streamMode %s records the trace invoke() records, sound and without orphans',
    async (streamMode) => {
      const reference = await runAgent({ attachment, turns: weatherTurns, streamMode: undefined });
      const streamed = await runAgent({ attachment, turns: weatherTurns, streamMode });
      expect(streamed.error).toBeUndefined();
      expectSoundTrace(reference.tracer);
      expectSoundTrace(streamed.tracer);
      expect(conversationOf(streamed.tracer)).toEqual(conversationOf(reference.tracer));
      expect(
        conversationOf(streamed.tracer).map((message) => (message as { content: unknown }).content),
      ).toEqual(['Be brief.', 'Weather in Paris?', null, 'It is sunny in Paris.']);
      expect(ran).toEqual(['weather:Paris', 'weather:Paris']);
      expect(responses(streamed.tracer.blocks())).toHaveLength(2);
    },
  );

  it('streamMode messages: the answer arrives token by token', async () => {
    const { tracer, parts } = await runAgent({
      attachment,
      turns: weatherTurns,
      streamMode: 'messages',
    });
    const text = streamedMessages(parts)
      .filter((message) => message.getType() === 'ai')
      .map((message) => (typeof message.content === 'string' ? message.content : ''))
      .join('');
    expect(text).toBe('It is sunny in Paris.');
    // more chunks than messages: the model streamed
    expect(parts.length).toBeGreaterThan(4);
    // the handler sees the tokens (time to first token); the middleware sees the whole answer
    const streamedFlags = responses(tracer.blocks()).map((block) => block.metadata.stream);
    expect(streamedFlags).toEqual(attachment === 'handler' ? [true, true] : [false, false]);
  });

  it.each(['invoke', 'values', 'updates', 'messages'] as const)(
    '%s records each answer’s finish reason, a reply cut short (length) included',
    async (mode) => {
      const { tracer, error } = await runAgent({
        attachment,
        turns: cutShortTurns,
        streamMode: mode === 'invoke' ? undefined : mode,
      });
      expect(error).toBeUndefined();
      // in messages mode the model streams inside invoke(): the answer the agent gets is the
      // aggregated chunk, whose finish reason LangChain keeps out of its response_metadata
      const finishes = responses(expectSoundTrace(tracer)).map((block) => ({
        finish_reason: block.metadata.finish_reason,
        provider_finish_reason: block.metadata.provider_finish_reason,
      }));
      expect(finishes).toEqual([
        { finish_reason: 'tool_calls', provider_finish_reason: 'tool_calls' },
        { finish_reason: 'length', provider_finish_reason: 'length' },
      ]);
    },
  );

  it('throw mode: a blocked call mid-stream rejects the stream and the tool never runs', async () => {
    const { tracer, parts, error } = await runAgent({
      attachment,
      turns: mailTurns,
      streamMode: 'messages',
      policy: { onPolicyViolation: 'throw' },
    });
    expect(isPolicyViolation(error)).toBe(true);
    expect(ran).toEqual([]);
    // no ToolMessage was streamed: the tools node never ran
    expect(streamedMessages(parts).some((message) => message.getType() === 'tool')).toBe(false);
    const call = expectSoundTrace(tracer).find((block) => block.sub_type === 'TOOL_CALL');
    expect(call?.metadata).toMatchObject({ policy: 'block' });
  });

  it('refuse mode: the stream goes on with the refusal, the tool never runs', async () => {
    const { tracer, parts, error } = await runAgent({
      attachment,
      turns: mailTurns,
      streamMode: 'messages',
      policy: { onPolicyViolation: 'refuse' },
    });
    expect(error).toBeUndefined();
    expect(ran).toEqual([]);
    const toolMessages = streamedMessages(parts).filter((message) => message.getType() === 'tool');
    expect(toolMessages).toHaveLength(1);
    expect(String(toolMessages[0]?.content)).toContain('send_email is not allowed');
    const blocks = expectSoundTrace(tracer);
    const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results.map((block) => block.metadata.refused)).toEqual([true]);
    expect(responses(blocks).at(-1)?.payload.content).toBe('I could not send it.');
  });

  it('streamMode messages delivers the blocked call’s chunks before the verdict (a known limit): the tool still never runs', async () => {
    const { parts } = await runAgent({
      attachment,
      turns: mailTurns,
      streamMode: 'messages',
      policy: { onPolicyViolation: 'throw' },
    });
    const callChunks = streamedMessages(parts).flatMap(
      (message) => (message as { tool_call_chunks?: { name?: string }[] }).tool_call_chunks ?? [],
    );
    expect(callChunks.some((chunk) => chunk.name === 'send_email')).toBe(true);
    expect(ran).toEqual([]);
  });
});
