// whitespace but the line break, inside a character class
const SPACES_BUT_NEWLINE = String.raw`\t\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;

/**
 * A pattern for many sentences at once, one per line: global, multiline (`^` and `$` at each
 * sentence's ends) and unable to cross a line, so a match that starts on a line is a match of
 * that sentence alone. `\s`, `\W`, `\S`, `\D` and negated classes leave out `\n`; on normalised
 * sentences (`normalised`), which hold no whitespace but single spaces, `\s` reads as a space.
 * @param pattern - a pattern written for one sentence
 * @param normalised - whether the lines are normalised sentences
 * @returns the pattern for lines
 * @internal
 */
export function linePattern(pattern: RegExp, normalised = true): RegExp {
  const source = pattern.source;
  let out = '';
  let inClass = false;
  let negated = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      i++;
      if (next === 's') {
        if (normalised) out += inClass ? ' ' : '[ ]';
        else out += inClass ? SPACES_BUT_NEWLINE : `[${SPACES_BUT_NEWLINE}]`;
      } else if ((next === 'W' || next === 'S' || next === 'D') && inClass) {
        throw new Error(`linePattern: \\${next} inside a class of ${source}`);
      } else if (next === 'W' || next === 'S' || next === 'D') {
        out += `[^\\${next.toLowerCase()}\\n]`;
      } else out += c + next;
      continue;
    }
    if (!inClass && c === '[') {
      inClass = true;
      negated = source[i + 1] === '^';
      out += c;
      continue;
    }
    // `]` first in a class is a literal `]`
    if (inClass && c === ']' && !out.endsWith('[') && !out.endsWith('[^')) {
      if (negated) out += '\\n';
      inClass = false;
    }
    out += c;
  }
  return new RegExp(out, [...new Set([...pattern.flags, 'g', 'm'])].join(''));
}
