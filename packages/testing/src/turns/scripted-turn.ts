import type { Fault } from './fault.js';

/**
 * A call of a tool the request names: a function call, or a call of a custom (free-form) tool,
 * whose `arguments` string is the tool's input.
 *
 * @example
 * ```ts
 * const call: ScriptedFunctionToolCall = { name: 'get_weather', arguments: { city: 'Paris' } };
 * const patch: ScriptedFunctionToolCall = { type: 'custom', name: 'apply_patch', arguments: '*** Begin Patch' };
 * ```
 */
export interface ScriptedFunctionToolCall {
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
 * The Responses API's built-in tools whose calls the developer's own code carries out, by the
 * `type` of the tool offered (`{ type: 'shell' }`, ...): `shell` answers a `shell_call` item,
 * `local_shell` a `local_shell_call`, `apply_patch` an `apply_patch_call`, `computer` a
 * `computer_call`.
 *
 * @example
 * ```ts
 * const type: ScriptedBuiltInToolType = 'shell';
 * ```
 */
export type ScriptedBuiltInToolType = 'shell' | 'local_shell' | 'apply_patch' | 'computer';

/**
 * A call of one of the Responses API's built-in tools the developer's code runs. In responses it
 * is answered as the real API answers it: a `shell_call` item whose `action` is `arguments`
 * (`timeout_ms` and `max_output_length` default to `null`), streamed with
 * `response.shell_call_command.added` / `.delta` / `.done` events per command; a
 * `local_shell_call` (`action`: `arguments`, `type: 'exec'` and `env: {}` unless given); an
 * `apply_patch_call` (`operation`: `arguments`); a `computer_call` (`action`: `arguments`). Those
 * items have no delta events of their own: streamed, each is an `output_item.added` and
 * `output_item.done`. Chat completions has no built-in tools: there the call is answered as a
 * function call named after its type, with `arguments` as its JSON.
 *
 * @example
 * ```ts
 * const shell: ScriptedBuiltInToolCall = { type: 'shell', arguments: { commands: ['ls -la'] } };
 * const patch: ScriptedBuiltInToolCall = {
 *   type: 'apply_patch',
 *   arguments: { type: 'update_file', path: 'src/a.ts', diff: '@@\n-a\n+b' },
 * };
 * ```
 */
export interface ScriptedBuiltInToolCall {
  /** The built-in tool called. */
  type: ScriptedBuiltInToolType;
  /** The call's action (`operation` for `apply_patch`), as the item carries it. */
  arguments: Record<string, unknown>;
  /**
   * Call id (`call_id` of the item).
   * @default a deterministic `call_<n>`
   */
  id?: string;
}

/**
 * One tool call the scripted model proposes: a function or custom tool call
 * ({@link ScriptedFunctionToolCall}), or a call of a built-in tool the developer's code runs
 * ({@link ScriptedBuiltInToolCall}: `shell`, `local_shell`, `apply_patch`, `computer`).
 *
 * @example
 * ```ts
 * const call: ScriptedToolCall = { name: 'get_weather', arguments: { city: 'Paris' } };
 * const patch: ScriptedToolCall = { type: 'custom', name: 'apply_patch', arguments: '*** Begin Patch' };
 * const shell: ScriptedToolCall = { type: 'shell', arguments: { commands: ['ls'] } };
 * ```
 */
export type ScriptedToolCall = ScriptedFunctionToolCall | ScriptedBuiltInToolCall;

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
   * Output items of the tools the provider runs itself (hosted tools), answered verbatim in the
   * responses API before the message, as the real API sends them: a `web_search_call`,
   * `file_search_call`, `code_interpreter_call`, `mcp_call`, a hosted `shell_call` and its
   * `shell_call_output`, ... Streamed, each is an `output_item.added` and `output_item.done`.
   * Chat completions has no hosted tools: there they are left out.
   * @default none
   * @example `[{ type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'weather' } }]`
   */
  hostedItems?: Record<string, unknown>[];
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
