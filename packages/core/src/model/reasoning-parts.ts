/**
 * Reasoning that some exports keep as content parts of an assistant message: Anthropic's
 * `{ type: 'thinking', thinking, signature }` and Inspect AI's `{ type: 'reasoning', reasoning }`
 * (a `redacted` one holds no readable text and stays a part). The chat-event model keeps a
 * message's reasoning in `reasoning_content`, from which `eventsToBlocks` makes THINK blocks.
 */

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
 * line), or the message itself when it has none or already has a `reasoning_content`. A
 * message left with no other part gets `content: null`.
 * @internal
 */
export function withReasoningParts<T extends JsonObject>(message: T): T {
  const content = message.content;
  if (!Array.isArray(content) || message.reasoning_content !== undefined) return message;
  let texts: string[] | undefined;
  const kept: unknown[] = [];
  for (const part of content) {
    const text = reasoningPartText(part);
    if (text === undefined) kept.push(part);
    else (texts ??= []).push(text);
  }
  if (texts === undefined) return message;
  return {
    ...message,
    content: kept.length === 0 ? null : kept,
    reasoning_content: texts.join('\n\n'),
  };
}
