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
    if (
      typeof record.type !== 'string' ||
      !textPartTypes.has(record.type) ||
      typeof record.text !== 'string'
    )
      return undefined;
    text += record.text;
  }
  return text;
}

/**
 * Parses tool-call arguments as a TOOL_CALL records them: JSON text of an object is that object,
 * empty text is `{}`, and anything else is `{}` with `valid: false` (the recorder then keeps the
 * text as `invalid_arguments`). For adapters that match a call against its recorded TOOL_CALL.
 * @param value - the arguments as the model sent them (JSON text, or an object)
 * @returns the object the TOOL_CALL records, and whether the arguments were valid
 * @example
 * ```ts
 * parseToolArguments('{"q":"x"}'); // { value: { q: 'x' }, valid: true }
 * parseToolArguments('not json'); // { value: {}, valid: false }
 * ```
 */
export function parseToolArguments(value: unknown): {
  value: Record<string, unknown>;
  valid: boolean;
} {
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
    const parsed = parseToolArguments(value);
    return parsed.valid ? JSON.stringify(parsed.value) : value;
  }
  return JSON.stringify(value ?? {});
}

function toolCallsKey(calls: readonly NeutralToolCall[] | undefined): string {
  if (calls === undefined || calls.length === 0) return '';
  let key = '';
  for (const call of calls)
    key += `${call.id}\u0000${call.function?.name}\u0000${canonicalArguments(call.function?.arguments)}\u0001`;
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
  const content =
    text !== undefined ? text : message.content == null ? '' : JSON.stringify(message.content);
  return `${role}\u0002${content}\u0002${toolCallsKey(message.tool_calls)}\u0002${message.tool_call_id ?? ''}`;
}

/** Two 32-bit halves of a fast string hash (cyrb53's mixing). Not cryptographic. @internal */
export function hashPair(text: string): [number, number] {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [h1 >>> 0, h2 >>> 0];
}

// Running state of the incremental form of `hashPair` (single-threaded, never re-entered).
let runningH1 = 0;
let runningH2 = 0;

function feed(text: string): void {
  let h1 = runningH1;
  let h2 = runningH2;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  runningH1 = h1;
  runningH2 = h2;
}

// The running state after the fingerprint's constant start, `assistant\u0002`, fed once.
runningH1 = 0xdeadbeef;
runningH2 = 0x41c6ce57;
feed('assistant\u0002');
const assistantH1 = runningH1;
const assistantH2 = runningH2;

/**
 * `hashPair(messageFingerprint(message))` of the assistant message a response becomes (its text
 * and tool calls, as the caller re-sends it), hashed piece by piece: no message object and no
 * fingerprint string (a concatenation the hash loop would first have to flatten) per call.
 * @internal
 */
export function responseHashPair(
  text: string | null,
  calls: readonly { id: string; name: string; arguments: unknown }[],
): [number, number] {
  runningH1 = assistantH1;
  runningH2 = assistantH2;
  if (text !== null) feed(text);
  feed('\u0002');
  for (const call of calls) {
    // String(): a provider may leave id or name out; the fingerprint then reads "undefined"
    feed(String(call.id));
    feed('\u0000');
    feed(String(call.name));
    feed('\u0000');
    feed(canonicalArguments(call.arguments));
    feed('\u0001');
  }
  feed('\u0002');
  let h1 = runningH1;
  let h2 = runningH2;
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [h1 >>> 0, h2 >>> 0];
}

/** A conversation prefix: 64 bits as two numbers (no text form: sets of them are {@link PairSet}s). @internal */
export interface ChainKey {
  readonly a: number;
  readonly b: number;
}

/** The chain key of the empty conversation. @internal */
export const rootChainKey: ChainKey = { a: 0x9e3779b9, b: 0x7f4a7c15 };

/**
 * A set of 64-bit keys given as two uint32 halves, without building a string per key: a map
 * from the first half to the second (or, rarely, to a set of them). @internal
 */
export class PairSet {
  private readonly map = new Map<number, number | Set<number>>();

  has(a: number, b: number): boolean {
    const entry = this.map.get(a);
    if (entry === undefined) return false;
    return typeof entry === 'number' ? entry === b : entry.has(b);
  }

  add(a: number, b: number): void {
    const entry = this.map.get(a);
    if (entry === undefined) this.map.set(a, b);
    else if (typeof entry === 'number') {
      if (entry !== b) this.map.set(a, new Set([entry, b]));
    } else entry.add(b);
  }
}

/**
 * A map from 64-bit keys given as two uint32 halves (see {@link PairSet}) to values. @internal
 */
export class PairMap<V> {
  private readonly map = new Map<number, Map<number, V>>();

  get(a: number, b: number): V | undefined {
    return this.map.get(a)?.get(b);
  }

  set(a: number, b: number, value: V): void {
    let inner = this.map.get(a);
    if (inner === undefined) {
      inner = new Map();
      this.map.set(a, inner);
    }
    inner.set(b, value);
  }
}

/**
 * The key of a conversation prefix: the previous prefix's key mixed with one message
 * fingerprint's hash. Two conversations share a key exactly when they share the whole prefix
 * (up to 64-bit hash collisions). Mixing is O(1); only the new fingerprint is hashed.
 * @internal
 */
export function chainKey(previous: ChainKey, fingerprint: string): ChainKey {
  const [h1, h2] = hashPair(fingerprint);
  return mixChainKey(previous, h1, h2);
}

/** The chain key after `previous` of a fingerprint hashed to `h1`, `h2`. @internal */
export function mixChainKey(previous: ChainKey, h1: number, h2: number): ChainKey {
  let a = Math.imul(previous.a ^ h1, 0x85ebca6b) ^ Math.imul(previous.b, 0xc2b2ae35);
  let b = Math.imul(previous.b ^ h2, 0x27d4eb2f) ^ Math.imul(previous.a, 0x165667b1);
  a = (a ^ (a >>> 15)) >>> 0;
  b = (b ^ (b >>> 13)) >>> 0;
  return { a, b };
}

/** What {@link messageStep} remembers of one message content. */
interface StepMemo {
  role: unknown;
  toolCallId: unknown;
  fingerprint: string;
  h1: number;
  h2: number;
  /** The last prefix this message followed, and the key it made: a conversation re-sent turn after turn hits it. */
  previous: ChainKey | undefined;
  next: ChainKey | undefined;
}

/**
 * Memos keyed by the message's content text (`''` for none), not by message object: frameworks
 * such as the AI SDK rebuild every prompt message object on every step, so an identity-keyed memo
 * (a WeakMap) missed on every call and paid an ephemeron entry per message for the GC; the same
 * content string comes back, and V8 caches a string's hash, so the lookup is O(1) after the first.
 * Bounded by entries and by characters kept (cleared when either is passed).
 */
const memos = new Map<string, StepMemo>();
const maxMemos = 4096;
const maxMemoChars = 8 * 1024 * 1024;
let memoChars = 0;

/**
 * The fingerprint of a message and the chain key it makes after `previous`: the same as
 * `messageFingerprint` and `chainKey`, remembered per content text, so that history re-sent on
 * every turn is not re-serialised and re-hashed. Only messages whose fingerprint depends on
 * role, content and tool_call_id alone are remembered (string or no content, no tool calls), and
 * a memo is used only while role and tool_call_id are the very same values.
 * @internal
 */
export function messageStep(
  previous: ChainKey,
  message: NeutralMessage,
): { fingerprint: string; key: ChainKey } {
  const content = message.content;
  const cacheable =
    (typeof content === 'string' || content === null || content === undefined) &&
    (message.tool_calls === undefined || message.tool_calls.length === 0);
  if (!cacheable) {
    const fingerprint = messageFingerprint(message);
    return { fingerprint, key: chainKey(previous, fingerprint) };
  }
  // null, undefined and '' content have one fingerprint (no content)
  const text = typeof content === 'string' ? content : '';
  let memo = memos.get(text);
  if (
    memo === undefined ||
    memo.role !== message.role ||
    memo.toolCallId !== message.tool_call_id
  ) {
    const fingerprint = messageFingerprint(message);
    const [h1, h2] = hashPair(fingerprint);
    memo = {
      role: message.role,
      toolCallId: message.tool_call_id,
      fingerprint,
      h1,
      h2,
      previous: undefined,
      next: undefined,
    };
    if (memos.size >= maxMemos || memoChars + text.length > maxMemoChars) {
      memos.clear();
      memoChars = 0;
    }
    if (text.length <= maxMemoChars) {
      if (!memos.has(text)) memoChars += text.length;
      memos.set(text, memo);
    }
  }
  if (
    memo.next === undefined ||
    memo.previous === undefined ||
    (memo.previous !== previous &&
      (memo.previous.a !== previous.a || memo.previous.b !== previous.b))
  ) {
    memo.previous = previous;
    memo.next = mixChainKey(previous, memo.h1, memo.h2);
  }
  return { fingerprint: memo.fingerprint, key: memo.next };
}
