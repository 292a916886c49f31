// Character codes of the JSON grammar.
const space = 32;
const tab = 9;
const lineFeed = 10;
const carriageReturn = 13;
const quote = 34;
const backslash = 92;
const comma = 44;
const colon = 58;
const minus = 45;
const plus = 43;
const dot = 46;
const zero = 48;
const nine = 57;
const openBrace = 123;
const closeBrace = 125;
const openBracket = 91;
const closeBracket = 93;

// Longer texts go to JSON.parse: its native loop wins once the call's fixed cost is spread out.
const maxScannedLength = 1024;
// Containers are tracked in the bits of one integer; deeper nesting goes to JSON.parse.
const maxScannedDepth = 31;

/** Whether `JSON.parse(text)` succeeds and returns an object (not null, not an array). */
function parsesToObject(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
}

function skipWhitespace(text: string, at: number): number {
  const length = text.length;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code !== space && code !== lineFeed && code !== carriageReturn && code !== tab) break;
    at++;
  }
  return at;
}

function isHexDigit(code: number): boolean {
  // NaN (past the end) fails every comparison
  return (
    (code >= zero && code <= nine) || (code >= 97 && code <= 102) || (code >= 65 && code <= 70)
  );
}

/** The index after the string opening at `at`, or -1 when it is not a valid JSON string. */
function scanString(text: string, at: number): number {
  const length = text.length;
  at++;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code === quote) return at + 1;
    if (code < 0x20) return -1;
    if (code === backslash) {
      const escaped = text.charCodeAt(at + 1);
      if (escaped === 117) {
        // \uXXXX
        if (
          !isHexDigit(text.charCodeAt(at + 2)) ||
          !isHexDigit(text.charCodeAt(at + 3)) ||
          !isHexDigit(text.charCodeAt(at + 4)) ||
          !isHexDigit(text.charCodeAt(at + 5))
        ) {
          return -1;
        }
        at += 6;
        continue;
      }
      // \" \\ \/ \b \f \n \r \t
      if (
        escaped !== quote &&
        escaped !== backslash &&
        escaped !== 47 &&
        escaped !== 98 &&
        escaped !== 102 &&
        escaped !== 110 &&
        escaped !== 114 &&
        escaped !== 116
      ) {
        return -1;
      }
      at += 2;
      continue;
    }
    at++;
  }
  return -1;
}

function skipDigits(text: string, at: number): number {
  const length = text.length;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code < zero || code > nine) break;
    at++;
  }
  return at;
}

/** The index after the number starting at `at`, or -1 when it is not a valid JSON number. */
function scanNumber(text: string, at: number): number {
  if (text.charCodeAt(at) === minus) at++;
  const first = text.charCodeAt(at);
  if (first === zero) at++;
  else if (first > zero && first <= nine) at = skipDigits(text, at + 1);
  else return -1;
  if (text.charCodeAt(at) === dot) {
    const digit = text.charCodeAt(at + 1);
    if (!(digit >= zero && digit <= nine)) return -1;
    at = skipDigits(text, at + 2);
  }
  const exponent = text.charCodeAt(at);
  if (exponent === 101 || exponent === 69) {
    at++;
    const sign = text.charCodeAt(at);
    if (sign === plus || sign === minus) at++;
    const digit = text.charCodeAt(at);
    if (!(digit >= zero && digit <= nine)) return -1;
    at = skipDigits(text, at + 1);
  }
  return at;
}

/** The index after `word` at `at`, or -1 when the text does not continue with it. */
function scanWord(text: string, at: number, word: string): number {
  for (let i = 0; i < word.length; i++) {
    if (text.charCodeAt(at + i) !== word.charCodeAt(i)) return -1;
  }
  return at + word.length;
}

/** The index after the string, number or literal starting at `at` with `code`, or -1. */
function scanScalar(text: string, at: number, code: number): number {
  if (code === quote) return scanString(text, at);
  if (code === 116) return scanWord(text, at, 'true');
  if (code === 102) return scanWord(text, at, 'false');
  if (code === 110) return scanWord(text, at, 'null');
  return scanNumber(text, at);
}

/**
 * Whether `JSON.parse(text)` would succeed and return an object (not null, not an array),
 * decided without building the value: a short tool-call `arguments` text is checked in a
 * fraction of what parsing it costs. Long or deeply nested texts are handed to `JSON.parse`.
 * @internal
 */
export function isJsonObjectText(text: string): boolean {
  if (text.length > maxScannedLength) return parsesToObject(text);
  let at = skipWhitespace(text, 0);
  if (text.charCodeAt(at) !== openBrace) return false;
  at++;
  // bit d - 1 is set when the container at depth d is an object, clear for an array
  let objects = 1;
  let depth = 1;
  let justOpened = true;
  for (;;) {
    at = skipWhitespace(text, at);
    let code = text.charCodeAt(at);
    let inObject = ((objects >>> (depth - 1)) & 1) === 1;
    if (justOpened && code === (inObject ? closeBrace : closeBracket)) {
      // an empty container
      at++;
      depth--;
      if (depth === 0) return skipWhitespace(text, at) === text.length;
    } else {
      if (inObject) {
        if (code !== quote) return false;
        at = scanString(text, at);
        if (at < 0) return false;
        at = skipWhitespace(text, at);
        if (text.charCodeAt(at) !== colon) return false;
        at = skipWhitespace(text, at + 1);
        code = text.charCodeAt(at);
      }
      if (code === openBrace || code === openBracket) {
        if (depth >= maxScannedDepth) return parsesToObject(text);
        objects = code === openBrace ? objects | (1 << depth) : objects & ~(1 << depth);
        depth++;
        at++;
        justOpened = true;
        continue;
      }
      at = scanScalar(text, at, code);
      if (at < 0) return false;
    }
    // after a value: a comma, or the closers of as many containers as end here
    for (;;) {
      at = skipWhitespace(text, at);
      code = text.charCodeAt(at);
      inObject = ((objects >>> (depth - 1)) & 1) === 1;
      if (code === comma) {
        at++;
        justOpened = false;
        break;
      }
      if (code !== (inObject ? closeBrace : closeBracket)) return false;
      at++;
      depth--;
      if (depth === 0) return skipWhitespace(text, at) === text.length;
    }
  }
}
