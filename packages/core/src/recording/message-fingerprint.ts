import type { NeutralMessage, NeutralToolCall } from './types.js';

const textPartTypes = new Set(['text', 'input_text', 'output_text']);

/**
 * The text of message content when it is only text (a string or text parts), else `undefined`.
 * @internal
 */
export function plainText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const part of content) {
    if (typeof part !== 'object' || part === null) return undefined;
    const record = part as { type?: unknown; text?: unknown };
    if (typeof record.type !== 'string' || !textPartTypes.has(record.type) || typeof record.text !== 'string') return undefined;
    text += record.text;
  }
  return text;
}

/**
 * Parses tool-call arguments to an object when they are JSON text of one.
 * @internal
 */
export function parseArguments(value: unknown): { value: Record<string, unknown>; valid: boolean } {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return { value: value as Record<string, unknown>, valid: true };
  }
  if (typeof value === 'string') {
    if (value.trim() === '') return { value: {}, valid: true };
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        return { value: parsed as Record<string, unknown>, valid: true };
      }
    } catch {
      // fall through: not JSON
    }
  }
  return { value: {}, valid: false };
}

function canonicalArguments(value: unknown): string {
  if (typeof value === 'string') {
    const parsed = parseArguments(value);
    return parsed.valid ? JSON.stringify(parsed.value) : value;
  }
  return JSON.stringify(value ?? {});
}

function toolCallsKey(calls: readonly NeutralToolCall[] | undefined): string {
  if (calls === undefined || calls.length === 0) return '';
  let key = '';
  for (const call of calls) key += `${call.id}\u0000${call.function?.name}\u0000${canonicalArguments(call.function?.arguments)}\u0001`;
  return key;
}

/**
 * A provider-independent fingerprint of a message: role (developer counts as system), content
 * (text parts joined; empty is null), tool calls (id, name, arguments re-serialised) and the
 * answered call id. The same message re-sent in another provider shape has the same fingerprint.
 * @internal
 */
export function messageFingerprint(message: NeutralMessage): string {
  const role = message.role === 'developer' ? 'system' : message.role;
  const text = plainText(message.content);
  const content = text !== undefined ? text : message.content == null ? '' : JSON.stringify(message.content);
  return `${role}\u0002${content}\u0002${toolCallsKey(message.tool_calls)}\u0002${message.tool_call_id ?? ''}`;
}

/**
 * cyrb53: a fast 53-bit string hash. Not cryptographic; collisions are negligible for
 * de-duplicating the messages of one trace.
 */
function hash53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The chain key of the empty conversation. @internal */
export const rootChainKey = '0';

/**
 * The key of a conversation prefix: the previous prefix's key extended by one message
 * fingerprint. Two conversations share a key exactly when they share the whole prefix.
 * @internal
 */
export function chainKey(previous: string, fingerprint: string): string {
  return hash53(`${previous}|${fingerprint}`, 7).toString(36) + hash53(fingerprint, previous.length).toString(36);
}
