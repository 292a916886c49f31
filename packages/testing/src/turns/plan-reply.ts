import { estimateTokens } from './estimate-tokens.js';
import type {
  ScriptedBuiltInToolType,
  ScriptedFinishReason,
  ScriptedTurn,
  ScriptedUsage,
} from './scripted-turn.js';

/**
 * A scripted turn resolved into everything a wire format needs.
 *
 * @internal
 */
export interface PlannedReply {
  /** 1-based number of the HTTP request, used to derive deterministic ids. */
  requestNumber: number;
  model: string;
  /** Unix seconds. */
  created: number;
  text: string | undefined;
  reasoning: string | undefined;
  /**
   * The calls, `arguments` serialized (a custom call's input as it was scripted); a built-in
   * call is named after its type.
   */
  toolCalls: {
    type: 'function' | 'custom' | ScriptedBuiltInToolType;
    id: string;
    name: string;
    arguments: string;
  }[];
  /** The hosted tools' output items, as scripted (responses API only). */
  hostedItems: Record<string, unknown>[];
  finishReason: ScriptedFinishReason;
  usage: ScriptedUsage;
  chunkSize: number;
}

/**
 * Context for {@link planReply}.
 *
 * @internal
 */
export interface PlanReplyContext {
  requestNumber: number;
  model: string;
  /** The request's prompt (messages, input, instructions, tools) serialized, for the estimate. */
  promptText: string;
  chunkSize: number;
  /** Returns the next deterministic tool call id. */
  nextCallId: () => string;
}

/**
 * Resolves a scripted turn: serializes tool call arguments, assigns ids, picks the finish
 * reason and fills usage that was not scripted with deterministic estimates.
 *
 * @internal
 * @param turn - The scripted turn.
 * @param context - Request-specific values.
 * @returns The planned reply.
 */
export function planReply(turn: ScriptedTurn, context: PlanReplyContext): PlannedReply {
  const toolCalls = (turn.toolCalls ?? []).map((call) => ({
    type: call.type ?? 'function',
    id: call.id ?? context.nextCallId(),
    name: 'name' in call ? call.name : call.type,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  const reasoningTokens = turn.usage?.reasoningTokens ?? estimateTokens(turn.reasoning ?? '');
  const visibleText =
    (turn.text ?? '') + toolCalls.map((call) => call.name + call.arguments).join('');
  const cachedTokens = turn.usage?.cachedTokens ?? 0;
  // An estimate below the scripted cached count would make an impossible usage object.
  const inputTokens =
    turn.usage?.inputTokens ?? Math.max(estimateTokens(context.promptText), cachedTokens);
  return {
    requestNumber: context.requestNumber,
    model: context.model,
    created: Math.floor(Date.now() / 1000),
    // A turn with neither text nor tool calls still answers with an (empty) message.
    text: turn.text ?? (toolCalls.length === 0 ? '' : undefined),
    reasoning: turn.reasoning,
    toolCalls,
    hostedItems: turn.hostedItems ?? [],
    finishReason: turn.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: {
      inputTokens,
      outputTokens: turn.usage?.outputTokens ?? estimateTokens(visibleText) + reasoningTokens,
      cachedTokens,
      reasoningTokens,
    },
    chunkSize: context.chunkSize,
  };
}
