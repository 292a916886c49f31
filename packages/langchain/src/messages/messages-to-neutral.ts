import type { ContentPart, NeutralMessage, NeutralToolCall } from '@tracewarden/core';
import { inProviderOrder } from './provider-order.js';

/**
 * A LangChain message as this package reads it: by its fields, never by `instanceof`, so
 * messages from a second copy of `@langchain/core` (or plain message objects) read the same.
 * @internal
 */
export interface LooseMessage {
  type?: unknown;
  role?: unknown;
  content?: unknown;
  name?: unknown;
  id?: unknown;
  tool_calls?: readonly LooseToolCall[] | undefined;
  invalid_tool_calls?: readonly LooseInvalidToolCall[] | undefined;
  tool_call_id?: unknown;
  additional_kwargs?: Record<string, unknown> | undefined;
  response_metadata?: Record<string, unknown> | undefined;
  usage_metadata?: unknown;
  artifact?: unknown;
  status?: unknown;
  _getType?: () => string;
}

/** A LangChain `ToolCall`. @internal */
export interface LooseToolCall {
  id?: string | undefined;
  name: string;
  args: Record<string, unknown>;
}

/** A LangChain `InvalidToolCall` (arguments that did not parse). @internal */
export interface LooseInvalidToolCall {
  id?: string | undefined;
  name?: string | undefined;
  args?: string | undefined;
}

const roles: Record<string, string> = {
  human: 'user',
  user: 'user',
  ai: 'assistant',
  assistant: 'assistant',
  system: 'system',
  developer: 'developer',
  tool: 'tool',
  function: 'function',
};

/** The message's type (`human`, `ai`, `system`, `tool`, `generic`, ...). @internal */
export function messageType(message: LooseMessage): string {
  if (typeof message.type === 'string') return message.type;
  if (typeof message._getType === 'function') return message._getType();
  return typeof message.role === 'string' ? message.role : 'unknown';
}

/** The chat-event role of a LangChain message. @internal */
export function roleOf(message: LooseMessage): string {
  const type = messageType(message);
  if (type === 'system' && message.additional_kwargs?.__openai_role__ === 'developer')
    return 'developer';
  if ((type === 'generic' || type === 'chat') && typeof message.role === 'string')
    return roles[message.role] ?? message.role;
  return roles[type] ?? type;
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The text of LangChain content when it is text only (a string, or `text` blocks; reasoning
 * and tool-use blocks are left out), else `undefined`.
 * @internal
 */
export function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const block of content as { type?: unknown; text?: unknown }[]) {
    if (typeof block !== 'object' || block === null) return undefined;
    if ((block.type === 'text' || block.type === 'output_text') && typeof block.text === 'string')
      text += block.text;
    else if (!nonTextBlocks.has(block.type as string)) return undefined;
  }
  return text;
}

/** Blocks that are not what the model said (reasoning, tool calls, metadata). */
const nonTextBlocks = new Set([
  'reasoning',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_call',
  'tool_call_chunk',
  'server_tool_call',
  'server_tool_call_result',
  'functionCall',
  'executableCode',
  'codeExecutionResult',
]);

interface LooseBlock {
  type?: unknown;
  text?: unknown;
  url?: unknown;
  data?: unknown;
  mimeType?: unknown;
  mime_type?: unknown;
  image_url?: unknown;
  source_type?: unknown;
}

/** One image block as an `image_url` part, whatever LangChain format it is in. */
function imagePart(block: LooseBlock): ContentPart | undefined {
  if (block.type === 'image_url') {
    const url =
      typeof block.image_url === 'string'
        ? block.image_url
        : (block.image_url as { url?: unknown } | undefined)?.url;
    return typeof url === 'string'
      ? ({ type: 'image_url', image_url: { url } } as never)
      : undefined;
  }
  if (block.type === 'image') {
    if (typeof block.url === 'string')
      return { type: 'image_url', image_url: { url: block.url } } as never;
    const mime = block.mimeType ?? block.mime_type ?? 'image/*';
    if (typeof block.data === 'string')
      return {
        type: 'image_url',
        image_url: { url: `data:${String(mime)};base64,${block.data}` },
      } as never;
  }
  return undefined;
}

/**
 * User, system or tool content: plain text as a string (as `wrapOpenAI` records it), images as
 * image parts, any other block kept as it is.
 * @internal
 */
export function contentOf(content: unknown): string | ContentPart[] | null {
  if (content === undefined || content === null) return null;
  const text = textOf(content);
  if (text !== undefined) return text;
  if (!Array.isArray(content)) return stringify(content);
  const parts: ContentPart[] = [];
  for (const block of content as LooseBlock[]) {
    if (typeof block !== 'object' || block === null) continue;
    if (block.type === 'text' && typeof block.text === 'string')
      parts.push({ type: 'text', text: block.text });
    else parts.push(imagePart(block) ?? (block as ContentPart));
  }
  return parts;
}

/**
 * The text of an assistant message: text blocks only (reasoning is recorded as THINK, tool
 * calls as TOOL_CALL blocks), `null` when there is none.
 * @internal
 */
export function assistantText(content: unknown): string | null {
  if (typeof content === 'string') return content === '' ? null : content;
  if (!Array.isArray(content)) return content == null ? null : stringify(content);
  let text = '';
  for (const block of content as LooseBlock[])
    if (
      typeof block === 'object' &&
      block !== null &&
      (block.type === 'text' || block.type === 'output_text') &&
      typeof block.text === 'string'
    )
      text += block.text;
  return text === '' ? null : text;
}

/**
 * An assistant message's tool calls in the chat-event shape, as the answer was recorded
 * (`messageToResponse`): `tool_calls`, then `invalid_tool_calls` (arguments that did not parse,
 * as their text), in the provider's order when it is known, a call without an id as `""`
 * (decision 030: core gives it one in the trace).
 * The same calls in the same order, so a re-sent answer is known as the recorded one.
 */
function toolCallsOf(message: LooseMessage): NeutralToolCall[] | undefined {
  const calls = message.tool_calls;
  const invalid = message.invalid_tool_calls;
  if (
    (calls === undefined || calls.length === 0) &&
    (invalid === undefined || invalid.length === 0)
  )
    return undefined;
  const neutral: NeutralToolCall[] = [];
  for (const call of calls ?? [])
    neutral.push({
      id: typeof call.id === 'string' ? call.id : '',
      type: 'function',
      function: { name: call.name, arguments: call.args ?? {} },
    });
  if (invalid === undefined || invalid.length === 0) return neutral;
  for (const call of invalid)
    neutral.push({
      id: typeof call.id === 'string' ? call.id : '',
      type: 'function',
      function: { name: call.name ?? 'unknown', arguments: call.args ?? '' },
    });
  return inProviderOrder(neutral, message.additional_kwargs?.tool_calls);
}

/**
 * The text a tool message stands for, as the model reads it: string content as it is, text
 * blocks joined, anything else as JSON.
 * @internal
 */
export function toolContentOf(content: unknown): unknown {
  const text = textOf(content);
  if (text !== undefined) return text;
  return contentOf(content);
}

/**
 * Converts the messages of one LangChain chat-model request to the neutral chat-event messages
 * the recorder takes: `human` → `user` (plain text as a string), `ai` → `assistant` with
 * `tool_calls`, `tool` → `tool` with its `tool_call_id`, `system` → `system` (or `developer`).
 * @internal
 */
export function messagesToNeutral(messages: readonly LooseMessage[]): NeutralMessage[] {
  const result: NeutralMessage[] = new Array(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as LooseMessage;
    // The same message object re-sent with the same fields gets the same neutral object: the
    // recorder then knows it without fingerprinting it again (its same-object fast path).
    const cached = converted.get(message);
    if (
      cached !== undefined &&
      cached.content === message.content &&
      cached.toolCalls === message.tool_calls &&
      cached.invalidToolCalls === message.invalid_tool_calls &&
      cached.toolCallId === message.tool_call_id
    ) {
      result[i] = cached.neutral;
      continue;
    }
    const neutral = messageToNeutral(message);
    if (typeof message === 'object' && message !== null)
      converted.set(message, {
        content: message.content,
        toolCalls: message.tool_calls,
        invalidToolCalls: message.invalid_tool_calls,
        toolCallId: message.tool_call_id,
        neutral,
      });
    result[i] = neutral;
  }
  return result;
}

/** Conversions by message object, with the fields they were made from. */
const converted = new WeakMap<
  object,
  {
    content: unknown;
    toolCalls: unknown;
    invalidToolCalls: unknown;
    toolCallId: unknown;
    neutral: NeutralMessage;
  }
>();

function messageToNeutral(message: LooseMessage): NeutralMessage {
  {
    const role = roleOf(message);
    let neutral: NeutralMessage;
    if (role === 'assistant') {
      neutral = { role, content: assistantText(message.content) };
      const calls = toolCallsOf(message);
      if (calls !== undefined) neutral.tool_calls = calls;
    } else if (role === 'tool') {
      neutral = {
        role,
        content: toolContentOf(message.content) as string | ContentPart[] | null,
        tool_call_id: typeof message.tool_call_id === 'string' ? message.tool_call_id : undefined,
      };
      // an error ToolMessage (a tool node's caught error, a guard's refusal) failed
      if (message.status === 'error') neutral.status = 'failure';
      else if (message.status === 'success') neutral.status = 'success';
    } else {
      neutral = { role, content: contentOf(message.content) };
      if (typeof message.name === 'string' && message.name !== '') neutral.name = message.name;
    }
    return neutral;
  }
}
