import type { ContentPart, NeutralMessage, NeutralToolCall } from '@tracewarden/core';

/**
 * A prompt message as the AI SDK hands it over: the model layer's `LanguageModelV4Prompt`
 * (to middleware) or the SDK layer's `ModelMessage` (to telemetry). The two differ only where
 * this reads loosely (string or part contents, `input` as object or text).
 */
interface PromptMessage {
  role: string;
  content: unknown;
}

interface PromptPart {
  type: string;
  text?: unknown;
  toolCallId?: unknown;
  toolName?: unknown;
  input?: unknown;
  output?: unknown;
  mediaType?: unknown;
  data?: unknown;
  image?: unknown;
  url?: unknown;
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
 * The text a tool result stands for, as the model reads it: `text` and `error-text` values as
 * they are, JSON values as JSON text, a denial as its reason.
 * @internal
 */
export function toolOutputText(output: unknown): string {
  if (typeof output !== 'object' || output === null) return stringify(output);
  const { type, value, reason } = output as { type?: unknown; value?: unknown; reason?: unknown };
  switch (type) {
    case 'text':
    case 'error-text':
      return typeof value === 'string' ? value : stringify(value);
    case 'json':
    case 'error-json':
      return stringify(value);
    case 'execution-denied':
      return typeof reason === 'string' ? reason : 'Tool execution denied.';
    case 'content':
      return Array.isArray(value)
        ? value
            .map((part: { type?: unknown; text?: unknown }) =>
              part?.type === 'text' && typeof part.text === 'string' ? part.text : '',
            )
            .join('')
        : stringify(value);
    default:
      return stringify(output);
  }
}

/**
 * The JSON value of a `json` tool result, else `undefined`. Never an `error-json` value: a failed
 * run is recorded as the error text the model reads, as `guardTools` and the telemetry
 * integration record a failure.
 */
function toolOutputValue(output: unknown): unknown {
  if (typeof output !== 'object' || output === null) return undefined;
  const { type, value } = output as { type?: unknown; value?: unknown };
  return type === 'json' ? value : undefined;
}

/** Whether a tool result stands for a failed run (an error, or a denied execution). */
function toolOutputFailed(output: unknown): boolean {
  const type = (output as { type?: unknown } | null)?.type;
  return type === 'error-text' || type === 'error-json' || type === 'execution-denied';
}

function dataUrl(part: PromptPart): string | undefined {
  const media = typeof part.mediaType === 'string' ? part.mediaType : 'application/octet-stream';
  let data = part.data ?? part.image;
  // V4 file data is tagged: { type: 'data' | 'url' | 'text', ... }
  if (typeof data === 'object' && data !== null && 'type' in data) {
    const tagged = data as { type: string; data?: unknown; url?: unknown; text?: unknown };
    if (tagged.type === 'url') return String(tagged.url);
    data = tagged.type === 'data' ? tagged.data : tagged.text;
  }
  if (data instanceof URL) return data.href;
  if (typeof data === 'string')
    return /^(https?:|data:)/.test(data) ? data : `data:${media};base64,${data}`;
  if (data instanceof Uint8Array)
    return `data:${media};base64,${Buffer.from(data).toString('base64')}`;
  return undefined;
}

/** Media types whose content is text a policy must be able to read. */
const textualMedia =
  /^(?:text\/|application\/(?:json|xml|x-yaml|yaml|csv|x-ndjson|javascript|x-sh)\b|[^;]*\+(?:json|xml)\b)/i;

/**
 * Most characters of an attached text file kept in the trace: a whole file could push the
 * message past its byte limit (64 KB by default), and the message would then not be recorded.
 */
const maxFileTextChars = 16_384;

/** The text of an attached file of a textual media type, when the part carries its data. */
function fileText(
  part: PromptPart,
  media: string,
): { text: string; truncated: boolean } | undefined {
  if (!textualMedia.test(media)) return undefined;
  let data = part.data;
  // V4 file data is tagged: { type: 'data' | 'url' | 'text', ... }
  if (typeof data === 'object' && data !== null && 'type' in data) {
    const tagged = data as { type: string; data?: unknown; text?: unknown };
    if (tagged.type === 'text')
      return typeof tagged.text === 'string' ? cut(tagged.text) : undefined;
    if (tagged.type !== 'data') return undefined;
    data = tagged.data;
  }
  let text: string;
  if (data instanceof Uint8Array) text = new TextDecoder().decode(data);
  else if (typeof data === 'string' && !/^(?:https?:|data:)/.test(data))
    text = Buffer.from(data, 'base64').toString('utf8');
  else return undefined;
  return cut(text);
}

function cut(text: string): { text: string; truncated: boolean } {
  return text.length <= maxFileTextChars
    ? { text, truncated: false }
    : { text: text.slice(0, maxFileTextChars), truncated: true };
}

/** User or system content: plain text stays a string; files become image or file parts. */
function contentOf(content: unknown): string | ContentPart[] | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined ? null : stringify(content);
  // All text (a user or system message, usually): one string, no part objects on the way.
  let text = '';
  let allText = true;
  for (const raw of content as PromptPart[]) {
    if (raw?.type === 'text') text += String(raw.text ?? '');
    else if (raw?.type === 'file' || raw?.type === 'image') {
      allText = false;
      break;
    }
  }
  if (allText) return text;
  const parts: ContentPart[] = [];
  for (const raw of content as PromptPart[]) {
    if (raw?.type === 'text') parts.push({ type: 'text', text: String(raw.text ?? '') });
    else if (raw?.type === 'file' || raw?.type === 'image') {
      const media = typeof raw.mediaType === 'string' ? raw.mediaType : 'image/*';
      const url = dataUrl(raw);
      if ((raw.type === 'image' || media.startsWith('image')) && url !== undefined)
        parts.push({ type: 'image_url', image_url: { url } } as ContentPart);
      else {
        // a text file's content is what the model reads: kept, so policies read it too
        const read = raw.type === 'file' ? fileText(raw, media) : undefined;
        parts.push(
          (read === undefined
            ? { type: 'file', media_type: media }
            : {
                type: 'file',
                media_type: media,
                text: read.text,
                ...(read.truncated ? { text_truncated: true } : {}),
              }) as ContentPart,
        );
      }
    }
  }
  return parts;
}

/**
 * Converts an AI SDK prompt (the model layer's, or the SDK layer's messages plus instructions)
 * to the neutral chat-event messages the recorder takes: user text parts become one string (as
 * `wrapOpenAI` records a string), assistant tool calls become `tool_calls`, and each tool
 * result becomes a `tool` message with its text (and a JSON result's value as `outputValue`,
 * which the trace records as the TOOL_RESULT's output, as `guardTools` and the telemetry
 * integration record it).
 * @internal
 */
export function promptToNeutral(
  prompt: readonly PromptMessage[],
  instructions?: unknown,
): NeutralMessage[] {
  const messages: NeutralMessage[] = [];
  if (instructions !== undefined && instructions !== null) {
    const list = Array.isArray(instructions) ? instructions : [instructions];
    for (const instruction of list) {
      const text =
        typeof instruction === 'string'
          ? instruction
          : contentOf((instruction as { content?: unknown })?.content);
      if (text !== null && text !== '') messages.push({ role: 'system', content: text });
    }
  }
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
      case 'user':
        messages.push({ role: message.role, content: contentOf(message.content) });
        break;
      case 'assistant': {
        const parts: PromptPart[] =
          typeof message.content === 'string'
            ? [{ type: 'text', text: message.content }]
            : Array.isArray(message.content)
              ? (message.content as PromptPart[])
              : [];
        let text = '';
        const calls: NeutralToolCall[] = [];
        for (const part of parts) {
          if (part.type === 'text') text += String(part.text ?? '');
          else if (part.type === 'tool-call')
            calls.push({
              id: String(part.toolCallId),
              type: 'function',
              function: {
                name: String(part.toolName),
                arguments:
                  typeof part.input === 'string'
                    ? part.input
                    : ((part.input ?? {}) as Record<string, unknown>),
              },
            });
        }
        const neutral: NeutralMessage = { role: 'assistant', content: text === '' ? null : text };
        if (calls.length > 0) neutral.tool_calls = calls;
        messages.push(neutral);
        break;
      }
      case 'tool':
        if (Array.isArray(message.content))
          for (const part of message.content as PromptPart[])
            if (part.type === 'tool-result') {
              const neutral: NeutralMessage = {
                role: 'tool',
                tool_call_id: String(part.toolCallId),
                content: toolOutputText(part.output),
                status: toolOutputFailed(part.output) ? 'failure' : 'success',
              };
              const value = toolOutputValue(part.output);
              if (value !== undefined) neutral.outputValue = value;
              messages.push(neutral);
            }
        break;
      default:
        messages.push({ role: message.role, content: contentOf(message.content) });
    }
  }
  return messages;
}
