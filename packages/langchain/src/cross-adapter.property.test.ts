import type { BaseMessage } from '@langchain/core/messages';
import { createTracer, parsePolicy, type Tracer, validateBlocks } from '@tracewarden/core';
import { comparableTrace, parsedOutput } from '@tracewarden/core/testing';
import { executeToolCalls, wrapOpenAI } from '@tracewarden/openai';
import {
  type RandomConversation,
  randomConversation,
  startScriptedServer,
} from '@tracewarden/testing';
import fc from 'fast-check';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { type Attachment, runAgent } from './__fixtures__/agent-harness.js';

/**
 * A message's content as text: LangChain takes a tool's empty list for empty content (a list of
 * no content blocks), which every TOOL_RESULT records as the empty text the model reads.
 */
function textOf(content: unknown): unknown {
  return Array.isArray(content) && content.length === 0 ? '' : content;
}

/**
 * What the trace holds for each call: its TOOL_RESULT's output, JSON text parsed (as recorded: a
 * guarded tool's empty list is the empty text the model read, as the handler records it).
 */
function recordedOutputs(tracer: Tracer): Record<string, unknown> {
  return Object.fromEntries(
    tracer
      .blocks()
      .flatMap((block) =>
        block.sub_type === 'TOOL_RESULT'
          ? [[block.payload.call_id, parsedOutput(block.payload.output)]]
          : [],
      ),
  );
}

/** The reference: `wrapOpenAI` and `executeToolCalls`. */
async function viaOpenAI(story: RandomConversation, variant: Variant): Promise<Tracer> {
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
  const tools = story.tools.map((definition) => ({
    type: 'function' as const,
    function: definition,
  }));
  const implementations = Object.fromEntries(story.tools.map(({ name }) => [name, story.runLater]));
  for (let step = 0; step < story.turns.length; step++) {
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      tools,
    });
    const message = completion.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage;
    messages.push(message);
    // every scripted turn is asked for: in refuse mode a turn whose calls were all refused has
    // none left, and the model reads the refusal in the next turn, as the agent goes on
    if (message.tool_calls?.length)
      messages.push(...(await executeToolCalls(message, implementations, { tracer })));
  }
  return tracer;
}

interface Variant {
  attachment: Attachment;
  guarded: boolean;
  preferStreaming: boolean;
  /** A policy refuses every `record_note` call (refuse mode): some calls of a turn run, some not. */
  refuse?: boolean;
  /** Every call id is `""`, as Gemini-backed agents send them. */
  emptyIds?: boolean;
}

const noNotes = parsePolicy(`
raise "notes are not allowed" if:
    (call: ToolCall)
    call is tool:record_note
`);

function policyOptions(variant: Variant) {
  return variant.refuse === true ? { policy: noNotes, onPolicyViolation: 'refuse' as const } : {};
}

/** The same conversation through a LangChain agent (`createAgent`, `ChatOpenAI`). */
async function viaLangChain(
  story: RandomConversation,
  variant: Variant,
): Promise<{ tracer: Tracer; messages: BaseMessage[] }> {
  await using server = await startScriptedServer({ turns: [...story.turns] });
  const tracer = createTracer();
  const messages = await runAgent({
    ...variant,
    baseURL: server.url,
    model: 'gpt-4o-mini',
    system: story.system,
    prompt: story.user,
    tools: story.tools.map((definition) => ({ ...definition, execute: story.runLater })),
    options: { tracer, ...policyOptions(variant) },
    maxSteps: story.turns.length,
  });
  return { tracer, messages };
}

/**
 * A comparable trace with failed results' texts set aside: each framework words a tool's error
 * its own way (`Error: …` for `executeToolCalls`, `…\n Please fix your mistakes.` in an agent's
 * tool node); that each records its own wording is checked against what the model read.
 */
function comparable(tracer: Tracer, variant: Variant) {
  const trace = comparableTrace(tracer.stitched());
  for (const message of trace.messages)
    for (const call of message.tool_calls) {
      // calls sent without ids: each side makes up ids of its own
      if (variant.emptyIds === true) call.call_id = '';
      call.results = call.results.map((result) =>
        result.status === 'failure'
          ? { ...result, output: 'failed' }
          : // LangChain sends a tool's empty list as empty content, executeToolCalls as "[]"
            { ...result, output: textOf(result.output) },
      );
    }
  return trace;
}

/** An output as compared: JSON text parsed, an empty list as the empty text LangChain sends. */
function shown(output: unknown): unknown {
  const value = parsedOutput(textOf(output));
  return Array.isArray(value) && value.length === 0 ? '' : value;
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

function expectSound(tracer: Tracer, story: RandomConversation): void {
  expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  const trace = comparableTrace(tracer.stitched());
  expect(trace.orphans).toBe(0);
  // each result sits under the call that produced it: the output its arguments ask for (a
  // failure in each framework's words, with the error's message)
  for (const message of trace.messages)
    for (const call of message.tool_calls) {
      const result = call.results[0];
      if (result === undefined || result.refused) continue;
      let failed: string | undefined;
      let value: unknown;
      try {
        value = story.run(call.arguments as Record<string, unknown>);
      } catch (error) {
        failed = (error as Error).message;
      }
      if (failed !== undefined) expect(result.output).toContain(`Error: ${failed}`);
      else
        expect(shown(result.output)).toEqual(
          shown(typeof value === 'string' ? value : JSON.stringify(value)),
        );
    }
}

const variants: Variant[] = [
  { attachment: 'handler', guarded: false, preferStreaming: false },
  { attachment: 'handler', guarded: true, preferStreaming: true },
  { attachment: 'middleware', guarded: false, preferStreaming: false },
  { attachment: 'middleware', guarded: true, preferStreaming: false },
  { attachment: 'handler', guarded: false, preferStreaming: false, refuse: true },
  { attachment: 'middleware', guarded: false, preferStreaming: false, refuse: true },
  { attachment: 'middleware', guarded: true, preferStreaming: true, refuse: true },
  { attachment: 'handler', guarded: false, preferStreaming: false, emptyIds: true },
  { attachment: 'handler', guarded: true, preferStreaming: false, emptyIds: true },
  { attachment: 'middleware', guarded: false, preferStreaming: false, emptyIds: true },
  { attachment: 'middleware', guarded: true, preferStreaming: false, emptyIds: true },
];

describe('any conversation, one trace: wrapOpenAI and the LangChain adapter (property)', () => {
  for (const variant of variants) {
    const label = `${variant.attachment}${variant.guarded ? ' + guardTools' : ''}${variant.preferStreaming ? ', streamed' : ''}${variant.refuse ? ', policy refusing record_note' : ''}${variant.emptyIds ? ', empty call ids' : ''}`;
    it(`${label}: the same stitched trace as wrapOpenAI, each result as the model read it`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer(), async (seed) => {
          const story = randomConversation(seed, { emptyIds: variant.emptyIds === true });
          const reference = await viaOpenAI(story, variant);
          const run = await viaLangChain(story, variant);
          expectSound(reference, story);
          expectSound(run.tracer, story);
          // what LangChain sent the model for each call (its ToolMessages)
          const read = Object.fromEntries(
            run.messages
              .filter((message) => message.getType() === 'tool')
              .map((message) => [
                (message as { tool_call_id?: string }).tool_call_id,
                parsedOutput(textOf(message.content)),
              ]),
          );
          const recorded = recordedOutputs(run.tracer);
          if (variant.attachment === 'handler' && variant.refuse === true && !variant.guarded)
            // A callback cannot answer a call: the handler stops a refused call's run with an
            // error whose message is the refusal, and the tool node words it its own way
            // (`PolicyViolationError: <refusal>\n Please fix your mistakes.`, README); the
            // refusal was recorded when the model proposed the call.
            for (const [id, output] of Object.entries(recorded))
              if (typeof output === 'string' && output.includes('was blocked by policy')) {
                expect(read[id]).toContain(output);
                recorded[id] = read[id];
              }
          // (calls without ids: each result's place is checked by expectSound above)
          if (variant.emptyIds !== true) expect(recorded).toEqual(read);
          expect(comparable(run.tracer, variant)).toEqual(comparable(reference, variant));
          expect(finishReasons(run.tracer)).toEqual(finishReasons(reference));
        }),
        { numRuns: 20 },
      );
    }, 180_000);
  }
});
