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
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { type Attachment, runAgent } from './__fixtures__/agent-harness.js';

type Mode = 'throw' | 'refuse';

interface Run {
  tracer: Tracer;
  sent: unknown[];
}

function tools(sent: unknown[]) {
  return emailAgent.tools.map((definition) => ({
    ...definition,
    execute: (args: Record<string, unknown>) => {
      if (definition.name === 'get_inbox') return emailAgent.inbox;
      sent.push(args);
      return { sent: true, to: args.to };
    },
  }));
}

/** The story through `wrapOpenAI` and `executeToolCalls`: the reference trace. */
async function viaOpenAI(): Promise<Run> {
  await using server = await startScriptedServer({ turns: [...emailAgent.turns] });
  const tracer = createTracer();
  const sent: unknown[] = [];
  const openai = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }), {
    tracer,
    policy: parsePolicy(emailAgent.policy),
  });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: emailAgent.system },
    { role: 'user', content: emailAgent.user },
  ];
  const implementations = Object.fromEntries(
    tools(sent).map((tool) => [tool.name, (args: Record<string, unknown>) => tool.execute(args)]),
  );
  for (let step = 0; step < 4; step++) {
    let message: OpenAI.Chat.Completions.ChatCompletionMessage;
    try {
      const completion = await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        tools: emailAgent.tools.map((definition) => ({
          type: 'function' as const,
          function: definition,
        })),
      });
      message = completion.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage;
    } catch (error) {
      if (!(error instanceof PolicyViolationError)) throw error;
      break;
    }
    messages.push(message);
    if (!message.tool_calls?.length) break;
    messages.push(...(await executeToolCalls(message, implementations, { tracer })));
  }
  return { tracer, sent };
}

interface Variant {
  attachment: Attachment;
  guarded: boolean;
  preferStreaming: boolean;
}

/** The same story through a LangChain agent (`createAgent`, `ChatOpenAI`), the framework running the tools. */
async function viaLangChain(mode: Mode, variant: Variant): Promise<Run & { blocked: boolean }> {
  await using server = await startScriptedServer({ turns: [...emailAgent.turns] });
  const tracer = createTracer();
  const sent: unknown[] = [];
  let blocked = false;
  try {
    await runAgent({
      ...variant,
      baseURL: server.url,
      model: 'gpt-4o-mini',
      system: emailAgent.system,
      prompt: emailAgent.user,
      tools: tools(sent),
      options: { tracer, policy: parsePolicy(emailAgent.policy), onPolicyViolation: mode },
      maxSteps: 4,
    });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (!PolicyViolationError.isInstance(error) && !PolicyViolationError.isInstance(cause))
      throw error;
    blocked = true;
  }
  return { tracer, sent, blocked };
}

function expectSound(run: Run): void {
  expect(validateBlocks(run.tracer.blocks()).errors).toEqual([]);
  expect(comparableTrace(run.tracer.stitched()).orphans).toBe(0);
  expect(run.sent).toEqual([]);
}

const variants: Variant[] = [
  { attachment: 'handler', guarded: false, preferStreaming: false },
  { attachment: 'handler', guarded: true, preferStreaming: false },
  { attachment: 'handler', guarded: false, preferStreaming: true },
  { attachment: 'middleware', guarded: false, preferStreaming: false },
  { attachment: 'middleware', guarded: true, preferStreaming: false },
];

function label(variant: Variant): string {
  return `${variant.attachment}${variant.guarded ? ' + guardTools' : ''}${variant.preferStreaming ? ', streamed' : ''}`;
}

describe('one conversation, one trace: wrapOpenAI and the LangChain adapter (emailAgent)', () => {
  for (const variant of variants)
    it(`throw mode (${label(variant)}): the same stitched trace, send_email never runs`, async () => {
      const reference = await viaOpenAI();
      const run = await viaLangChain('throw', variant);
      expect(run.blocked).toBe(true);
      expectSound(reference);
      expectSound(run);
      expect(comparableTrace(run.tracer.stitched())).toEqual(
        comparableTrace(reference.tracer.stitched()),
      );
    });

  for (const variant of variants)
    it(`refuse mode (${label(variant)}): the tool answers the refusal and the agent goes on to the report`, async () => {
      const run = await viaLangChain('refuse', variant);
      expect(run.blocked).toBe(false);
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
