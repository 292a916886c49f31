import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { createTracer, parsePolicy, type Tracer } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import { createAgent, type createMiddleware, toolRetryMiddleware } from 'langchain';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { expectSoundTrace } from '../__fixtures__/trace-checks.js';
import { guardTools, TracewardenCallbackHandler, tracewardenAgentMiddleware } from '../index.js';

const policy = parsePolicy(`
raise "no mail outside acme" if:
    (call: ToolCall)
    call is tool:send_email
    not match(r".*@acme\\.example$", call.function.arguments.to)
`);

const sent: string[] = [];
const sendEmail = tool(
  async ({ to }: { to: string; body: string }) => {
    sent.push(to);
    return `sent to ${to}`;
  },
  {
    name: 'send_email',
    description: 'Sends an email',
    schema: z.object({ to: z.string(), body: z.string() }),
  },
);

const evilCall = {
  name: 'send_email',
  args: { to: 'eve@evil.example', body: 'x' },
  id: 'e1',
  type: 'tool_call' as const,
};

/** The outputs recorded under the call `e1`, with whether each is a refusal. */
function resultsOf(tracer: Tracer): [unknown, boolean][] {
  return tracer
    .blocks()
    .filter((block) => block.sub_type === 'TOOL_RESULT' && block.payload.call_id === 'e1')
    .map((block) => [block.payload.output, block.metadata.refused === true]);
}

/**
 * Runs an agent over the scripted server answering `calls` then "ok", with the handler in refuse
 * mode attached to the whole run; returns its trace.
 */
async function refusingAgentRun(
  calls: { name: string; arguments: Record<string, unknown>; id: string }[],
  middleware: ReturnType<typeof createMiddleware>[] = [],
): Promise<Tracer> {
  const server = await startScriptedServer({ turns: [{ toolCalls: calls }, { text: 'ok' }] });
  try {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, policy, onPolicyViolation: 'refuse' });
    const agent = createAgent({
      model: new ChatOpenAI({
        model: 'gpt-4o-mini',
        apiKey: 'sk-test',
        configuration: { baseURL: server.url },
        maxRetries: 0,
      }),
      tools: [sendEmail],
      middleware,
    });
    await agent
      .invoke({ messages: [new HumanMessage('go')] }, { callbacks: [handler] })
      .catch(() => undefined);
    return tracer;
  } finally {
    await server.close();
  }
}

beforeEach(() => {
  sent.length = 0;
  vi.spyOn(console, 'error').mockImplementation(() => {});
  return () => vi.restoreAllMocks();
});

describe('a call the policy refused, run again, is refused again (its verdict was taken by the first run)', () => {
  it('guardTools under the handler: the same tool call invoked twice never sends', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, policy, onPolicyViolation: 'refuse' });
    const model = fakeModel().respond(new AIMessage({ content: '', tool_calls: [evilCall] }));
    const [guarded] = guardTools([sendEmail]);
    const answer = await model.invoke([new HumanMessage('go')], { callbacks: [handler] });
    const call = answer.tool_calls?.[0];
    if (guarded === undefined || call === undefined) throw new Error('no call');
    for (let run = 0; run < 2; run++) {
      const outcome = await guarded.invoke(call, { callbacks: [handler] }).then(
        (value) => value,
        (error: unknown) => error,
      );
      // a refusal: an error ToolMessage, or the policy's error
      const text = outcome instanceof ToolMessage ? String(outcome.content) : String(outcome);
      expect(text).toMatch(/blocked by policy: no mail outside acme/);
    }
    expect(sent).toEqual([]);
    expectSoundTrace(tracer);
    expect(resultsOf(tracer).every(([, refused]) => refused)).toBe(true);
  });

  it('createAgent with toolRetryMiddleware and the handler in refuse mode: the refused email is never sent', async () => {
    const tracer = await refusingAgentRun(
      [{ name: 'send_email', arguments: { to: 'eve@evil.example', body: 'x' }, id: 'e1' }],
      [
        // (its zod v3 state schema does not fit AgentMiddleware's type under exactOptionalPropertyTypes)
        toolRetryMiddleware({ maxRetries: 1, initialDelayMs: 1 }) as unknown as ReturnType<
          typeof createMiddleware
        >,
      ],
    );
    expect(sent).toEqual([]);
    expectSoundTrace(tracer);
    // nothing the tool returned is in the trace: only refusals
    expect(resultsOf(tracer).length).toBeGreaterThan(0);
    for (const [output, refused] of resultsOf(tracer)) {
      expect(refused).toBe(true);
      expect(String(output)).not.toContain('sent to');
    }
  });

  it('tracewardenAgentMiddleware: wrapToolCall run again for the refused call never runs the tool', async () => {
    const tracer = createTracer();
    const middleware = tracewardenAgentMiddleware({
      tracer,
      policy,
      onPolicyViolation: 'refuse',
    });
    const agent = createAgent({
      model: fakeModel()
        .respond(new AIMessage({ content: '', tool_calls: [evilCall] }))
        .respond(new AIMessage('done')),
      tools: [sendEmail],
      middleware: [middleware],
    });
    await agent.invoke({ messages: [new HumanMessage('go')] });
    expect(sent).toEqual([]);
    // a middleware that retries (or any code) hands the same call to the tool node again
    const wrapToolCall = middleware.wrapToolCall as unknown as (
      request: unknown,
      handler: (request: unknown) => Promise<unknown>,
    ) => Promise<unknown>;
    const again = await wrapToolCall(
      { toolCall: evilCall, tool: sendEmail, state: { messages: [] }, runtime: {} },
      async () =>
        new ToolMessage({ content: await sendEmail.invoke(evilCall.args), tool_call_id: 'e1' }),
    );
    expect(String((again as ToolMessage).content)).toMatch(
      /blocked by policy: no mail outside acme/,
    );
    expect(sent).toEqual([]);
    expectSoundTrace(tracer);
    for (const [output, refused] of resultsOf(tracer)) {
      expect(refused).toBe(true);
      expect(String(output)).not.toContain('sent to');
    }
  });
});

describe('two calls under one id, one refused (refuse mode, handler)', () => {
  it('records the allowed call’s output under it only, never under the refused twin', async () => {
    const tracer = await refusingAgentRun([
      { name: 'send_email', arguments: { to: 'bob@acme.example', body: 'hi' }, id: 'c1' },
      { name: 'send_email', arguments: { to: 'eve@evil.example', body: 'x' }, id: 'c1' },
    ]);
    expect(sent).toEqual(['bob@acme.example']);
    const stitched = expectSoundTrace(tracer) && tracer.stitched();
    const calls = stitched.messages.flatMap((message) => message.tool_calls);
    const byRecipient = new Map(
      calls.map((call) => [
        (call.block.payload.arguments as { to: string }).to,
        call.results.map((result) => String(result.payload.output)),
      ]),
    );
    expect(byRecipient.get('bob@acme.example')).toEqual(['sent to bob@acme.example']);
    const refused = byRecipient.get('eve@evil.example') ?? [];
    expect(refused.length).toBeGreaterThan(0);
    for (const output of refused) expect(output).not.toContain('sent to');
  });
});
