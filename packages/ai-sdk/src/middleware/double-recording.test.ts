import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import {
  createTracer,
  parsePolicy,
  type Tracer,
  validateBlocks,
  withTrace,
} from '@tracewarden/core';
import { comparableTrace } from '@tracewarden/core/testing';
import {
  generateText,
  isStepCount,
  simulateReadableStream,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type Step, scriptedModel, usage } from '../__fixtures__/mock-model.js';
import { tracewardenMiddleware, tracewardenTelemetry } from '../index.js';

const policy = parsePolicy(`
raise "no deleting" if:
    (call: ToolCall)
    call is tool:delete_all
`);

const tools = () => ({
  weather: tool({
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, tempC: 15 }),
  }),
  delete_all: tool({ inputSchema: z.object({}), execute: async () => 'deleted' }),
});

const steps = (): Step[] => [
  { calls: [{ id: 'c1', name: 'weather', input: { city: 'Paris' } }] },
  { calls: [{ id: 'c2', name: 'delete_all', input: {} }] },
  { text: 'done' },
];

const codes = (warn: { mock: { calls: unknown[][] } }) =>
  warn.mock.calls.map(([, options]) => (options as { code?: string } | undefined)?.code);

function expectSound(tracer: Tracer): void {
  expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  expect(comparableTrace(tracer.stitched()).orphans).toBe(0);
}

const subTypes = (tracer: Tracer) => tracer.blocks().map((block) => block.sub_type);

describe('an enforcing middleware and the telemetry integration on one trace', () => {
  afterEach(() => vi.restoreAllMocks());

  for (const stream of [false, true])
    it(`records each call once in the shared trace, and the policy still holds (${stream ? 'streamText' : 'generateText'})`, async () => {
      const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      for (const share of ['tracer', 'withTrace'] as const) {
        const shared = createTracer();
        const middleware = tracewardenMiddleware({
          ...(share === 'tracer' ? { tracer: shared } : {}),
          policy,
          onPolicyViolation: 'refuse',
          pricing: false,
        });
        const options = {
          model: wrapLanguageModel({ model: scriptedModel(steps()), middleware }),
          tools: tools(),
          prompt: 'go',
          stopWhen: isStepCount(4),
          telemetry: {
            integrations: [
              tracewardenTelemetry(
                share === 'tracer' ? { tracer: shared, pricing: false } : { pricing: false },
              ),
            ],
          },
        };
        const run = async () =>
          stream ? await streamText(options).text : (await generateText(options)).text;
        const text = await (share === 'tracer' ? run() : withTrace(shared, run));
        expect(text).toBe('done');
        // one MESSAGE per model call, one TOOL_CALL per call (it was 2 of each)
        expect(subTypes(shared)).toEqual([
          'MESSAGE',
          'MESSAGE',
          'TOOL_CALL',
          'TOOL_RESULT',
          'MESSAGE',
          'TOOL_CALL',
          'TOOL_RESULT',
          'MESSAGE',
        ]);
        const results = shared.blocks().filter((block) => block.sub_type === 'TOOL_RESULT');
        expect(results.map((block) => block.payload)).toMatchObject([
          { call_id: 'c1', output: { city: 'Paris', tempC: 15 } },
          { call_id: 'c2', output: expect.stringContaining('blocked by policy: no deleting') },
        ]);
        // the shared trace shows the blocked call with its verdict, as the middleware alone does
        expect(shared.findToolCall('c2')?.metadata).toMatchObject({
          policy: 'block',
          violations: [{ message: 'no deleting', action: 'block' }],
        });
        expect(results[1]?.metadata).toMatchObject({ status: 'failure', refused: true });
        expect(shared.findToolCall('c1')?.metadata).not.toHaveProperty('policy');
        expect(shared.blocks()[4]?.metadata).toMatchObject({
          policy: { mode: 'refuse', blocked: ['c2'], flagged: ['c2'] },
        });
        expectSound(shared);
      }
      expect(codes(warn)).not.toContain('TRACEWARDEN_DOUBLE_RECORDING');
      expect(codes(warn)).not.toContain('TRACEWARDEN_AMBIGUOUS_CALL_ID');
    });

  it('two concurrent conversations, each in its own withTrace: each trace holds its own calls once, and the policy holds in each', async () => {
    const secretPolicy = parsePolicy(`
raise "secret mailed" if:
    (out: ToolOutput) -> (call: ToolCall)
    "SECRET" in out.content
    call is tool:send_email
`);
    const middleware = tracewardenMiddleware({
      policy: secretPolicy,
      onPolicyViolation: 'refuse',
      pricing: false,
    });
    const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const sent: string[] = [];
    const run = (who: 'secret' | 'plain', inbox: string, wait: number) => {
      const tracer = createTracer();
      const text = withTrace(tracer, async () => {
        const result = await generateText({
          model: wrapLanguageModel({
            model: scriptedModel([
              { calls: [{ id: 'c1', name: 'read_inbox', input: {} }] },
              { calls: [{ id: 'c2', name: 'send_email', input: { body: who } }] },
              { text: `done ${who}` },
            ]),
            middleware,
          }),
          tools: {
            read_inbox: tool({
              inputSchema: z.object({}),
              execute: async () => {
                await delay(wait);
                return inbox;
              },
            }),
            send_email: tool({
              inputSchema: z.object({ body: z.string() }),
              execute: async ({ body }) => {
                sent.push(body);
                return 'sent';
              },
            }),
          },
          prompt: `mail ${who}`,
          stopWhen: isStepCount(4),
          telemetry: { integrations: [tracewardenTelemetry({ pricing: false })] },
        });
        return result.text;
      });
      return { tracer, text };
    };
    // the secret conversation's inbox answers last, so the two interleave
    const secret = run('secret', 'SECRET plans', 30);
    const plain = run('plain', 'lunch at noon', 5);
    expect(await Promise.all([secret.text, plain.text])).toEqual(['done secret', 'done plain']);
    expect(sent).toEqual(['plain']);
    for (const [{ tracer }, who, inbox, mailed] of [
      [
        secret,
        'secret',
        'SECRET plans',
        expect.stringContaining('blocked by policy: secret mailed'),
      ],
      [plain, 'plain', 'lunch at noon', 'sent'],
    ] as const) {
      expect(subTypes(tracer)).toEqual([
        'MESSAGE',
        'MESSAGE',
        'TOOL_CALL',
        'TOOL_RESULT',
        'MESSAGE',
        'TOOL_CALL',
        'TOOL_RESULT',
        'MESSAGE',
      ]);
      expect(tracer.blocks()[0]?.payload.content).toBe(`mail ${who}`);
      const results = tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT');
      expect(results.map((block) => block.payload)).toMatchObject([
        { call_id: 'c1', output: inbox },
        { call_id: 'c2', output: mailed },
      ]);
    }
  });

  for (const stream of [false, true])
    it(`'throw' still rejects; the shared trace holds the rejected answer as the middleware alone records it: a call that succeeded, its call blocked (${stream ? 'streamText' : 'generateText'})`, async () => {
      const run = async (shareWithTelemetry: boolean) => {
        const tracer = createTracer();
        const options = {
          model: wrapLanguageModel({
            model: scriptedModel(steps()),
            middleware: tracewardenMiddleware({ tracer, policy, pricing: false }),
          }),
          tools: tools(),
          prompt: 'go',
          stopWhen: isStepCount(4),
          ...(shareWithTelemetry
            ? { telemetry: { integrations: [tracewardenTelemetry({ tracer, pricing: false })] } }
            : {}),
        };
        await expect(
          stream ? streamText(options).text : generateText(options),
        ).rejects.toMatchObject({ code: 'POLICY_VIOLATION' });
        expectSound(tracer);
        return tracer;
      };
      const alone = await run(false);
      const shared = await run(true);
      expect(subTypes(shared)).toEqual([
        'MESSAGE',
        'MESSAGE',
        'TOOL_CALL',
        'TOOL_RESULT',
        'MESSAGE',
        'TOOL_CALL',
      ]);
      expect(shared.blocks().at(-2)?.metadata).toMatchObject({
        status: 'success',
        usage: { input_tokens: expect.any(Number) },
        policy: { mode: 'throw', blocked: ['c2'] },
      });
      expect(shared.blocks().at(-2)?.metadata.error).toBeUndefined();
      expect(shared.findToolCall('c2')?.metadata).toMatchObject({
        policy: 'block',
        violations: [{ message: 'no deleting' }],
      });
      expect(comparableTrace(shared.stitched())).toEqual(comparableTrace(alone.stitched()));
    });

  it("'refuse' with a tool the SDK does not run (no execute): the removed call is in the shared trace with its refusal", async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const shared = createTracer();
    const result = await generateText({
      model: wrapLanguageModel({
        model: scriptedModel(steps()),
        middleware: tracewardenMiddleware({
          policy,
          onPolicyViolation: 'refuse',
          pricing: false,
        }),
      }),
      tools: {
        weather: tools().weather,
        // a client-side tool: the SDK hands its calls back instead of running them
        delete_all: tool({ inputSchema: z.object({}) }),
      },
      prompt: 'go',
      stopWhen: isStepCount(4),
      telemetry: { integrations: [tracewardenTelemetry({ tracer: shared, pricing: false })] },
    });
    expect(codes(warn)).toContain('TRACEWARDEN_REFUSE_ENDS_LOOP');
    // the blocked call was removed from the answer, so the loop ended there
    expect(result.text).toContain('blocked by policy: no deleting');
    expect(result.steps).toHaveLength(2);
    expect(result.steps[1]?.toolCalls).toEqual([]);
    expect(subTypes(shared)).toEqual([
      'MESSAGE',
      'MESSAGE',
      'TOOL_CALL',
      'TOOL_RESULT',
      'MESSAGE',
      'TOOL_CALL',
      'TOOL_RESULT',
    ]);
    expect(shared.findToolCall('c2')?.metadata).toMatchObject({
      policy: 'block',
      violations: [{ message: 'no deleting' }],
    });
    expect(shared.blocks().at(-1)?.metadata).toMatchObject({ refused: true, policy: 'block' });
    expectSound(shared);
  });

  it("a guard of the middleware that stops a call gives the shared trace the guard's status (timeout, rate limit, budget cut-off), not failure", async () => {
    const statuses = (tracer: Tracer) =>
      tracer
        .blocks()
        .filter((block) => block.payload.role === 'assistant')
        .map((block) => block.metadata.status);
    const telemetry = (tracer: Tracer) => ({
      integrations: [tracewardenTelemetry({ tracer, pricing: false })],
    });
    // a provider that answers only when aborted
    const slow = new MockLanguageModelV4({
      doGenerate: ({ abortSignal }) =>
        new Promise((_resolve, reject) =>
          abortSignal?.addEventListener('abort', () => reject(abortSignal.reason)),
        ),
    });
    const timedOut = createTracer();
    await expect(
      generateText({
        model: wrapLanguageModel({
          model: slow,
          middleware: tracewardenMiddleware({ tracer: timedOut, timeoutSeconds: 0.05 }),
        }),
        prompt: 'go',
        maxRetries: 0,
        telemetry: telemetry(timedOut),
      }),
    ).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(statuses(timedOut)).toEqual(['timeout']);

    const limited = createTracer();
    const model = wrapLanguageModel({
      model: scriptedModel([{ text: 'one' }, { text: 'two' }]),
      middleware: tracewardenMiddleware({
        tracer: limited,
        pricing: false,
        guards: { rateLimit: { callsPerSecond: 0.001, burst: 1 } },
      }),
    });
    await generateText({ model, prompt: 'go', telemetry: telemetry(limited) });
    await expect(
      generateText({ model, prompt: 'again', maxRetries: 0, telemetry: telemetry(limited) }),
    ).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(statuses(limited)).toEqual(['success', 'rate_limited']);

    const cut = createTracer();
    const chunks: LanguageModelV4StreamPart[] = [{ type: 'text-start', id: 't' }];
    for (let i = 0; i < 50; i++)
      chunks.push({ type: 'text-delta', id: 't', delta: 'x'.repeat(400) });
    chunks.push(
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
    );
    const result = streamText({
      model: wrapLanguageModel({
        model: new MockLanguageModelV4({
          doStream: async () => ({ stream: simulateReadableStream({ chunks }) }),
        }),
        middleware: tracewardenMiddleware({
          tracer: cut,
          pricing: { overrides: { 'mock-model-id': [0, 1000] } },
          guards: { budget: { maxCostPerCall: 0.5 } },
        }),
      }),
      prompt: 'go',
      telemetry: telemetry(cut),
    });
    let error: unknown;
    try {
      for await (const part of result.fullStream) if (part.type === 'error') error = part.error;
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect(statuses(cut)).toEqual(['budget_exceeded']);
  });

  it('a middleware given a tracer of its own still records there', async () => {
    const own = createTracer();
    const shared = createTracer();
    await generateText({
      model: wrapLanguageModel({
        model: scriptedModel([{ text: 'ok' }]),
        middleware: tracewardenMiddleware({ tracer: own, policy, pricing: false }),
      }),
      prompt: 'go',
      telemetry: { integrations: [tracewardenTelemetry({ tracer: shared, pricing: false })] },
    });
    expect(subTypes(own)).toEqual(['MESSAGE', 'MESSAGE']);
    expect(subTypes(shared)).toEqual(['MESSAGE', 'MESSAGE']);
  });
});

describe('tracewardenMiddleware twice on one model', () => {
  afterEach(() => vi.restoreAllMocks());

  it('says once that each call is recorded twice into the trace (generateText and streamText); one middleware says nothing', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const tracer = createTracer();
    const once = wrapLanguageModel({
      model: scriptedModel([{ text: 'one' }, { text: 'two' }]),
      middleware: tracewardenMiddleware({ tracer, pricing: false }),
    });
    await generateText({ model: once, prompt: 'go' });
    await streamText({ model: once, prompt: 'go on' }).text;
    // a cache inside the middleware answers a repeated prompt with the same result object:
    // each call is recorded once, nothing to say
    const cache = new Map<string, LanguageModelV4GenerateResult>();
    const cached = wrapLanguageModel({
      model: scriptedModel([{ text: 'cached' }]),
      middleware: [
        tracewardenMiddleware({ tracer, pricing: false }),
        {
          specificationVersion: 'v4',
          wrapGenerate: async ({ doGenerate, params }) => {
            const key = JSON.stringify(params.prompt);
            const hit = cache.get(key) ?? (await doGenerate());
            cache.set(key, hit);
            return hit;
          },
        },
      ],
    });
    await generateText({ model: cached, prompt: 'same' });
    await generateText({ model: cached, prompt: 'same' });
    expect(codes(warn)).not.toContain('TRACEWARDEN_DOUBLE_RECORDING');
    // streamed and generated calls are marked apart: each says so on its own (the warning is
    // once per process, so each runs in a fresh copy of the package)
    for (const [index, stream] of [true, false].entries()) {
      vi.resetModules();
      const fresh = await import('../index.js');
      const twice = wrapLanguageModel({
        model: scriptedModel([{ text: 'three' }, { text: 'four' }]),
        middleware: [
          fresh.tracewardenMiddleware({ tracer, pricing: false }),
          fresh.tracewardenMiddleware({ tracer, policy, pricing: false }),
        ],
      });
      if (stream) await streamText({ model: twice, prompt: 'again' }).text;
      else await generateText({ model: twice, prompt: 'again' });
      expect(codes(warn).filter((code) => code === 'TRACEWARDEN_DOUBLE_RECORDING')).toHaveLength(
        index + 1,
      );
      // said once: a second call says nothing more
      if (stream) await streamText({ model: twice, prompt: 'and again' }).text;
      else await generateText({ model: twice, prompt: 'and again' });
      expect(codes(warn).filter((code) => code === 'TRACEWARDEN_DOUBLE_RECORDING')).toHaveLength(
        index + 1,
      );
    }
  });
});
