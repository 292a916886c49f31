import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  createTracer,
  PolicyViolationError,
  parsePolicy,
  type Tracer,
  validateBlocks,
} from '@tracewarden/core';
import { comparableTrace } from '@tracewarden/core/testing';
import { executeToolCalls, wrapOpenAI } from '@tracewarden/openai';
import { emailAgent, startScriptedServer } from '@tracewarden/testing';
import {
  generateText,
  isStepCount,
  jsonSchema,
  streamText,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { guardTools, tracewardenMiddleware, tracewardenTelemetry } from './index.js';

type Mode = 'throw' | 'refuse';

interface Run {
  tracer: Tracer;
  sent: unknown[];
  blocked: boolean;
}

function implementations(sent: unknown[]) {
  return {
    get_inbox: () => emailAgent.inbox,
    send_email: (args: Record<string, unknown>) => {
      sent.push(args);
      return { sent: true, to: args.to };
    },
  };
}

/** The story through `wrapOpenAI` and `executeToolCalls`, the reference. */
async function viaOpenAI(mode: Mode): Promise<Run> {
  await using server = await startScriptedServer({ turns: [...emailAgent.turns] });
  const tracer = createTracer();
  const sent: unknown[] = [];
  const openai = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }), {
    tracer,
    policy: parsePolicy(emailAgent.policy),
    onPolicyViolation: mode,
  });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: emailAgent.system },
    { role: 'user', content: emailAgent.user },
  ];
  const tools = emailAgent.tools.map((definition) => ({
    type: 'function' as const,
    function: {
      name: definition.name,
      description: definition.description,
      parameters: definition.parameters,
    },
  }));
  let blocked = false;
  for (let step = 0; step < 4; step++) {
    let message: OpenAI.Chat.Completions.ChatCompletionMessage;
    try {
      const completion = await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        tools,
      });
      message = completion.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage;
    } catch (error) {
      if (!(error instanceof PolicyViolationError)) throw error;
      blocked = true;
      break;
    }
    messages.push(message);
    if (!message.tool_calls?.length) break;
    messages.push(...(await executeToolCalls(message, implementations(sent) as never, { tracer })));
  }
  return { tracer, sent, blocked };
}

interface AiSdkMode {
  mode: Mode;
  stream: boolean;
  guarded: boolean;
  telemetry: boolean;
}

/** The same story through the AI SDK adapter, the framework running the tools. */
async function viaAiSdk({ mode, stream, guarded, telemetry }: AiSdkMode): Promise<Run> {
  await using server = await startScriptedServer({ turns: [...emailAgent.turns] });
  const tracer = createTracer();
  const sent: unknown[] = [];
  const run = implementations(sent);
  const options = { tracer, policy: parsePolicy(emailAgent.policy), onPolicyViolation: mode };
  const provider = createOpenAICompatible({
    name: 'scripted',
    baseURL: server.url,
    apiKey: 'test',
    includeUsage: true,
  });
  let tools: ToolSet = {
    get_inbox: tool({
      description: emailAgent.tools[0]?.description ?? '',
      inputSchema: jsonSchema<Record<string, unknown>>(emailAgent.tools[0]?.parameters as never),
      execute: async () => run.get_inbox(),
    }),
    send_email: tool({
      description: emailAgent.tools[1]?.description ?? '',
      inputSchema: jsonSchema<Record<string, unknown>>(emailAgent.tools[1]?.parameters as never),
      execute: async (args: Record<string, unknown>) => run.send_email(args),
    }),
  };
  if (guarded) tools = guardTools(tools, { tracer });
  const call = {
    model: telemetry
      ? provider('gpt-4o-mini')
      : wrapLanguageModel({
          model: provider('gpt-4o-mini'),
          middleware: tracewardenMiddleware(options),
        }),
    instructions: emailAgent.system,
    prompt: emailAgent.user,
    tools,
    stopWhen: isStepCount(4),
    maxRetries: 0,
    ...(telemetry ? { telemetry: { integrations: [tracewardenTelemetry(options)] } } : {}),
  };
  let blocked = false;
  try {
    if (stream) {
      let failure: unknown;
      const result = streamText({
        ...call,
        onError: ({ error }) => {
          failure ??= error;
        },
      });
      await result.consumeStream();
      if (failure !== undefined) throw failure;
      // a stream the policy stopped rejects its results
      await result.text;
    } else await generateText(call);
  } catch (error) {
    if (!PolicyViolationError.isInstance(error)) throw error;
    blocked = true;
  }
  return { tracer, sent, blocked };
}

function expectSound(run: Run): void {
  const report = validateBlocks(run.tracer.blocks());
  expect(report.errors).toEqual([]);
  expect(comparableTrace(run.tracer.stitched()).orphans).toBe(0);
  expect(run.sent).toEqual([]);
}

describe('one conversation, one trace: wrapOpenAI and the AI SDK adapter', () => {
  const variants: Omit<AiSdkMode, 'mode'>[] = [
    { stream: false, guarded: false, telemetry: false },
    { stream: true, guarded: false, telemetry: false },
    { stream: false, guarded: true, telemetry: false },
    { stream: true, guarded: true, telemetry: false },
    { stream: false, guarded: false, telemetry: true },
    { stream: true, guarded: false, telemetry: true },
  ];
  for (const variant of variants) {
    const label = `${variant.telemetry ? 'telemetry' : 'middleware'}${variant.guarded ? ' + guardTools' : ''}${variant.stream ? ', streamed' : ''}`;
    it(`throw mode (${label}): the same stitched trace, send_email never runs`, async () => {
      const reference = await viaOpenAI('throw');
      const run = await viaAiSdk({ mode: 'throw', ...variant });
      expect(reference.blocked).toBe(true);
      expect(run.blocked).toBe(true);
      expectSound(reference);
      expectSound(run);
      expect(comparableTrace(run.tracer.stitched())).toEqual(
        comparableTrace(reference.tracer.stitched()),
      );
    });
  }

  for (const stream of [false, true]) {
    it(`refuse mode, plain tools${stream ? ', streamed' : ''}: the call is removed and refused, as with wrapOpenAI`, async () => {
      const reference = await viaOpenAI('refuse');
      const run = await viaAiSdk({ mode: 'refuse', stream, guarded: false, telemetry: false });
      expectSound(reference);
      expectSound(run);
      expect(comparableTrace(run.tracer.stitched())).toEqual(
        comparableTrace(reference.tracer.stitched()),
      );
    });
  }

  it('refuse mode with guardTools: the tool answers the refusal and the loop goes on to the report', async () => {
    const run = await viaAiSdk({ mode: 'refuse', stream: false, guarded: true, telemetry: false });
    expectSound(run);
    const trace = comparableTrace(run.tracer.stitched());
    expect(trace.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'assistant',
      'assistant',
    ]);
    const send = trace.messages[3]?.tool_calls[0];
    expect(send).toMatchObject({ name: 'send_email', blocked: true });
    expect(send?.results).toEqual([
      { output: expect.stringContaining('blocked by policy'), status: 'failure', refused: true },
    ]);
    expect(trace.messages[4]?.content).toContain('nothing was sent');
  });
});
