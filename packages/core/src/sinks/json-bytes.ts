const newline = 10;
/** Room every checked write leaves after itself, for {@link JsonBytes.literalInRoom}. */
const room = 1024;

// UTF-8 JSON text written straight into bytes (Node's Buffer: only file sinks make one).

/**
 * A growing buffer of UTF-8 JSON text: how the JSONL file sink keeps the lines it has not
 * appended yet, and where a tracer writes a guarded call's blocks as JSON (see
 * `GuardedCallJson`). Writing into one buffer instead of making a string per line keeps a traced
 * call's allocation small: the blocks a trace holds live in the young generation, so every
 * scavenge copies them, and each allocated byte brings the next scavenge closer (decision 080).
 * @internal
 */
export class JsonBytes {
  /** The text written so far is `bytes[0, length)`. */
  bytes: Buffer;
  length = 0;

  constructor(capacity: number) {
    this.bytes = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  /** Makes room for `count` more bytes, and {@link literalInRoom}'s 1 KiB after them. */
  ensure(count: number): void {
    const needed = this.length + count + room;
    if (needed <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.bytes.length * 2));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  /** Appends bytes (literal JSON text, already encoded). */
  literal(text: Uint8Array): void {
    this.ensure(text.length);
    this.bytes.set(text, this.length);
    this.length += text.length;
  }

  /**
   * Appends at most 1 KiB of bytes (since the last checked write) without checking for room:
   * every other write (and {@link ensure}) leaves that much. For the fixed text of a block
   * between its values: one check per value instead of one per piece.
   */
  literalInRoom(text: Uint8Array): void {
    this.bytes.set(text, this.length);
    this.length += text.length;
  }

  /** Appends text known to be ASCII (digits, a ULID): one byte per character. */
  ascii(text: string): void {
    const count = text.length;
    this.ensure(count);
    const bytes = this.bytes;
    const at = this.length;
    for (let i = 0; i < count; i++) bytes[at + i] = text.charCodeAt(i);
    this.length = at + count;
  }

  /** Appends any text, UTF-8 encoded (as `Buffer.from(text)` would: lone surrogates as U+FFFD). */
  text(text: string): void {
    // a UTF-16 code unit is at most 3 UTF-8 bytes
    this.ensure(text.length * 3);
    this.length += this.bytes.write(text, this.length);
  }

  /** Appends a newline. */
  newline(): void {
    this.ensure(1);
    this.bytes[this.length++] = newline;
  }
}

const encoder = new TextEncoder();

/** A JSON literal's text, UTF-8 encoded once (for {@link JsonBytes.literal}). @internal */
export function encodedJson(text: string): Uint8Array {
  return encoder.encode(text);
}
