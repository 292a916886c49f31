import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { ModelCallDelta, StreamPartKind } from '@tracewarden/core';
import { finishReasonOf, usageOf } from './model-response.js';
import { OutputExtras } from './output-extras.js';
import { PartOrder } from './part-order.js';

/** A model-layer stream part. */
export type Part = LanguageModelV4StreamPart;

/** The tool calls a stream has seen: their indexes, names, and which had argument deltas. */
class StreamToolCalls {
  readonly indexes = new Map<string, number>();
  readonly names = new Map<string, string>();
  readonly withArguments = new Set<string>();
  indexOf(id: string): number {
    let index = this.indexes.get(id);
    if (index === undefined) {
      index = this.indexes.size;
      this.indexes.set(id, index);
    }
    return index;
  }
}

/** What a stream remembers between parts. */
export class StreamState {
  /** The gate kind of the part just classified. */
  kind: StreamPartKind = 'content';
  readonly text: ModelCallDelta = { text: undefined };
  readonly reasoning: ModelCallDelta = { reasoning: undefined };
  /** The order of text parts, and of reasoning parts, as the AI SDK assembles them. */
  readonly textOrder = new PartOrder();
  readonly reasoningOrder = new PartOrder();
  /** The sources and files the answer streamed; made at the first. */
  extras: OutputExtras | undefined;
  /** Made at the first tool-call part (most streams have none). */
  private toolCalls: StreamToolCalls | undefined;
  constructor(readonly holdInput: (toolName: string) => boolean) {}
  get calls(): StreamToolCalls {
    this.toolCalls ??= new StreamToolCalls();
    return this.toolCalls;
  }
  /** The name of a tool call seen before, if any. */
  nameOf(id: string): string | undefined {
    return this.toolCalls?.names.get(id);
  }
  /**
   * The stream ended: the text and reasoning of parts that still waited for another (see
   * {@link PartOrder}), as one delta, if any.
   */
  drain(): ModelCallDelta | undefined {
    const text = this.textOrder.drain();
    const reasoning = this.reasoningOrder.drain();
    if (text === '' && reasoning === '') return undefined;
    return {
      text: text === '' ? undefined : text,
      reasoning: reasoning === '' ? undefined : reasoning,
    };
  }
}

/**
 * The neutral delta of one model-layer stream part; its gate kind goes in `state.kind`. Text and
 * reasoning deltas (most parts) reuse one object per stream: the handle does not keep them.
 */
export function classify(part: Part, state: StreamState): ModelCallDelta | undefined {
  state.kind = 'content';
  switch (part.type) {
    case 'text-delta': {
      // the part that opened first passes straight through (every stream with one part open
      // at a time): one comparison, no call
      const order = state.textOrder;
      const text = part.id === order.current ? part.delta : order.delta(part.id, part.delta);
      if (text === undefined) return undefined;
      state.text.text = text;
      return state.text;
    }
    case 'reasoning-delta': {
      const order = state.reasoningOrder;
      const text = part.id === order.current ? part.delta : order.delta(part.id, part.delta);
      if (text === undefined) return undefined;
      state.reasoning.reasoning = text;
      return state.reasoning;
    }
    case 'text-start':
      state.textOrder.open(part.id);
      return undefined;
    case 'text-end': {
      const due = state.textOrder.end(part.id);
      if (due === undefined) return undefined;
      state.text.text = due;
      return state.text;
    }
    case 'reasoning-start':
      state.reasoningOrder.open(part.id);
      return undefined;
    case 'reasoning-end': {
      const due = state.reasoningOrder.end(part.id);
      if (due === undefined) return undefined;
      state.reasoning.reasoning = due;
      return state.reasoning;
    }
    case 'response-metadata': {
      // field by field: spreads of conditional literals cost several times more
      const delta: ModelCallDelta = {};
      if (part.modelId !== undefined) delta.model = part.modelId;
      if (part.id !== undefined) delta.responseId = part.id;
      return delta;
    }
    case 'tool-input-start': {
      if (part.providerExecuted === true) return undefined;
      const calls = state.calls;
      const index = calls.indexOf(part.id);
      calls.names.set(part.id, part.toolName);
      state.kind = state.holdInput(part.toolName) ? 'tool-call-end' : 'tool-call';
      return { toolCalls: [{ index, id: part.id, name: part.toolName }] };
    }
    case 'tool-input-delta': {
      const name = state.nameOf(part.id);
      if (name === undefined) return undefined;
      const calls = state.calls;
      calls.withArguments.add(part.id);
      state.kind = state.holdInput(name) ? 'tool-call-end' : 'tool-call';
      return { toolCalls: [{ index: calls.indexOf(part.id), arguments: part.delta }] };
    }
    case 'tool-input-end': {
      const name = state.nameOf(part.id);
      if (name === undefined) return undefined;
      state.kind = state.holdInput(name) ? 'tool-call-end' : 'tool-call';
      return undefined;
    }
    case 'tool-call': {
      // a call the provider runs itself (web search): recorded with its result, never held
      if (part.providerExecuted === true)
        return {
          providerToolCalls: [{ id: part.toolCallId, name: part.toolName, arguments: part.input }],
        };
      const calls = state.calls;
      const index = calls.indexOf(part.toolCallId);
      const complete = !calls.withArguments.has(part.toolCallId);
      calls.names.set(part.toolCallId, part.toolName);
      state.kind = 'tool-call-end';
      return {
        toolCalls: [
          {
            index,
            id: part.toolCallId,
            name: part.toolName,
            // after fragments, the whole input replaces them: the SDK runs the call with it
            ...(complete ? { arguments: part.input } : { completeArguments: part.input }),
          },
        ],
      };
    }
    case 'tool-result':
      // the model layer streams results only of the calls the provider ran
      return {
        providerToolCalls: [
          {
            id: part.toolCallId,
            name: part.toolName,
            output: part.result,
            ...(part.isError === true ? { isError: true } : {}),
          },
        ],
      };
    case 'source':
    case 'file':
      (state.extras ??= new OutputExtras()).add(part);
      return undefined;
    case 'finish':
      state.kind = 'finish';
      return { usage: usageOf(part.usage), ...finishReasonOf(part.finishReason) };
    default:
      return undefined;
  }
}

/** The tool call a part belongs to, if any. */
export function toolCallIdOf(part: Part): string | undefined {
  switch (part.type) {
    case 'tool-input-start':
    case 'tool-input-delta':
    case 'tool-input-end':
      return part.id;
    case 'tool-call':
      return part.toolCallId;
    default:
      return undefined;
  }
}
