// Text hidden from a reader (decision 050): Unicode tag characters, bytes in variation
// selectors, runs of numeric character references, and base64 / hex / percent-encoded runs,
// revealed as the text they stand for before the detector's normalisation reads it.

// Unicode tag characters (U+E0020-U+E007E, the surrogate pairs \uDB40\uDC20-\uDB40\uDC7E) shadow
// ASCII and are invisible in most interfaces: "ASCII smuggling" hides a whole instruction in them.
// A run of them reads as its ASCII, marked so the `hidden-characters` signal sees it; a flag
// emoji's tags (after U+1F3F4, ended by U+E007F) are a flag, not text.
const tagHint = /\uDB40[\uDC00-\uDC7F]/;
const tagRun = /(?:\uDB40[\uDC00-\uDC7F])+/g;
/** The marker a run of tag characters leaves in the normalised text. */
export const TAGGED_MARKER = '\ue000tagged\ue000';
function revealTags(text: string): string {
  return text.replace(tagRun, (run: string, offset: number) => {
    if (text.charCodeAt(offset - 2) === 0xd83c && text.charCodeAt(offset - 1) === 0xdff4)
      return run;
    let ascii = '';
    for (let i = 1; i < run.length; i += 2) {
      const c = run.charCodeAt(i) - 0xdc00;
      if (c >= 0x20 && c <= 0x7e) ascii += String.fromCharCode(c);
    }
    return ascii.length < 4 ? ascii : ` ${TAGGED_MARKER} ${ascii} `;
  });
}

// Variation selectors smuggling bytes (U+FE00-FE0F for 0-15, U+E0100-E01EF for 16-255, after a
// visible character such as an emoji): each selector one byte of UTF-8 text the eye never sees
const selectorHint = /(?:[\uFE00-\uFE0F]|\uDB40[\uDD00-\uDDEF]){4}/;
const selectorRun = /(?:[\uFE00-\uFE0F]|\uDB40[\uDD00-\uDDEF]){4,}/g;
// The text a run of selectors carries, or `null` (a run of emoji presentation selectors)
function decodeSelectors(run: string): string | null {
  const bytes: number[] = [];
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    if (c >= 0xfe00 && c <= 0xfe0f) bytes.push(c - 0xfe00);
    else {
      bytes.push(run.charCodeAt(i + 1) - 0xdd00 + 16);
      i++;
    }
  }
  const decoded = decodeBytes(new Uint8Array(bytes));
  return decoded !== null && /[a-z]{2}/i.test(decoded) ? decoded : null;
}
function revealSelectors(text: string): string {
  return text.replace(selectorRun, (run: string) => {
    const decoded = decodeSelectors(run);
    return decoded === null ? run : ` ${TAGGED_MARKER} ${decoded} `;
  });
}

// Numeric character references written to hide text from a reader of the source ("&#73;&#103;
// &#110;..."): four or more in a row read as the characters they stand for
const entityRun = /(?:&#(?:\d{1,7}|[xX][0-9a-fA-F]{1,6});\s?){4,}/g;
function decodeEntities(run: string): string {
  let decoded = '';
  for (const match of run.matchAll(/&#(?:(\d{1,7})|[xX]([0-9a-fA-F]{1,6}));(\s?)/g)) {
    const code = match[1] === undefined ? Number.parseInt(match[2] ?? '', 16) : Number(match[1]);
    if (code < 0x20 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return run;
    decoded += String.fromCodePoint(code) + (match[3] ?? '');
  }
  return ` ${decoded} `;
}

// Encoded text: base64 (also URL-safe), hex and percent-encoding runs long enough to hold an
// instruction. Decoded only when the result reads as text (valid UTF-8, printable, with spaces
// between words): keys, hashes and ids decode to bytes and stay as they are. The work is bounded:
// at most MAX_DECODED runs of at most MAX_RUN characters each per text.
const encodedHint = /[A-Za-z0-9+/_-]{24,}|(?:%[0-9A-Fa-f]{2}[^%\s]{0,3}){6}/;
const encodedRun =
  /[A-Za-z0-9+/_-]{24,}={0,2}|(?:[0-9A-Fa-f]{2}){12,}|[^\s%"'<>]{0,40}(?:%[0-9A-Fa-f]{2}[^\s%"'<>]{0,3}){6,}/g;
const MAX_DECODED = 32;
const MAX_RUN = 4096;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const hexOnly = /^[0-9A-Fa-f]+$/;
const control = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/**
 * Whether decoded bytes read as text: words of letters with spaces between them (an account
 * number or an amount among them), no control characters.
 */
function readsAsText(text: string): boolean {
  if (control.test(text)) return false;
  let letters = 0;
  let spaces = 0;
  for (const c of text) {
    if (/\p{L}/u.test(c)) letters++;
    else if (c === ' ') spaces++;
  }
  return spaces >= 2 && letters >= text.length * 0.3 && letters + spaces >= text.length * 0.6;
}

function decodeBytes(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The text an encoded run stands for, or `null` when it is none (a key, a hash, an id). */
function decodeRun(run: string): string | null {
  if (run.length > MAX_RUN) return null;
  let decoded: string | null = null;
  if (run.includes('%')) {
    try {
      decoded = decodeURIComponent(run.replaceAll('+', ' '));
    } catch {
      return null;
    }
  } else if (hexOnly.test(run) && run.length % 2 === 0) {
    const bytes = new Uint8Array(run.length / 2);
    for (let i = 0; i < bytes.length; i++)
      bytes[i] = Number.parseInt(run.slice(2 * i, 2 * i + 2), 16);
    decoded = decodeBytes(bytes);
  }
  if (decoded === null || !readsAsText(decoded)) {
    let b64 = run.replace(/=+$/, '').replaceAll('-', '+').replaceAll('_', '/');
    b64 = b64.slice(0, b64.length - (b64.length % 4 === 1 ? 1 : 0));
    b64 += '='.repeat((4 - (b64.length % 4)) % 4);
    try {
      const binary = atob(b64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      decoded = decodeBytes(bytes);
    } catch {
      return null;
    }
  }
  return decoded !== null && readsAsText(decoded) ? decoded.replace(/\s+/g, ' ').trim() : null;
}

/**
 * The encoded runs of a text that decode to text (base64, hex, percent-encoding), with their
 * offsets: at most 32 runs tried, each of at most 4,096 characters.
 * @param text - any text
 * @returns `{ start, end, decoded }` of each run that reads as text, in order
 * @internal
 */
export function findEncodedText(text: string): { start: number; end: number; decoded: string }[] {
  if (!encodedHint.test(text)) return [];
  const out: { start: number; end: number; decoded: string }[] = [];
  let tried = 0;
  encodedRun.lastIndex = 0;
  for (
    let m = encodedRun.exec(text);
    m !== null && tried < MAX_DECODED;
    m = encodedRun.exec(text)
  ) {
    tried++;
    const decoded = decodeRun(m[0]);
    if (decoded !== null) out.push({ start: m.index, end: m.index + m[0].length, decoded });
  }
  return out;
}

/**
 * The runs of a text that hide text: runs of Unicode tag characters (read as ASCII), bytes in
 * variation selectors, runs of numeric character references, and encoded runs that decode to
 * text ({@link findEncodedText}), with their offsets in `text`.
 * @param text - any text
 * @returns `{ start, end, text }` of each run, tag runs first, encoded runs last
 * @internal
 */
export function findHiddenText(text: string): { start: number; end: number; text: string }[] {
  const out: { start: number; end: number; text: string }[] = [];
  if (tagHint.test(text)) {
    // (a regex of its own: `revealTags` resets `tagRun` at each call)
    const runs = new RegExp(tagRun.source, 'g');
    for (let m = runs.exec(text); m !== null; m = runs.exec(text)) {
      const flag =
        text.charCodeAt(m.index - 2) === 0xd83c && text.charCodeAt(m.index - 1) === 0xdff4;
      const read = revealTags(m[0]);
      if (!flag && read.includes(TAGGED_MARKER))
        out.push({ start: m.index, end: m.index + m[0].length, text: read });
    }
  }
  // bytes in variation selectors and runs of character references: what the detector's
  // normalisation reads (`revealHiddenText`), so a request hidden there is found as well
  if (selectorHint.test(text)) {
    for (const m of text.matchAll(new RegExp(selectorRun.source, 'g'))) {
      const decoded = decodeSelectors(m[0]);
      if (decoded !== null) out.push({ start: m.index, end: m.index + m[0].length, text: decoded });
    }
  }
  if (text.includes('&#')) {
    for (const m of text.matchAll(new RegExp(entityRun.source, 'g'))) {
      const decoded = decodeEntities(m[0]).trim();
      if (decoded !== m[0].trim())
        out.push({ start: m.index, end: m.index + m[0].length, text: decoded });
    }
  }
  for (const run of findEncodedText(text))
    out.push({ start: run.start, end: run.end, text: run.decoded });
  return out;
}

/**
 * The text with hidden text revealed: tag characters read as their ASCII (marked), and encoded
 * runs that decode to text replaced by it (one level of encoding; line breaks kept as they are).
 * @param text - any text
 * @returns the text to normalise
 * @internal
 */
export function revealHiddenText(text: string): string {
  let out = tagHint.test(text) ? revealTags(text) : text;
  if (selectorHint.test(out)) out = revealSelectors(out);
  if (out.includes('&#')) out = out.replace(entityRun, decodeEntities);
  const runs = findEncodedText(out);
  if (runs.length === 0) return out;
  let revealed = '';
  let copied = 0;
  for (const run of runs) {
    revealed += `${out.slice(copied, run.start)} ${run.decoded} `;
    copied = run.end;
  }
  out = revealed + out.slice(copied);
  return out;
}
