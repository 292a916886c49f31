import type { ContentPart } from '../model/index.js';

/**
 * Normalises content parts to the chat-event form (`image_url` objects become strings,
 * `input_text`/`output_text` become `text`); other content becomes its JSON text.
 * @internal
 */
export function normalizeContent(content: unknown): string | ContentPart[] | null {
  if (content === undefined || content === null) return null;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  const parts: ContentPart[] = [];
  for (const part of content as unknown[]) {
    if (typeof part !== 'object' || part === null) continue;
    const record = part as Record<string, unknown>;
    const type = record.type;
    if ((type === 'input_text' || type === 'output_text') && typeof record.text === 'string') {
      parts.push({ type: 'text', text: record.text });
    } else if (
      type === 'image_url' &&
      typeof record.image_url === 'object' &&
      record.image_url !== null
    ) {
      parts.push({
        type: 'image',
        image_url: String((record.image_url as { url?: unknown }).url ?? ''),
      });
    } else if (type === 'input_image' && typeof record.image_url === 'string') {
      parts.push({ type: 'image', image_url: record.image_url });
    } else if (typeof type === 'string') {
      parts.push(record as ContentPart);
    }
  }
  return parts;
}
