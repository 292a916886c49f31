import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createTracer, guard, parsePolicy, type Tracer, validateBlocks } from '@tracewarden/core';
import { comparableTrace, parsedOutput } from '@tracewarden/core/testing';
import { executeToolCalls, wrapOpenAI } from '@tracewarden/openai';
import {
  type RandomConversation,
  randomConversation,
  startScriptedServer,
} from '@tracewarden/testing';
import {
  generateText,
  isStepCount,
  jsonSchema,
  streamText,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import fc from 'fast-check';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { guardTools, tracewardenMiddleware, tracewardenTelemetry } from './index.js';

type Conversation = RandomConversation;

interface Variant {
  stream: boolean;
  guarded: boolean;
  telemetry: boolean;
  /** A policy refuses every `record_note` call (refuse mode): some calls of a turn run, some not. */
  refuse?: boolean;
  /** Every call id is `""`, as Gemini-backed agents send them. */
  emptyIds?: boolean;
  /** The model is `@ai-sdk/openai`'s Responses API model (items, reasoning summaries). */
  responses?: boolean;
}

const noNotes = parsePolicy(`
raise "notes are not allowed" if:
    (call: ToolCall)
    call is tool:record_note
`);

function policyOptions(variant: Variant) {
  return variant.refuse === true ? { policy: noNotes, onPolicyViolation: 'refuse' as const } : {};
}

/** The reference: `wrapOpenAI` and `executeToolCalls`. */
async function viaOpenAI(story: Conversation, variant: Variant): Promise<Tracer> {
  const { stream, guarded } = variant;
  await using server = await startScriptedServer({ turns: [...story.turns] });
  const tracer = createTracer();
  const openai = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }), {
    tracer,
    ...policyOptions(variant),
  });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: story.system },
    { role: 'user', content: story.user },
  ];
  const tools = story.tools.map(({ name, description, parameters }) => ({
    type: 'function' as const,
    function: { name, description, parameters },
  }));
  const implementations = Object.fromEntries(
    story.tools.map(({ name }) => [
      name,
      guarded ? guard(story.runLater, { name }) : story.runLater,
    ]),
  );
  for (let step = 0; step < story.turns.length; step++) {
    let message: OpenAI.Chat.Completions.ChatCompletionMessage;
    if (stream) {
      const chunks = await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        tools,
        stream: true,
      });
      // the wrapped stream aggregates the answer; read it back from the trace's last assistant turn
      let content = '';
      const calls = new Map<number, { id: string; name: string; arguments: string }>();
      for await (const chunk of chunks) {
        const delta = chunk.choices[0]?.delta;
        if (delta?.content) content += delta.content;
        for (const call of delta?.tool_calls ?? []) {
          const known = calls.get(call.index) ?? { id: '', name: '', arguments: '' };
          known.id ||= call.id ?? '';
          known.name ||= call.function?.name ?? '';
          known.arguments += call.function?.arguments ?? '';
          calls.set(call.index, known);
        }
      }
      message = {
        role: 'assistant',
        content: content === '' ? null : content,
        refusal: null,
        ...(calls.size === 0
          ? {}
          : {
              tool_calls: [...calls.values()].map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }),
      };
    } else {
      const completion = await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        tools,
      });
      message = completion.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage;
    }
    messages.push(message);
    // every scripted turn is asked for: in refuse mode a turn whose calls were all refused has
    // none left, and the model reads the refusal in the next turn, as the AI SDK's loop goes on
    if (message.tool_calls?.length)
      messages.push(...(await executeToolCalls(message, implementations as never, { tracer })));
  }
  expectRecordedAsRead(tracer, messages);
  return tracer;
}

/**
 * Each TOOL_RESULT holds what the model read for its call: the tool message sent back, or, for a
 * call the policy refused (removed from the answer), the refusal appended to the assistant text.
 */
function expectRecordedAsRead(tracer: Tracer, messages: ChatCompletionMessageParam[]): void {
  const read = messages.flatMap((message) =>
    message.role === 'tool' ? [[message.tool_call_id, parsedOutput(message.content)]] : [],
  );
  const said = messages
    .flatMap((message) =>
      message.role === 'assistant' && typeof message.content === 'string' ? [message.content] : [],
    )
    .join('\n');
  const recorded: [string, unknown][] = [];
  for (const block of tracer.blocks()) {
    if (block.sub_type !== 'TOOL_RESULT') continue;
    if ((block.metadata as { refused?: unknown }).refused === true)
      expect(said).toContain(block.payload.output);
    else recorded.push([block.payload.call_id, parsedOutput(block.payload.output)]);
  }
  // parallel calls finish in any order; calls without ids ("") are recorded under ids of their own
  if (read.some(([id]) => id === '')) {
    const sorted = (pairs: unknown[][]) => pairs.map(([, output]) => JSON.stringify(output)).sort();
    expect(sorted(recorded)).toEqual(sorted(read));
  } else expect(Object.fromEntries(recorded)).toEqual(Object.fromEntries(read));
}

/** The same conversation through the AI SDK adapter, the framework running the tools. */
async function viaAiSdk(story: Conversation, variant: Variant): Promise<Tracer> {
  await using server = await startScriptedServer({ turns: [...story.turns] });
  const tracer = createTracer();
  const provider =
    variant.responses === true
      ? createOpenAI({ baseURL: server.url, apiKey: 'test' }).responses
      : createOpenAICompatible({
          name: 'scripted',
          baseURL: server.url,
          apiKey: 'test',
          includeUsage: true,
        });
  let tools: ToolSet = Object.fromEntries(
    story.tools.map(({ name, description, parameters }) => [
      name,
      tool({
        description,
        inputSchema: jsonSchema<Record<string, unknown>>(parameters as never),
        execute: story.runLater,
      }),
    ]),
  );
  if (variant.guarded) tools = guardTools(tools, { tracer });
  const call = {
    model: variant.telemetry
      ? provider('gpt-4o-mini')
      : wrapLanguageModel({
          model: provider('gpt-4o-mini'),
          middleware: tracewardenMiddleware({ tracer, ...policyOptions(variant) }),
        }),
    instructions: story.system,
    prompt: story.user,
    tools,
    stopWhen: isStepCount(story.turns.length),
    maxRetries: 0,
    ...(variant.telemetry
      ? {
          telemetry: {
            integrations: [tracewardenTelemetry({ tracer, ...policyOptions(variant) })],
          },
        }
      : {}),
  };
  if (variant.stream) {
    let failure: unknown;
    const result = streamText({
      ...call,
      onError: ({ error }) => {
        failure ??= error;
      },
    });
    await result.consumeStream();
    if (failure !== undefined) throw failure;
    await result.text;
  } else await generateText(call);
  return tracer;
}

/**
 * The comparable trace; for calls sent without ids, the ids each side made up are set aside
 * (`call_<trace>_<n>` in wrapOpenAI's trace, the AI SDK provider's own ids).
 */
function comparable(tracer: Tracer, variant: Variant) {
  const trace = comparableTrace(tracer.stitched());
  if (variant.emptyIds === true)
    for (const message of trace.messages) for (const call of message.tool_calls) call.call_id = '';
  return trace;
}

/**
 * The recorded finish reason of each answer, in order: one vocabulary in every adapter
 * (`normalizeFinishReason`), whatever the framework calls it (`tool-calls` in the AI SDK).
 */
function finishReasons(tracer: Tracer): unknown[] {
  return tracer.blocks().flatMap((block) => {
    const metadata = block.metadata as { status?: unknown; finish_reason?: unknown };
    return block.sub_type === 'MESSAGE' && metadata.status !== undefined
      ? [metadata.finish_reason]
      : [];
  });
}

function expectSound(tracer: Tracer, story: Conversation): void {
  expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  const trace = comparableTrace(tracer.stitched());
  expect(trace.orphans).toBe(0);
  // each result sits under the call that produced it: the output its arguments ask for
  for (const message of trace.messages)
    for (const call of message.tool_calls) {
      const result = call.results[0];
      if (result === undefined || result.refused) continue;
      let expected: unknown;
      try {
        const value = story.run(call.arguments as Record<string, unknown>);
        expected = parsedOutput(typeof value === 'string' ? value : JSON.stringify(value));
      } catch (error) {
        expected = `Error: ${(error as Error).message}`;
      }
      expect(parsedOutput(result.output)).toEqual(expected);
    }
}

describe('any conversation, one trace: wrapOpenAI and the AI SDK adapter (property)', () => {
  const variants: Variant[] = [
    { stream: false, guarded: false, telemetry: false },
    { stream: true, guarded: false, telemetry: false },
    { stream: false, guarded: true, telemetry: false },
    { stream: false, guarded: false, telemetry: true },
    { stream: true, guarded: true, telemetry: true },
    // refuse mode with plain tools ends the AI SDK loop at a turn whose calls were all refused
    // (README, 'refuse' with plain tools): only tools that refuse for themselves go on
    { stream: false, guarded: true, telemetry: false, refuse: true },
    { stream: true, guarded: true, telemetry: false, refuse: true },
    { stream: false, guarded: false, telemetry: true, refuse: true },
    { stream: false, guarded: false, telemetry: false, emptyIds: true },
    { stream: true, guarded: true, telemetry: false, emptyIds: true },
    { stream: false, guarded: false, telemetry: true, emptyIds: true },
    { stream: false, guarded: false, telemetry: false, responses: true },
    { stream: true, guarded: true, telemetry: false, responses: true },
    { stream: true, guarded: false, telemetry: true, responses: true, refuse: true },
  ];
  for (const variant of variants) {
    const label = `${variant.telemetry ? 'telemetry' : 'middleware'}${variant.guarded ? ' + guardTools' : ''}${variant.stream ? ', streamed' : ''}${variant.refuse ? ', policy refusing record_note' : ''}${variant.emptyIds ? ', empty call ids' : ''}${variant.responses ? ', Responses API model' : ''}`;
    it(`${label}: the same stitched trace as wrapOpenAI for random texts, reasoning, parallel calls and tool outputs`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer(), async (seed) => {
          const story = randomConversation(seed, { emptyIds: variant.emptyIds === true });
          const reference = await viaOpenAI(story, variant);
          const run = await viaAiSdk(story, variant);
          expectSound(reference, story);
          expectSound(run, story);
          expect(comparable(run, variant)).toEqual(comparable(reference, variant));
          expect(finishReasons(run)).toEqual(finishReasons(reference));
        }),
        { numRuns: 30 },
      );
    }, 120_000);
  }
});
