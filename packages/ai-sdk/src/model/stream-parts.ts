import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { ModelCallDelta, StreamPartKind } from '@tracewarden/core';
import { finishReasonOf, usageOf } from './model-response.js';

/** A model-layer stream part. */
export type Part = LanguageModelV4StreamPart;

/** What a stream remembers of its tool calls. */
export class StreamState {
  /** The gate kind of the part just classified. */
  kind: StreamPartKind = 'content';
  readonly text: ModelCallDelta = { text: undefined };
  readonly reasoning: ModelCallDelta = { reasoning: undefined };
  readonly indexes = new Map<string, number>();
  readonly names = new Map<string, string>();
  readonly withArguments = new Set<string>();
  constructor(readonly holdInput: (toolName: string) => boolean) {}
  indexOf(id: string): number {
    let index = this.indexes.get(id);
    if (index === undefined) {
      index = this.indexes.size;
      this.indexes.set(id, index);
    }
    return index;
  }
}

/**
 * The neutral delta of one model-layer stream part; its gate kind goes in `state.kind`. Text and
 * reasoning deltas (most parts) reuse one object per stream: the handle does not keep them.
 */
export function classify(part: Part, state: StreamState): ModelCallDelta | undefined {
  state.kind = 'content';
  switch (part.type) {
    case 'text-delta':
      state.text.text = part.delta;
      return state.text;
    case 'reasoning-delta':
      state.reasoning.reasoning = part.delta;
      return state.reasoning;
    case 'response-metadata':
      return {
        ...(part.modelId === undefined ? {} : { model: part.modelId }),
        ...(part.id === undefined ? {} : { responseId: part.id }),
      };
    case 'tool-input-start': {
      if (part.providerExecuted === true) return undefined;
      const index = state.indexOf(part.id);
      state.names.set(part.id, part.toolName);
      state.kind = state.holdInput(part.toolName) ? 'tool-call-end' : 'tool-call';
      return { toolCalls: [{ index, id: part.id, name: part.toolName }] };
    }
    case 'tool-input-delta': {
      const name = state.names.get(part.id);
      if (name === undefined) return undefined;
      state.withArguments.add(part.id);
      state.kind = state.holdInput(name) ? 'tool-call-end' : 'tool-call';
      return { toolCalls: [{ index: state.indexOf(part.id), arguments: part.delta }] };
    }
    case 'tool-input-end': {
      const name = state.names.get(part.id);
      if (name === undefined) return undefined;
      state.kind = state.holdInput(name) ? 'tool-call-end' : 'tool-call';
      return undefined;
    }
    case 'tool-call': {
      if (part.providerExecuted === true) return undefined;
      const index = state.indexOf(part.toolCallId);
      const complete = !state.withArguments.has(part.toolCallId);
      state.names.set(part.toolCallId, part.toolName);
      state.kind = 'tool-call-end';
      return {
        toolCalls: [
          {
            index,
            id: part.toolCallId,
            name: part.toolName,
            ...(complete ? { arguments: part.input } : {}),
          },
        ],
      };
    }
    case 'finish':
      state.kind = 'finish';
      return { usage: usageOf(part.usage), finishReason: finishReasonOf(part.finishReason) };
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
