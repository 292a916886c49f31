/**
 * Reasoning that some exports keep as content parts of an assistant message: Anthropic's
 * `{ type: 'thinking', thinking, signature }` and Inspect AI's `{ type: 'reasoning', reasoning }`
 * (a `redacted` one holds no readable text and stays a part). The chat-event model keeps a
 * message's reasoning in `reasoning_content`, from which `eventsToBlocks` makes THINK blocks.
 */

import { keepReasoningItems } from './reasoning-items.js';

type JsonObject = Record<string, unknown>;

/** The reasoning text of a content part, or `undefined` when it is no readable reasoning. */
export function reasoningPartText(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  const { type } = part as JsonObject;
  if (type === 'thinking') {
    const text = (part as JsonObject).thinking;
    return typeof text === 'string' && text !== '' ? text : undefined;
  }
  if (type === 'reasoning' && (part as JsonObject).redacted !== true) {
    const text = (part as JsonObject).reasoning;
    return typeof text === 'string' && text !== '' ? text : undefined;
  }
  return undefined;
}

/**
 * An assistant message with its reasoning parts moved to `reasoning_content` (joined by a blank
 * line), what they hold besides their text (Anthropic's `signature`) kept in its block metadata's
 * `reasoning_items`, or the message itself when it has none or already has a `reasoning_content`. A
 * message left with no other part gets `content: null`.
 * @internal
 */
export function withReasoningParts<T extends JsonObject>(message: T): T {
  const content = message.content;
  if (!Array.isArray(content) || message.reasoning_content !== undefined) return message;
  let texts: string[] | undefined;
  // what the parts hold besides their text (Anthropic's `signature`, which the API needs to be
  // sent the thinking back), in order
  let items: JsonObject[] | undefined;
  const kept: unknown[] = [];
  for (const part of content) {
    const text = reasoningPartText(part);
    if (text === undefined) {
      kept.push(part);
      continue;
    }
    (texts ??= []).push(text);
    const { thinking: _thinking, reasoning: _reasoning, ...rest } = part as JsonObject;
    if (Object.keys(rest).some((key) => key !== 'type' && key !== 'redacted'))
      (items ??= []).push(rest);
  }
  if (texts === undefined) return message;
  const rewritten: JsonObject = {
    ...message,
    content: kept.length === 0 ? null : kept,
    reasoning_content: texts.join('\n\n'),
  };
  if (items !== undefined) keepReasoningItems(rewritten, items);
  return rewritten as T;
}
