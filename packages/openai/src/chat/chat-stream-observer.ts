import {
  createStreamGate,
  type ModelCallDelta,
  type ModelCallHandle,
  type ModelCallOutcome,
  type StreamGate,
} from '@tracewarden/core';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { streamEndedEarly } from '../stream/stream-ended-early.js';
import { DeliverThenStop, HOLD, type StreamObserver } from '../stream/tap-stream.js';
import { linkRecorded } from '../wrap/link-recorded.js';
import { chatChunkDelta, isCustomToolCallDelta } from './chat-messages.js';

/** How a chat stream is observed. @internal */
export interface ChatStreamSettings {
  /** The usage-only last chunk was requested by us, not the caller: aggregate it, do not deliver it. */
  hideUsageChunk: boolean;
  /** A policy checks tool calls: hold the finish chunk until the verdict. */
  checkPolicy: boolean;
  /** Refuse mode: tool-call pieces are held back and only allowed calls are delivered, at the end. */
  refuse: boolean;
}

function withDelta(
  chunk: ChatCompletionChunk,
  delta: Record<string, unknown>,
  finishReason: string | null,
): ChatCompletionChunk {
  const choice = chunk.choices[0] as ChatCompletionChunk.Choice;
  return {
    ...chunk,
    choices: [
      {
        ...choice,
        delta: delta as ChatCompletionChunk.Choice.Delta,
        finish_reason: finishReason as ChatCompletionChunk.Choice['finish_reason'],
      },
    ],
  };
}

/** A custom call's input from its recorded `{ input }` arguments (JSON text or object). */
function customInput(args: string | Record<string, unknown>): string {
  let value: unknown = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args);
    } catch {
      return args;
    }
  }
  const input = (value as { input?: unknown } | null)?.input;
  return typeof input === 'string' ? input : '';
}

/** One allowed call, re-emitted whole in its own kind: a function call or a custom tool call. */
function callPiece(
  review: ModelCallOutcome['toolCalls'][number],
  index: number,
  custom: boolean,
): ChatCompletionChunk.Choice.Delta.ToolCall {
  const { id, name, arguments: args } = review.call;
  // openai 6 types no custom piece; openai 7 does, and its stream helper assembles this one
  if (custom)
    return {
      index,
      id,
      type: 'custom',
      custom: { name, input: customInput(args) },
    } as unknown as ChatCompletionChunk.Choice.Delta.ToolCall;
  return {
    index,
    id,
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  };
}

function refusedChunks(
  template: ChatCompletionChunk,
  outcome: ModelCallOutcome,
  hadText: boolean,
  customIds: ReadonlySet<string> | undefined,
): ChatCompletionChunk[] {
  const chunks: ChatCompletionChunk[] = [];
  const base = { ...template, usage: null } as ChatCompletionChunk;
  let index = 0;
  for (const review of outcome.toolCalls) {
    if (review.refusal !== undefined) continue;
    const custom = customIds?.has(review.call.id) === true;
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [callPiece(review, index, custom)],
          },
          finish_reason: null,
          logprobs: null,
        },
      ],
    } as ChatCompletionChunk);
    index++;
  }
  if (outcome.refusalText !== undefined) {
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: { content: hadText ? `\n\n${outcome.refusalText}` : outcome.refusalText },
          finish_reason: null,
          logprobs: null,
        },
      ],
    } as ChatCompletionChunk);
  }
  return chunks;
}

/**
 * Observes a streamed chat completion: aggregates each chunk into the handle, applies the live
 * budget cut-off, holds the finish chunk while the policy decides, and records the end.
 * @internal
 */
export function chatStreamObserver(
  controller: AbortController,
  handle: ModelCallHandle,
  settings: ChatStreamSettings,
): StreamObserver<ChatCompletionChunk> {
  return new ChatStreamObserver(controller, handle, settings);
}

/** A class (methods on the prototype) so that a stream allocates one observer, no closures. */
class ChatStreamObserver implements StreamObserver<ChatCompletionChunk> {
  private template: ChatCompletionChunk | undefined;
  private responseId: string | undefined;
  /** Indexes of the custom tool calls whose input is still streaming (see chatChunkDelta). */
  private readonly openCustomCalls = new Set<number>();
  /** Refuse mode: ids of the custom tool calls, re-emitted as custom calls when allowed. */
  private customIds: Set<string> | undefined;
  private readonly gate: StreamGate;
  /** The delta of the chunk being read, rewritten for each one (the handle does not keep it). */
  private readonly delta: ModelCallDelta = {
    text: undefined,
    reasoning: undefined,
    toolCalls: undefined,
    usage: undefined,
    finishReason: undefined,
    model: undefined,
    responseId: undefined,
  };

  /** Whether a chunk carried a finish reason: a stream without one ended early. */
  private finished = false;

  constructor(
    private readonly controller: AbortController,
    private readonly handle: ModelCallHandle,
    private readonly settings: ChatStreamSettings,
  ) {
    this.gate = createStreamGate(handle, {
      holdToolCalls: settings.checkPolicy,
      dropToolCalls: settings.refuse,
    });
  }

  item(
    chunk: ChatCompletionChunk,
  ): ChatCompletionChunk | undefined | typeof HOLD | DeliverThenStop<ChatCompletionChunk> {
    const delta = chatChunkDelta(chunk, this.delta, this.openCustomCalls);
    if (this.responseId === undefined) {
      this.responseId = chunk.id;
      delta.model = chunk.model;
      delta.responseId = chunk.id;
    }
    const gate = this.gate;
    const hasCalls = delta.toolCalls !== undefined;
    if (delta.finishReason) this.finished = true;
    let decision = gate.push(
      delta,
      hasCalls ? 'tool-call' : delta.finishReason ? 'finish' : 'content',
    );
    // a chunk that carries tool-call pieces and the finish reason is both
    if (
      hasCalls &&
      delta.finishReason !== undefined &&
      (decision === 'deliver' || decision === 'drop')
    )
      decision = gate.push(undefined, 'finish');
    let delivered: ChatCompletionChunk | undefined = chunk;
    if (chunk.choices.length === 0) {
      // The usage chunk we asked for: aggregated above, never delivered, nor held while the
      // policy decides (a held chunk is delivered at the end as it arrived). A stop still stops.
      if (this.settings.hideUsageChunk) {
        if (decision === 'stop' || decision === 'deliver-then-stop') throw gate.stopError;
        return undefined;
      }
    } else if (hasCalls && this.settings.refuse) {
      // Refuse mode: the tool-call pieces are dropped (allowed calls come back at the end); the
      // rest of the chunk still goes through.
      this.template ??= chunk;
      const { tool_calls: held, ...rest } = (chunk.choices[0] as ChatCompletionChunk.Choice).delta;
      for (const piece of held ?? []) {
        if (piece.id && isCustomToolCallDelta(piece)) (this.customIds ??= new Set()).add(piece.id);
      }
      const hasMore = Object.values(rest).some(
        (value) => value !== undefined && value !== null && value !== '' && value !== 'assistant',
      );
      delivered =
        hasMore || delta.finishReason
          ? withDelta(chunk, rest, chunk.choices[0]?.finish_reason ?? null)
          : undefined;
    }
    switch (decision) {
      case 'hold':
        return HOLD;
      case 'stop':
        throw gate.stopError;
      case 'deliver-then-stop':
        if (delivered === undefined) throw gate.stopError;
        return new DeliverThenStop(delivered, gate.stopError);
      default:
        return delivered;
    }
  }

  end(held: ChatCompletionChunk[]): ChatCompletionChunk[] {
    if (!this.finished && !this.controller.signal.aborted && !this.handle.stopped) {
      // the body ended cleanly before any finish_reason (a proxy or the connection closed it):
      // the SDK ends the loop without an error, so the partial answer is recorded as the
      // failure it is, and held tool calls (never reviewed whole) are not delivered
      this.gate.error(streamEndedEarly('finish_reason'));
      return [];
    }
    const end = this.gate.end(this.controller.signal.aborted);
    if (end.kind === 'failed') throw end.error;
    if (end.kind === 'cancelled') return [];
    const outcome = end.outcome;
    linkRecorded(this.handle.tracer, undefined, outcome);
    const template = this.template;
    if (!this.settings.refuse || template === undefined) return held;
    const extra = refusedChunks(template, outcome, this.gate.sawText, this.customIds);
    const allowedLeft = outcome.toolCalls.some((review) => review.refusal === undefined);
    const rest = held.map((chunk) => {
      const choice = chunk.choices[0];
      if (choice === undefined) return chunk;
      const { tool_calls: _dropped, ...delta } = choice.delta;
      const finish =
        choice.finish_reason === 'tool_calls' && !allowedLeft ? 'stop' : choice.finish_reason;
      return withDelta(chunk, delta, finish);
    });
    return [...extra, ...rest];
  }

  error(error: unknown): unknown {
    return this.gate.error(error);
  }

  cancel(): void {
    this.gate.cancel();
  }
}
