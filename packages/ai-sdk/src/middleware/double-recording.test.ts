import { createTracer, parsePolicy, type Tracer, withTrace } from '@tracewarden/core';
import { generateText, isStepCount, streamText, tool, wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type Step, scriptedModel } from '../__fixtures__/mock-model.js';
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

  it("'throw' still rejects; the shared trace keeps the failed call once", async () => {
    const shared = createTracer();
    const run = generateText({
      model: wrapLanguageModel({
        model: scriptedModel(steps()),
        middleware: tracewardenMiddleware({ tracer: shared, policy, pricing: false }),
      }),
      tools: tools(),
      prompt: 'go',
      stopWhen: isStepCount(4),
      telemetry: { integrations: [tracewardenTelemetry({ tracer: shared, pricing: false })] },
    });
    await expect(run).rejects.toMatchObject({ code: 'POLICY_VIOLATION' });
    expect(subTypes(shared)).toEqual(['MESSAGE', 'MESSAGE', 'TOOL_CALL', 'TOOL_RESULT', 'MESSAGE']);
    expect(shared.blocks().at(-1)?.metadata).toMatchObject({
      status: 'failure',
      error: { code: 'POLICY_VIOLATION' },
    });
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
