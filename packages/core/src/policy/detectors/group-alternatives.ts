// Irregexp tries the top-level alternatives of a pattern one after the other at each position of
// the text, each re-testing its own leading `\b`: a signal of thirty `\b...` alternatives costs
// thirty boundary tests per character. Written as one `\b(?:...|...)`, the boundary is tested
// once and the alternatives behind it are told apart by their first characters
// (bench/detection.bench.ts, "30 KB of distinct outputs": the sentence tests of `claim-role` and
// `task-hijack` take half the time, `address-model` three quarters).

/** The end (exclusive) of the group opening at `open` in `source`. */
function groupEnd(source: string, open: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  return source.length;
}

/** The top-level alternatives of a pattern's source. */
function alternativesOf(source: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let last = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      out.push(source.slice(last, i));
      last = i + 1;
    }
  }
  out.push(source.slice(last));
  return out;
}

/** The zero-width tests an alternative opens with: `\b`, `^`, lookarounds. */
function leadOf(alternative: string): string {
  let at = 0;
  for (;;) {
    if (alternative.startsWith('\\b', at)) at += 2;
    else if (alternative.startsWith('^', at)) at += 1;
    else if (/^\(\?<?[=!]/.test(alternative.slice(at, at + 4))) at = groupEnd(alternative, at);
    else return alternative.slice(0, at);
  }
}

/**
 * The same pattern with the alternatives of each group grouped by the zero-width tests they open
 * with: `\bA|\bB|C|\bD` becomes `\b(?:A|B|D)|C`, and so inside each `(?:...)`. It matches the same texts (the alternatives'
 * order only decides which of two matches at one position is reported, and the detector asks
 * only whether a sentence matches).
 * @param pattern - a pattern
 * @returns the grouped pattern, with the same flags
 * @internal
 */
export function groupAlternatives(pattern: RegExp): RegExp {
  return new RegExp(regroup(pattern.source), pattern.flags);
}

/** `source` with the alternatives of each of its `(?:...)` groups grouped, then its own. */
function regroup(source: string): string {
  let inner = '';
  for (let i = 0; i < source.length; ) {
    if (source[i] === '\\') {
      inner += source.slice(i, i + 2);
      i += 2;
    } else if (source[i] === '[') {
      let end = i + 1;
      while (end < source.length && source[end] !== ']') end += source[end] === '\\' ? 2 : 1;
      inner += source.slice(i, end + 1);
      i = end + 1;
    } else if (source.startsWith('(?:', i)) {
      const end = groupEnd(source, i);
      inner += `(?:${regroup(source.slice(i + 3, end - 1))})`;
      i = end;
    } else inner += source[i++];
  }
  const groups = new Map<string, string[]>();
  for (const alternative of alternativesOf(inner)) {
    const lead = leadOf(alternative);
    const rests = groups.get(lead) ?? [];
    rests.push(alternative.slice(lead.length));
    groups.set(lead, rests);
  }
  return [...groups]
    .flatMap(([lead, rests]) =>
      lead === '' || rests.length === 1
        ? rests.map((rest) => lead + rest)
        : [`${lead}(?:${rests.join('|')})`],
    )
    .join('|');
}
