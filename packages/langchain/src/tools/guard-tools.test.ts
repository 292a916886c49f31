import { HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { StructuredTool, tool } from '@langchain/core/tools';
import {
  ConfigurationError,
  createTracer,
  PolicyViolationError,
  parsePolicy,
  RateLimitedError,
  withTrace,
} from '@tracewarden/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expectSoundTrace } from '../__fixtures__/trace-checks.js';
import { aiMessage, ran, sendEmail, weather } from '../__fixtures__/weather-tools.js';
import { TracewardenCallbackHandler } from '../handler/index.js';
import { guardTool, guardTools } from './guard-tools.js';

class Calculator extends StructuredTool {
  name = 'calculator';
  description = 'Adds two numbers';
  schema = z.object({ a: z.number(), b: z.number() });
  async _call({ a, b }: { a: number; b: number }): Promise<string> {
    return String(a + b);
  }
}

beforeEach(() => {
  ran.length = 0;
});

function weatherCall(id: string) {
  return { name: 'weather', args: { city: 'Paris' }, id, type: 'tool_call' as const };
}

describe('guardTool', () => {
  it('keeps name, description, schema and behaviour', async () => {
    const guarded = guardTool(weather);
    expect(guarded.name).toBe('weather');
    expect(guarded.description).toBe(weather.description);
    expect(guarded.schema).toBe(weather.schema);
    expect(guarded).toBeInstanceOf(StructuredTool);
    expect(await guarded.invoke({ city: 'Rome' })).toBe('Sunny in Rome');
    const message = (await guarded.invoke(weatherCall('call_w'))) as ToolMessage;
    expect(message.content).toBe('Sunny in Paris');
    expect(message.tool_call_id).toBe('call_w');
  });

  it('guards a StructuredTool subclass', async () => {
    const guarded = guardTool(new Calculator());
    expect(await guarded.invoke({ a: 2, b: 3 })).toBe('5');
  });

  it('answers a guard refusal with an error ToolMessage the model reads, or throws', async () => {
    const limited = guardTool(weather, {
      rateLimit: { callsPerMinute: 1, burst: 1, sharedKey: 'guard-tools-test-message' },
    });
    expect(((await limited.invoke(weatherCall('c1'))) as ToolMessage).status).toBe('success');
    const refused = (await limited.invoke(weatherCall('c2'))) as ToolMessage;
    expect(refused.status).toBe('error');
    expect(refused.tool_call_id).toBe('c2');
    expect(String(refused.content)).toMatch(/^Error: .*rate limit/i);
    const throwing = guardTool(weather, {
      rateLimit: { callsPerMinute: 1, burst: 1, sharedKey: 'guard-tools-test-throw' },
      onGuardError: 'throw',
    });
    await throwing.invoke(weatherCall('c3'));
    await expect(throwing.invoke(weatherCall('c4'))).rejects.toBeInstanceOf(RateLimitedError);
    expect(ran).toEqual(['weather:Paris', 'weather:Paris']);
  });

  it("lets the tool's own errors through", async () => {
    const failing = guardTool(
      tool(
        async () => {
          throw new Error('boom');
        },
        { name: 'boom', description: 'fails', schema: z.object({}) },
      ),
    );
    await expect(
      failing.invoke({ name: 'boom', args: {}, id: 'b1', type: 'tool_call' }),
    ).rejects.toThrow('boom');
  });

  it('records its TOOL_RESULT under the model TOOL_CALL with the guard decisions', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const [guardedWeather] = guardTools([weather], { retry: { maxRetries: 1, initialDelay: 0 } });
    const model = fakeModel().respond(
      aiMessage({ content: '', tool_calls: [weatherCall('call_g')] }),
    );
    const answer = await model.invoke([new HumanMessage('Weather?')], { callbacks: [handler] });
    await guardedWeather.invoke(answer.tool_calls![0]!, { callbacks: [handler] });
    const blocks = expectSoundTrace(tracer);
    expect(blocks.filter((block) => block.sub_type === 'TOOL_CALL')).toHaveLength(1);
    const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results).toHaveLength(1);
    expect(results[0]?.payload.call_id).toBe('call_g');
    expect(results[0]?.metadata).toMatchObject({
      status: 'success',
      retry_count: 0,
      guard: { attempts: [{ attempt: 1, outcome: 'success' }] },
    });
  });

  it('records a content-and-artifact tool as the model reads it: content as output, artifact in extra', async () => {
    const search = tool(async ({ q }) => [`found ${q}`, { hits: [q] }], {
      name: 'search',
      description: 'Searches.',
      schema: z.object({ q: z.string() }),
      responseFormat: 'content_and_artifact',
    });
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const [guardedSearch] = guardTools([search], { retry: { maxRetries: 1, initialDelay: 0 } });
    const model = fakeModel().respond(
      aiMessage({
        content: '',
        tool_calls: [{ name: 'search', args: { q: 'b' }, id: 'call_s', type: 'tool_call' }],
      }),
    );
    const answer = await model.invoke([new HumanMessage('Search')], { callbacks: [handler] });
    const message = (await guardedSearch.invoke(answer.tool_calls![0]!, {
      callbacks: [handler],
    })) as ToolMessage;
    expect(message.content).toBe('found b');
    expect(message.artifact).toEqual({ hits: ['b'] });
    const results = expectSoundTrace(tracer).filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results).toHaveLength(1);
    expect(results[0]?.payload.output).toBe('found b');
    expect(results[0]?.extra).toEqual({ artifact: { hits: ['b'] } });
    expect(results[0]?.metadata).toMatchObject({ status: 'success', tool_name: 'search' });
  });

  it('records a run of a call without an id ("") under the waiting call, with the guard decisions', async () => {
    const tracer = createTracer();
    const message = tracer.logMessage({ role: 'assistant', content: null });
    tracer.logAct({
      parent_block_id: message.id,
      payload: { call_id: 'call_generated_1', name: 'weather', arguments: { city: 'Paris' } },
    });
    const [guardedWeather] = guardTools([weather], { retry: { maxRetries: 1, initialDelay: 0 } });
    // a Gemini-backed model gives its calls the id ""
    await withTrace(tracer, () =>
      guardedWeather.invoke({
        id: '',
        name: 'weather',
        args: { city: 'Paris' },
        type: 'tool_call',
      }),
    );
    const results = tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results).toHaveLength(1);
    expect(results[0]?.payload).toMatchObject({ call_id: 'call_generated_1' });
    expect(results[0]?.metadata).toMatchObject({ status: 'success', retry_count: 0 });
    expectSoundTrace(tracer);
  });

  it('answers a call the policy refused (refuse mode) without running it', async () => {
    const tracer = createTracer();
    const policy = parsePolicy(`
raise "no mail" if:
    (call: ToolCall)
    call is tool:send_email
`);
    const handler = new TracewardenCallbackHandler({
      tracer,
      policy,
      onPolicyViolation: 'refuse',
      pricing: false,
    });
    const guardedMail = guardTool(sendEmail);
    const model = fakeModel().respond(
      aiMessage({
        content: '',
        tool_calls: [
          {
            name: 'send_email',
            args: { to: 'x@evil.com', body: 'b' },
            id: 'call_m',
            type: 'tool_call',
          },
        ],
      }),
    );
    const answer = await model.invoke([new HumanMessage('Mail')], { callbacks: [handler] });
    // without the handler on the tool run, the guarded tool itself answers the refusal
    const message = (await withTrace(tracer, () =>
      guardedMail.invoke(answer.tool_calls![0]!),
    )) as ToolMessage;
    expect(message.status).toBe('error');
    expect(String(message.content)).toContain('blocked by policy');
    expect(ran).toEqual([]);
    expectSoundTrace(tracer);
  });

  it("names guardTool() in errors about a guardTool() call's options, not guardTools()", () => {
    for (const options of [{ timout: 1 }, { timeout: '5s' }]) {
      let message = '';
      try {
        guardTool(weather, options as never);
      } catch (error) {
        expect((error as { code?: string }).code).toBe('INVALID_OPTIONS');
        message = (error as Error).message;
      }
      expect(message).toContain('guardTool()');
      expect(message).not.toContain('guardTools()');
    }
  });

  it('rejects what is not a tool, duplicate names and bad options with INVALID_OPTIONS', () => {
    for (const attempt of [
      () => guardTools([{ name: 'x' }] as never),
      () => guardTools([weather, weather]),
      () => guardTool(weather, { onGuardError: 'ignore' } as never),
      () => guardTool(weather, { retri: {} } as never),
      () => guardTool(weather, { policy: {} as never }),
      () => guardTool(weather, { onPolicyViolation: 'ignore' } as never),
      () => guardTool(weather, { refusalMessage: 'no' } as never),
      () => guardTools([weather], null as never),
      () => guardTool(weather, 'retry' as never),
      // per-tool options are guardTools()'s: guardTool() would silently apply them
      () => guardTool(weather, { tools: { weather: { retry: { maxRetries: 1 } } } } as never),
      // what to do about a policy's block, with no policy
      () => guardTools([weather], { onPolicyViolation: 'refuse' }),
      () => guardTools([weather], { refusalMessage: () => 'no' }),
      // per-tool options that are no options object
      () => guardTools([weather], { tools: { weather: null } } as never),
      () => guardTools([weather], { tools: { weather: 5 } } as never),
      () => guardTools([weather], { tools: { weather: 'retry' } } as never),
    ]) {
      expect(attempt).toThrow(ConfigurationError);
      try {
        attempt();
      } catch (error) {
        expect((error as ConfigurationError).code).toBe('INVALID_OPTIONS');
      }
    }
  });

  it('names the function the user called: guardTool(notATool) is not reported as tools[0]', () => {
    expect(() => guardTool({ name: 'x' } as never)).toThrow(/guardTool\(\).*\btool\b/);
    expect(() => guardTool({ name: 'x' } as never)).not.toThrow(/tools\[0\]/);
    expect(() => guardTools([weather, { name: 'x' }] as never)).toThrow(
      /guardTools\(\).*tools\[1\]/,
    );
  });
});

describe('guardTools and abort signals', () => {
  /** A tool that waits until its signal aborts, and says what signal it was given. */
  function waiting(seen: (AbortSignal | undefined)[]) {
    return tool(
      (_input: { city: string }, config) => {
        const signal = config?.signal;
        seen.push(signal);
        return new Promise<string>((resolve, reject) => {
          if (signal === undefined) return resolve('no signal');
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          setTimeout(() => resolve('finished'), 200);
        });
      },
      { name: 'slow_weather', description: 'Slow weather', schema: z.object({ city: z.string() }) },
    );
  }
  const slowCall = (id: string) => ({
    name: 'slow_weather',
    args: { city: 'Paris' },
    id,
    type: 'tool_call' as const,
  });

  it("aborts a timed tool's signal at the timeout (shared or per-tool options)", async () => {
    for (const options of [
      { timeout: { timeoutSeconds: 0.02 } },
      { tools: { slow_weather: { timeout: { timeoutSeconds: 0.02 } } } },
    ]) {
      const seen: (AbortSignal | undefined)[] = [];
      const [guarded] = guardTools([waiting(seen)], options);
      const message = (await guarded.invoke(slowCall('call_slow'))) as ToolMessage;
      expect(message.status).toBe('error');
      expect(seen).toHaveLength(1);
      expect(seen[0]?.aborted).toBe(true);
    }
  });

  it("hands an untimed tool the caller's own signal, so the caller's abort reaches it", async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const [guarded] = guardTools([waiting(seen)]);
    const controller = new AbortController();
    const pending = guarded.invoke(slowCall('call_abort'), { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(controller.signal);
  });
});

describe('guardTool with a policy: runs no model call proposed', () => {
  const outsideMail = parsePolicy(`
raise "no mail outside acme.example" if:
    (call: ToolCall)
    call is tool:send_email
    not match(r".*@acme\\.example$", call.function.arguments.to)
`);

  it('throws PolicyViolationError before the body runs for a plain invoke, recorded as a refused pair', async () => {
    const tracer = createTracer();
    const guardedMail = guardTool(sendEmail, { tracer, policy: outsideMail });
    const error = await guardedMail
      .invoke({ to: 'eve@evil.example', body: 'x' })
      .catch((caught: unknown) => caught);
    expect(PolicyViolationError.isInstance(error)).toBe(true);
    expect(ran).toEqual([]);
    const blocks = expectSoundTrace(tracer);
    const call = blocks.find((block) => block.sub_type === 'TOOL_CALL');
    expect(call?.metadata).toMatchObject({ unlinked: true, policy: 'block' });
    const result = blocks.find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.metadata).toMatchObject({ status: 'failure', refused: true });
  });

  it('answers a tool call whose id no TOOL_CALL has with an error ToolMessage in refuse mode', async () => {
    const tracer = createTracer();
    const guardedMail = guardTool(sendEmail, {
      tracer,
      policy: outsideMail,
      onPolicyViolation: 'refuse',
    });
    const message = (await guardedMail.invoke({
      type: 'tool_call',
      id: 'call_forged',
      name: 'send_email',
      args: { to: 'eve@evil.example', body: 'x' },
    })) as ToolMessage;
    expect(message.status).toBe('error');
    expect(String(message.content)).toContain('no mail outside acme.example');
    expect(ran).toEqual([]);
    const blocks = expectSoundTrace(tracer);
    expect(
      blocks.filter((block) => block.payload.call_id === 'call_forged').map((b) => b.sub_type),
    ).toEqual(['TOOL_CALL', 'TOOL_RESULT']);
  });

  it('runs an allowed call', async () => {
    const guardedMail = guardTool(sendEmail, { tracer: createTracer(), policy: outsideMail });
    expect(await guardedMail.invoke({ to: 'bob@acme.example', body: 'x' })).toEqual({
      sent: true,
      to: 'bob@acme.example',
    });
    expect(ran).toEqual(['send_email:bob@acme.example']);
  });

  it('checks the run the handler (without a policy) recorded as unlinked', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const guardedMail = guardTool(sendEmail, { policy: outsideMail });
    const error = await guardedMail
      .invoke({ to: 'eve@evil.example', body: 'x' }, { callbacks: [handler] })
      .catch((caught: unknown) => caught);
    await handler.flush();
    expect(PolicyViolationError.isInstance(error)).toBe(true);
    expect(ran).toEqual([]);
    const blocks = expectSoundTrace(tracer);
    expect(blocks.filter((block) => block.sub_type === 'TOOL_CALL')).toHaveLength(1);
    expect(blocks.filter((block) => block.sub_type === 'TOOL_RESULT')).toHaveLength(1);
  });
});

describe('a tool that returns an empty list', () => {
  function emptyModel(id: string) {
    return fakeModel()
      .respond(
        aiMessage({
          content: '',
          tool_calls: [{ name: 'inbox', args: {}, id, type: 'tool_call' }],
        }),
      )
      .respond(aiMessage({ content: 'No mail.' }));
  }
  const inbox = () =>
    tool(async () => [], { name: 'inbox', description: 'Unread mail', schema: z.object({}) });

  // LangChain takes the list for a ToolMessage with no content blocks, sent as empty content: the
  // plain tool's TOOL_RESULT (the handler's) holds the empty text, as wrapOpenAI records a tool
  // message with an empty list of parts
  for (const id of ['call_i', ''])
    it(`is recorded as the empty text the model reads, guarded or not${id === '' ? ' (a call without an id)' : ''}`, async () => {
      const outputs: unknown[] = [];
      for (const guarded of [false, true]) {
        const tracer = createTracer();
        const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
        const tools = guarded ? guardTools([inbox()]) : [inbox()];
        const model = emptyModel(id).bindTools(tools);
        const answer = await model.invoke([new HumanMessage('Mail?')], { callbacks: [handler] });
        const call = answer.tool_calls?.[0];
        const output = (await (tools[0] as ReturnType<typeof inbox>).invoke(call as never, {
          callbacks: [handler],
        })) as ToolMessage | unknown[];
        // the tool's own value is untouched: LangChain's ToolMessage still holds the list (a
        // call without an id gets no ToolMessage: the list itself)
        expect(Array.isArray(output) ? output : output.content).toEqual([]);
        await handler.flush();
        const blocks = expectSoundTrace(tracer);
        const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
        expect(results).toHaveLength(1);
        outputs.push(results[0]?.payload.output);
      }
      // a call without an id gets no ToolMessage: the tool's value, as the handler records it
      expect(outputs).toEqual(id === '' ? [[], []] : ['', '']);
    });

  it('a direct invoke (no tool call) returns and records the list itself', async () => {
    const tracer = createTracer();
    const guarded = guardTool(inbox(), { tracer });
    expect(await guarded.invoke({})).toEqual([]);
    const result = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload.output).toEqual([]);
  });
});
