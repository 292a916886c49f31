import type { Fault } from './fault.js';

/**
 * One tool call the scripted model proposes: a function call, or a call of a custom
 * (free-form) tool, whose `arguments` string is the tool's input.
 *
 * @example
 * ```ts
 * const call: ScriptedToolCall = { name: 'get_weather', arguments: { city: 'Paris' } };
 * const patch: ScriptedToolCall = { type: 'custom', name: 'apply_patch', arguments: '*** Begin Patch' };
 * ```
 */
export interface ScriptedToolCall {
  /**
   * The kind of tool called. A `custom` call is answered as the real API answers a custom tool:
   * `{ type: 'custom', custom: { name, input } }` in chat (message and chunks), a
   * `custom_tool_call` item with `response.custom_tool_call_input.delta` / `.done` events in
   * responses.
   * @default 'function'
   */
  type?: 'function' | 'custom';
  /** Function (or custom tool) name. */
  name: string;
  /**
   * Arguments; an object is serialized with `JSON.stringify`, a string is sent as is. For a
   * `custom` call, the string is the tool's free-form input.
   */
  arguments: Record<string, unknown> | string;
  /**
   * Call id (`tool_calls[].id` in chat, `call_id` in responses).
   * @default a deterministic `call_<n>`
   */
  id?: string;
}

/**
 * Token counts reported in the answer's `usage`.
 *
 * @example
 * ```ts
 * const usage: ScriptedUsage = { inputTokens: 100, outputTokens: 20, cachedTokens: 64, reasoningTokens: 8 };
 * ```
 */
export interface ScriptedUsage {
  /** Prompt tokens (`prompt_tokens` / `input_tokens`). */
  inputTokens: number;
  /** Completion tokens, reasoning included (`completion_tokens` / `output_tokens`). */
  outputTokens: number;
  /** Cached prompt tokens (`cached_tokens`). */
  cachedTokens: number;
  /** Reasoning tokens (`reasoning_tokens`). */
  reasoningTokens: number;
}

/**
 * Why the scripted model stopped, in chat completions terms. In the responses API `length` and
 * `content_filter` give an `incomplete` response.
 *
 * @example
 * ```ts
 * const reason: ScriptedFinishReason = 'length';
 * ```
 */
export type ScriptedFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/**
 * What the scripted server answers to one model request (chat completion or response).
 * A turn that is only `{ fault }` with a status fault answers with an error and consumes the turn.
 *
 * @example
 * ```ts
 * const turns: ScriptedTurn[] = [
 *   { reasoning: 'The user wants the weather.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
 *   { text: 'It is sunny in Paris.', usage: { cachedTokens: 32 } },
 * ];
 * ```
 */
export interface ScriptedTurn {
  /**
   * Assistant text.
   * @default no text (content `null` in chat)
   */
  text?: string;
  /**
   * Tool calls the model proposes.
   * @default none
   */
  toolCalls?: ScriptedToolCall[];
  /**
   * Reasoning: `reasoning_content` in chat, a `reasoning` output item with a summary in responses.
   * @default none
   */
  reasoning?: string;
  /**
   * Token counts; missing ones are estimated as characters / 4, deterministically.
   * @default estimated
   */
  usage?: Partial<ScriptedUsage>;
  /**
   * Finish reason.
   * @default `'tool_calls'` when there are tool calls, else `'stop'`
   */
  finishReason?: ScriptedFinishReason;
  /**
   * A fault to inject into this turn.
   * @default none
   */
  fault?: Fault;
}
