import { encodedJson } from '../sinks/json-bytes.js';

/**
 * A number as `JSON.stringify` writes it: its shortest round-trip form (`String(n)`, which is
 * `"0"` for `-0`), and `null` when it is not finite. ASCII.
 * @internal
 */
export function numberJson(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * `JSON.stringify` of strings that recur from one guarded call to the next (a session id, a
 * status, a millisecond's timestamp), UTF-8 encoded: the last few are kept, so a repeat costs a
 * comparison instead of a scan for characters to escape and an encoding.
 * @internal
 */
export class JsonQuotes {
  private readonly texts: string[] = ['', '', '', ''];
  private readonly quoted: Uint8Array[] = [];
  private next = 0;

  constructor() {
    const empty = encodedJson('""');
    for (let i = 0; i < 4; i++) this.quoted.push(empty);
  }

  /** The bytes of `JSON.stringify(text)`. */
  readonly quote = (text: string): Uint8Array => {
    const texts = this.texts;
    for (let i = 0; i < 4; i++) if (texts[i] === text) return this.quoted[i] as Uint8Array;
    const quoted = encodedJson(JSON.stringify(text));
    const slot = this.next;
    texts[slot] = text;
    this.quoted[slot] = quoted;
    this.next = (slot + 1) & 3;
    return quoted;
  };
}
