import type { Content } from './chat-events.js';
import { markTextPartKey, textPartKey } from './text-part-key.js';
import { describe, invalid, isObject } from './trace-input.js';

type JsonObject = Record<string, unknown>;

function normaliseImage(part: JsonObject, path: string): JsonObject {
  const imageUrl = part.image_url;
  if (typeof imageUrl === 'string') return { ...part, type: 'image' };
  if (isObject(imageUrl) && typeof imageUrl.url === 'string') {
    const { url, ...urlFields } = imageUrl;
    const { image_url: _, ...partFields } = part;
    // Fields beside `url` (OpenAI's `detail`) move up to the part; the part's own fields win.
    return { ...urlFields, ...partFields, type: 'image', image_url: url };
  }
  if (imageUrl === undefined && part.type === 'image') return { ...part };
  throw invalid(
    `${path}.image_url`,
    `Image content at ${path} needs "image_url" as a URL string or an object with a string "url"; got ${describe(imageUrl)}.`,
  );
}

/**
 * An event's content as `parseTrace` keeps it: a string, null, or content parts (a text part's
 * text in `text`, an image part's URL in `image_url`).
 * @throws TraceError `VALIDATION` at the first part that is not readable
 * @internal
 */
export function normaliseContent(value: unknown, path: string): Content {
  if (typeof value === 'string' || value === null) return value;
  if (!Array.isArray(value)) {
    throw invalid(
      path,
      `Content at ${path} must be a string, null or an array of content parts; got ${describe(value)}.`,
    );
  }
  const parts: JsonObject[] = new Array(value.length);
  for (let j = 0; j < value.length; j++) {
    const part: unknown = value[j];
    const partPath = `${path}.${j}`;
    if (!isObject(part)) {
      throw invalid(partPath, `Content part ${partPath} must be an object, got ${describe(part)}.`);
    }
    if (typeof part.type !== 'string') {
      throw invalid(
        `${partPath}.type`,
        `Content part ${partPath} needs a string "type" (e.g. "text", "image"); got ${describe(part.type)}.`,
      );
    }
    if (part.type === 'text') {
      // AgentDojo writes a text part as `{ type: 'text', content: '...' }`
      // (addresses name its `content`: the mark says where the text was)
      if (part.text === undefined && typeof part.content === 'string') {
        const { content, ...rest } = part;
        parts[j] = markTextPartKey({ ...rest, text: content }, 'content');
        continue;
      }
      if (typeof part.text !== 'string') {
        throw invalid(
          `${partPath}.text`,
          `Text content part ${partPath} needs a string "text"; got ${describe(part.text)}.`,
        );
      }
      // a part parsed before keeps its mark (the spread copies enumerable keys only)
      const key = textPartKey(part);
      parts[j] = key === 'text' ? { ...part } : markTextPartKey({ ...part }, key);
    } else if (part.type === 'image' || part.type === 'image_url') {
      parts[j] = normaliseImage(part, partPath);
    } else {
      parts[j] = { ...part };
    }
  }
  return parts as Content;
}

/**
 * Whether `value` is an array of content parts `parseTrace` reads as content (each part an object
 * with a string `type`, a text part with a string `text`, an image part with its URL): what
 * `blocksToEvents` may write as an event's content parts rather than as JSON text.
 * @internal
 */
export function isContentPartList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  try {
    normaliseContent(value, '');
    return true;
  } catch {
    return false;
  }
}

// Tools return data, and some exports keep it as such (`"content": {"temp": 20}`, `42`, a list of
// records): what the model read is its JSON text, as `blocksToEvents` writes such an output. A
// list of typed parts is read as content parts, and a malformed one is an error.
/** @internal */
export function toolOutputContent(value: unknown): unknown {
  if (typeof value === 'string' || value === null || value === undefined) return value;
  if (
    Array.isArray(value) &&
    value.every((part) => isObject(part) && typeof part.type === 'string')
  )
    return value;
  return JSON.stringify(value) ?? value;
}
