/**
 * Why a model stopped, in one vocabulary for every adapter (OpenAI's chat-completions names):
 * `stop` (a natural end or a stop sequence), `length` (an output or context token limit),
 * `tool_calls` (it proposed tool calls), `content_filter` (a safety filter or refusal cut it
 * off), `error` (the provider reports the generation failed), `other` (anything else).
 */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'other';

/*
 * Provider values, lower-cased with `-` and spaces as `_`: OpenAI chat and Responses, the AI
 * SDK's unified reasons (V2 and later), Anthropic, Gemini / Vertex, Bedrock Converse, Cohere,
 * Mistral, Ollama. Mostly as the AI SDK's providers map them. A Map: a value such as
 * `constructor` must not find an object's own keys.
 */
const reasons: ReadonlyMap<string, FinishReason> = new Map(
  Object.entries({
    stop: 'stop',
    end_turn: 'stop',
    stop_sequence: 'stop',
    pause_turn: 'stop',
    complete: 'stop',
    completed: 'stop',
    eos: 'stop',
    eos_token: 'stop',
    length: 'length',
    max_tokens: 'length',
    max_output_tokens: 'length',
    model_length: 'length',
    model_context_window_exceeded: 'length',
    tool_calls: 'tool_calls',
    tool_call: 'tool_calls',
    tool_use: 'tool_calls',
    function_call: 'tool_calls',
    content_filter: 'content_filter',
    content_filtered: 'content_filter',
    guardrail_intervened: 'content_filter',
    refusal: 'content_filter',
    safety: 'content_filter',
    image_safety: 'content_filter',
    recitation: 'content_filter',
    blocklist: 'content_filter',
    prohibited_content: 'content_filter',
    spii: 'content_filter',
    error: 'error',
    failed: 'error',
    malformed_function_call: 'error',
  } satisfies Record<string, FinishReason>),
);

/**
 * The recorded `finish_reason` of a model's answer: the provider's (or framework's) own value in
 * the one vocabulary of {@link FinishReason}, so traces from wrapOpenAI, the AI SDK and LangChain
 * are queried alike. The provider's value is recorded beside it as `provider_finish_reason`.
 * An answer that proposed tool calls but says it stopped (Gemini's `STOP`, the Responses API's
 * `completed`, OpenAI with a forced `tool_choice`) is `tool_calls`.
 *
 * @param reason - the provider's finish reason (`tool_calls`, `tool-calls`, `end_turn`,
 *   `MAX_TOKENS`, ...), case-insensitive
 * @param hasToolCalls - whether the answer proposed tool calls
 * @default hasToolCalls false
 * @returns the normalised reason; `other` for a value of no known provider; `undefined` when
 *   `reason` is absent or empty
 * @example
 * ```ts
 * console.log(normalizeFinishReason('tool-calls')); // → tool_calls
 * console.log(normalizeFinishReason('end_turn')); // → stop
 * console.log(normalizeFinishReason('completed', true)); // → tool_calls
 * console.log(normalizeFinishReason('MAX_TOKENS')); // → length
 * ```
 */
export function normalizeFinishReason(
  reason: string | undefined,
  hasToolCalls = false,
): FinishReason | undefined {
  if (typeof reason !== 'string' || reason === '') return undefined;
  // the common case first, without building a key
  const known =
    reasons.get(reason) ??
    reasons.get(reason.toLowerCase().replaceAll('-', '_').replaceAll(' ', '_'));
  const normalized = known ?? 'other';
  return normalized === 'stop' && hasToolCalls ? 'tool_calls' : normalized;
}
