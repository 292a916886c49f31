// Invariant's `text(...)` and `image(...)`: the text or image parts of values, flattened.
import { textPartKey } from '../../model/text-part-key.js';
import { PolicyEvent } from './policy-event.js';
import { getMember, MAX_VALUE_DEPTH, valueTooDeep } from './policy-values.js';
import { withLocations } from './value-locations.js';

interface ContentParts {
  kind: 'text' | 'image';
  out: string[];
  locations: (string | undefined)[];
}

/**
 * @internal The text (or image) parts of values, flattened as Invariant's `text(...)` /
 * `image(...)` do: a string is itself, a message or tool output gives the parts of its content, a
 * list of content parts gives each part of the wanted kind, lists recurse, anything else gives
 * nothing.
 */
export function contentParts(
  values: readonly unknown[],
  addresses: readonly (string | undefined)[],
  kind: 'text' | 'image',
): string[] {
  const parts: ContentParts = { kind, out: [], locations: [] };
  for (let i = 0; i < values.length; i++) collectParts(parts, values[i], addresses[i], 0);
  return withLocations(parts.out, parts.locations);
}

function collectParts(
  parts: ContentParts,
  value: unknown,
  address: string | undefined,
  depth: number,
): void {
  if (depth > MAX_VALUE_DEPTH) valueTooDeep(address);
  if (value instanceof PolicyEvent) {
    if (value.kind === 'Message' || value.kind === 'ToolOutput')
      collectParts(parts, value.data.content ?? null, `${value.address}.content`, depth + 1);
    return;
  }
  if (typeof value === 'string') {
    if (parts.kind === 'text') {
      parts.out.push(value);
      parts.locations.push(address);
    }
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      collectParts(
        parts,
        value[i],
        address === undefined ? undefined : `${address}.${i}`,
        depth + 1,
      );
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const part = value as Record<string, unknown>;
  if (parts.kind === 'text' && part.type === 'text' && typeof part.text === 'string') {
    parts.out.push(part.text);
    parts.locations.push(address === undefined ? undefined : `${address}.${textPartKey(part)}`);
  } else if (parts.kind === 'image' && (part.type === 'image_url' || part.type === 'image')) {
    const image = part.image_url;
    if (typeof image === 'string') {
      parts.out.push(image);
      parts.locations.push(address === undefined ? undefined : `${address}.image_url`);
    } else if (typeof getMember(image, 'url') === 'string') {
      parts.out.push(getMember(image, 'url') as string);
      parts.locations.push(address === undefined ? undefined : `${address}.image_url.url`);
    }
  }
}
