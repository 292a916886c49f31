import { parseToolArguments } from './message-fingerprint.js';
import { quarterTokens } from './token-estimate.js';
import type {
  ModelCallDelta,
  ModelCallResponse,
  ModelToolCall,
  ModelUsage,
  ProviderToolCall,
} from './types.js';

/*
 * A model call's response as it streams in: text, reasoning and tool calls appended delta by
 * delta, the last usage, finish reason, model and response id seen.
 */

interface ToolCallSlot {
  id: string;
  name: string;
  arguments: string;
}

/** The response's output when the call ends. */
export interface AggregatedOutput {
  text: string | null;
  reasoning: string;
  calls: ModelToolCall[];
  /** Indexes (in `calls`) of calls whose streamed arguments are not complete JSON. */
  partialCalls: Set<number> | undefined;
  /** Tool calls the provider ran itself, with their results. */
  providerCalls: readonly ProviderToolCall[];
}

const noProviderCalls: readonly ProviderToolCall[] = [];

/** What a call's deltas added up to so far. */
export class StreamedOutput {
  text = '';
  reasoning = '';
  slots: ToolCallSlot[] | undefined = undefined;
  usage: ModelUsage | undefined = undefined;
  finishReason: string | undefined = undefined;
  providerFinishReason: string | undefined = undefined;
  model: string | undefined = undefined;
  responseId: string | undefined = undefined;
  requestId: string | undefined = undefined;
  /** Tool calls the provider ran itself, merged by id (a result piece completes its call). */
  providerCalls: ProviderToolCall[] | undefined = undefined;
  /** Output measured so far: characters, or quarter tokens when `add` was asked for them. */
  chars = 0;

  /**
   * Adds one delta.
   * @param inQuarterTokens - measure text and reasoning in quarter tokens (a live budget's unit)
   * @returns how much output the delta added, in the same measure
   */
  add(delta: ModelCallDelta, inQuarterTokens: boolean): number {
    const before = this.chars;
    if (delta.text) {
      this.text += delta.text;
      this.chars += inQuarterTokens ? quarterTokens(delta.text) : delta.text.length;
    }
    if (delta.reasoning) {
      this.reasoning += delta.reasoning;
      this.chars += inQuarterTokens ? quarterTokens(delta.reasoning) : delta.reasoning.length;
    }
    if (delta.toolCalls) {
      const slots = (this.slots ??= []);
      for (const piece of delta.toolCalls) {
        let slot = slots[piece.index];
        if (slot === undefined) {
          slot = { id: '', name: '', arguments: '' };
          slots[piece.index] = slot;
        }
        if (piece.id) slot.id = piece.id;
        if (piece.name) slot.name = piece.name;
        if (piece.arguments) {
          slot.arguments += piece.arguments;
          this.chars += piece.arguments.length;
        }
        if (piece.completeArguments !== undefined) {
          // counted once: only what the fragments did not already count
          this.chars += Math.max(0, piece.completeArguments.length - slot.arguments.length);
          slot.arguments = piece.completeArguments;
        }
      }
    }
    if (delta.usage) this.usage = delta.usage;
    if (delta.finishReason) this.finishReason = delta.finishReason;
    if (delta.providerFinishReason) this.providerFinishReason = delta.providerFinishReason;
    if (delta.model) this.model = delta.model;
    if (delta.responseId) this.responseId = delta.responseId;
    if (delta.requestId) this.requestId = delta.requestId;
    if (delta.providerToolCalls) this.addProviderCalls(delta.providerToolCalls);
    return this.chars - before;
  }

  /** Merges provider-run calls and results: a piece with a known (non-empty) id completes it. */
  private addProviderCalls(pieces: readonly ProviderToolCall[]): void {
    const calls = (this.providerCalls ??= []);
    for (const piece of pieces) {
      const id = piece.id;
      const known =
        typeof id === 'string' && id !== '' ? calls.find((call) => call.id === id) : undefined;
      if (known === undefined) {
        calls.push({ ...piece });
        continue;
      }
      if (piece.name !== undefined && known.name === undefined) known.name = piece.name;
      if (piece.arguments !== undefined) known.arguments = piece.arguments;
      if (piece.output !== undefined) known.output = piece.output;
      if (piece.isError !== undefined) known.isError = piece.isError;
    }
  }

  /**
   * The response as the call records it (`aggregated`'s output, with the usage, model, finish
   * reason and response id): the response's own fields where it has them, else what streamed in.
   */
  answer(response: ModelCallResponse | undefined, output: AggregatedOutput): ModelCallResponse {
    // not the raw payload nor the adapter's metadata: the recorder that takes this answer over
    // records raw payloads only as its own options say
    const answer: ModelCallResponse = {
      text: output.text,
      reasoning: output.reasoning,
      toolCalls: output.calls,
      usage: response?.usage ?? this.usage,
      model: response?.model ?? this.model,
      finishReason: response?.finishReason ?? this.finishReason,
      responseId: response?.responseId ?? this.responseId,
    };
    const requestId = response?.requestId ?? this.requestId;
    if (requestId !== undefined) answer.requestId = requestId;
    const providerFinishReason =
      response?.finishReason === undefined
        ? this.providerFinishReason
        : response.providerFinishReason;
    if (providerFinishReason !== undefined) answer.providerFinishReason = providerFinishReason;
    if (output.providerCalls.length > 0) answer.providerToolCalls = [...output.providerCalls];
    return answer;
  }

  /** The output: the response's own fields where it has them, else what streamed in. */
  aggregated(response: ModelCallResponse | undefined): AggregatedOutput {
    let calls: ModelToolCall[];
    let partialCalls: Set<number> | undefined;
    const slots = this.slots;
    if (response?.toolCalls !== undefined) calls = response.toolCalls;
    else if (slots !== undefined) {
      calls = [];
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i];
        if (slot === undefined) continue;
        // a call streamed without an id keeps `""`: the response is delivered (and re-sent) so,
        // and its TOOL_CALL gets a generated id (responseCallIds)
        if (!parseToolArguments(slot.arguments).valid)
          (partialCalls ??= new Set()).add(calls.length);
        calls.push({ id: slot.id, name: slot.name, arguments: slot.arguments });
      }
    } else calls = [];
    const finalText = response?.text !== undefined ? response.text : this.text;
    return {
      text: finalText === '' || finalText === null ? null : finalText,
      reasoning: (response?.reasoning ?? this.reasoning) || '',
      calls,
      partialCalls,
      providerCalls: response?.providerToolCalls ?? this.providerCalls ?? noProviderCalls,
    };
  }
}
