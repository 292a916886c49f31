import { createOpenAI } from '@ai-sdk/openai';
import { createMemorySink, createTracer, parsePolicy, validateBlocks } from '@tracewarden/core';
import { comparableTrace } from '@tracewarden/core/testing';
import { emailAgent, startScriptedServer } from '@tracewarden/testing';
import { generateText, isStepCount, jsonSchema, streamText, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { guardTools, tracewardenMiddleware } from './index.js';

describe('@ai-sdk/openai over real HTTP (chat completions and the Responses API)', () => {
  for (const api of ['chat', 'responses'] as const)
    for (const stream of [false, true])
      it(`${api}${stream ? ', streamed' : ''}: the email story is traced and the exfiltration refused`, async () => {
        await using server = await startScriptedServer({ turns: [...emailAgent.turns] });
        const tracer = createTracer();
        const sent: unknown[] = [];
        const openai = createOpenAI({ baseURL: server.url, apiKey: 'test' });
        const model = wrapLanguageModel({
          model: api === 'chat' ? openai.chat('gpt-4o-mini') : openai.responses('gpt-4o-mini'),
          middleware: tracewardenMiddleware({
            tracer,
            policy: parsePolicy(emailAgent.policy),
            onPolicyViolation: 'refuse',
          }),
        });
        const tools = guardTools(
          {
            get_inbox: tool({
              description: 'Reads the inbox.',
              inputSchema: jsonSchema<Record<string, never>>({
                type: 'object',
                properties: {},
                additionalProperties: false,
              }),
              execute: async () => emailAgent.inbox,
            }),
            send_email: tool({
              description: 'Sends an email.',
              inputSchema: jsonSchema<{ to: string; subject: string; body: string }>(
                emailAgent.tools[1]?.parameters as never,
              ),
              execute: async (args) => {
                sent.push(args);
                return 'sent';
              },
            }),
          },
          { tracer },
        );
        const options = {
          model,
          instructions: emailAgent.system,
          prompt: emailAgent.user,
          tools,
          stopWhen: isStepCount(5),
          maxRetries: 0,
        };
        let text: string;
        if (stream) {
          const result = streamText(options);
          await result.consumeStream();
          text = await result.text;
        } else text = (await generateText(options)).text;
        expect(sent).toEqual([]);
        expect(text).toContain('nothing was sent');
        const trace = comparableTrace(tracer.stitched());
        expect(trace.messages.map((message) => message.role)).toEqual([
          'system',
          'user',
          'assistant',
          'assistant',
          'assistant',
        ]);
        // the official chat API has no reasoning field (the scripted server's reasoning_content
        // is read by @ai-sdk/openai-compatible); the Responses API's reasoning summary is
        if (api === 'responses')
          expect(trace.messages[2]?.thinks.join('')).toContain('read the inbox');
        expect(trace.messages[2]?.tool_calls[0]).toMatchObject({
          call_id: 'call_inbox',
          name: 'get_inbox',
          results: [{ output: emailAgent.inbox, status: 'success' }],
        });
        expect(trace.messages[3]?.tool_calls[0]).toMatchObject({
          call_id: 'call_send',
          blocked: true,
          results: [{ status: 'failure', refused: true }],
        });
        const assistant = tracer
          .blocks()
          .find((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
        expect(assistant?.metadata).toMatchObject({
          provider: `openai.${api}`,
          status: 'success',
          usage: { input_tokens: 120, output_tokens: 18 },
          request_id: expect.stringMatching(/^req_/),
        });
        expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
        expect(trace.orphans).toBe(0);
      });
});

describe('@ai-sdk/openai over real HTTP: a request the provider refuses', () => {
  for (const stream of [false, true])
    it(`keeps the HTTP status and the request id of the failed call${stream ? ', streamed' : ''}`, async () => {
      await using server = await startScriptedServer({ turns: [{ fault: 429 }, { fault: 400 }] });
      const tracer = createTracer();
      const model = wrapLanguageModel({
        model: createOpenAI({ baseURL: server.url, apiKey: 'test' }).chat('gpt-4o-mini'),
        middleware: tracewardenMiddleware({ tracer, pricing: false }),
      });
      for (const prompt of ['first', 'second']) {
        const call = stream
          ? streamText({ model, prompt, maxRetries: 0, onError: () => undefined }).consumeStream()
          : generateText({ model, prompt, maxRetries: 0 });
        await Promise.resolve(call).catch(() => undefined);
      }
      const failed = tracer
        .blocks()
        .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
      expect(failed.map((block) => block.metadata.status)).toEqual(['failure', 'failure']);
      expect(
        failed.map((block) => (block.metadata.error as { status?: unknown } | undefined)?.status),
      ).toEqual([429, 400]);
      expect(failed.map((block) => block.metadata.request_id)).toEqual(
        server.requests.map((request) => request.requestId),
      );
      expect(validateBlocks(tracer.blocks()).ok).toBe(true);
    });
});

describe('@ai-sdk/openai over real HTTP: a stream that does not finish', () => {
  it('keeps the request id of a stream the caller aborts, and of one the server drops', async () => {
    await using server = await startScriptedServer({
      turns: [
        { text: 'one two three four five six seven eight nine ten' },
        {
          text: 'a long answer that never ends',
          fault: { type: 'drop-mid-stream', afterChunks: 2 },
        },
      ],
    });
    const tracer = createTracer();
    const model = wrapLanguageModel({
      model: createOpenAI({ baseURL: server.url, apiKey: 'test' }).chat('gpt-4o-mini'),
      middleware: tracewardenMiddleware({ tracer, pricing: false }),
    });
    const stop = new AbortController();
    const first = streamText({
      model,
      prompt: 'first',
      maxRetries: 0,
      abortSignal: stop.signal,
      onError: () => undefined,
    });
    for await (const _ of first.textStream) stop.abort();
    await Promise.resolve(
      streamText({
        model,
        prompt: 'second',
        maxRetries: 0,
        onError: () => undefined,
      }).consumeStream(),
    ).catch(() => undefined);
    await tracer.flush();
    const answers = tracer
      .blocks()
      .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
    expect(answers.map((block) => block.metadata.status)).toEqual(['cancelled', 'failure']);
    expect(answers.map((block) => block.metadata.request_id)).toEqual(
      server.requests.map((request) => request.requestId),
    );
    expect(server.requests.map((request) => request.requestId)).toEqual([
      expect.stringMatching(/^req_/),
      expect.stringMatching(/^req_/),
    ]);
  });
});

describe('@ai-sdk/openai over real HTTP: a reader that breaks out of textStream', () => {
  it('leaves the call open (the AI SDK keeps reading nothing), and the tracer’s shutdown records it as cancelled with its text so far', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'one two three four five six seven eight nine ten '.repeat(40) }],
    });
    const sink = createMemorySink();
    const tracer = createTracer({ sinks: [sink] });
    const model = wrapLanguageModel({
      model: createOpenAI({ baseURL: server.url, apiKey: 'test' }).chat('gpt-4o-mini'),
      middleware: tracewardenMiddleware({ tracer, pricing: false }),
    });
    let first = '';
    for await (const text of streamText({ model, prompt: 'count', maxRetries: 0 }).textStream) {
      first = text;
      break;
    }
    await tracer.shutdown();
    const answers = sink.blocks.filter(
      (block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant',
    );
    expect(answers).toHaveLength(1);
    expect(answers[0]?.metadata).toMatchObject({
      status: 'cancelled',
      ended_by: 'tracer_shutdown',
      request_id: server.requests[0]?.requestId,
    });
    expect(String(answers[0]?.payload.content)).toMatch(new RegExp(`^${first}`));
    expect(validateBlocks(sink.blocks).errors).toEqual([]);
  });
});
