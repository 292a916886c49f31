/**
 * What a pattern cannot match without: a set of strings, one of which every match contains (the
 * "required factors" of a regular expression, as code-search prefilters compute them). A text
 * holding none of them cannot match, so the signal patterns need not be run on it.
 */

/** What is known of the strings a part of a pattern matches. */
interface Info {
  /** Every string it can match, when there are few (`''` for zero-width tests). */
  exact: Set<string> | null;
  /** Strings one of which every match contains (`null`: nothing known). */
  factors: Set<string> | null;
}

// more exact strings than this are kept as factors instead of being multiplied out
const LIMIT = 64;
const ANYTHING: Info = { exact: null, factors: null };
const zeroWidth = (): Info => ({ exact: new Set(['']), factors: null });
const literal = (text: string): Info => ({ exact: new Set([text]), factors: null });

function factorsOf(info: Info): Set<string> | null {
  if (info.exact !== null) return info.exact.has('') ? null : info.exact;
  return info.factors;
}

/** Longer factors are rarer; fewer of them is better at one length. */
function quality(factors: Set<string> | null): number {
  if (factors === null) return -1;
  let shortest = Number.POSITIVE_INFINITY;
  for (const factor of factors) shortest = Math.min(shortest, factor.length);
  return shortest * 1000 - Math.min(factors.size, 999);
}

function alternate(a: Info, b: Info): Info {
  if (a.exact !== null && b.exact !== null && a.exact.size + b.exact.size <= LIMIT)
    return { exact: new Set([...a.exact, ...b.exact]), factors: null };
  const left = factorsOf(a);
  const right = factorsOf(b);
  if (left === null || right === null) return ANYTHING;
  return { exact: null, factors: new Set([...left, ...right]) };
}

const ESCAPED_CHARACTER: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v' };

/**
 * The required factors of a pattern: strings one of which every match of `pattern` contains,
 * or `null` when no such set is known (a pattern that can match an empty string, one that
 * ignores case). Conservative: what it cannot read (classes with ranges, `\w`, `\p{..}`,
 * optional parts) counts as "anything".
 * @param pattern - a regular expression
 * @returns the factors, or `null`
 * @internal
 */
export function requiredFactors(pattern: RegExp): Set<string> | null {
  if (pattern.ignoreCase) return null;
  const source = pattern.source;
  // astral characters are one atom in a `u` pattern but two code units here
  if (/[\ud800-\udfff]/.test(source)) return null;
  let i = 0;

  function alternatives(): Info {
    let info = sequence();
    while (source[i] === '|') {
      i++;
      info = alternate(info, sequence());
    }
    return info;
  }
  // A sequence's parts are all required: its runs of exact parts multiply out into exact
  // strings ("e-?mail": "e", then "mail"), and its factors are the best of its runs' and parts'
  function sequence(): Info {
    let run = new Set(['']);
    let whole = true;
    let best: Set<string> | null = null;
    const keep = (factors: Set<string> | null): void => {
      if (quality(factors) > quality(best)) best = factors;
    };
    while (i < source.length && source[i] !== '|' && source[i] !== ')') {
      const info = quantified();
      if (info.exact !== null && run.size * info.exact.size <= LIMIT) {
        const next = new Set<string>();
        for (const x of run) for (const y of info.exact) next.add(x + y);
        run = next;
        continue;
      }
      whole = false;
      keep(factorsOf({ exact: run, factors: null }));
      run = new Set(['']);
      if (info.exact !== null) run = info.exact;
      else keep(info.factors);
    }
    if (whole) return { exact: run, factors: null };
    keep(factorsOf({ exact: run, factors: null }));
    return { exact: null, factors: best };
  }
  function quantified(): Info {
    const info = atom();
    let min = 1;
    let max = 1;
    const c = source[i];
    if (c === '?' || c === '*') {
      min = 0;
      i++;
    } else if (c === '+') {
      max = 2;
      i++;
    } else if (c === '{') {
      const bounds = /^\{(\d+)(,\d*)?\}/.exec(source.slice(i));
      if (bounds !== null) {
        min = Number(bounds[1]);
        max = bounds[2] === undefined ? min : 2;
        i += bounds[0].length;
      }
    }
    if (min === 1 && max === 1) return info;
    if (source[i] === '?') i++;
    return min === 0 ? ANYTHING : { exact: null, factors: factorsOf(info) };
  }
  function atom(): Info {
    const c = source[i] as string;
    if (c === '(') return group();
    if (c === '[') return characterClass();
    if (c === '\\') return escaped();
    i++;
    if (c === '^' || c === '$') return zeroWidth();
    if (c === '.') return ANYTHING;
    return literal(c);
  }
  function group(): Info {
    i++;
    let lookaround = false;
    if (source[i] === '?') {
      if (source.startsWith('?:', i)) i += 2;
      else if (/^\?<?[=!]/.test(source.slice(i, i + 3))) {
        lookaround = true;
        i += source[i + 1] === '<' ? 3 : 2;
      } else if (source.startsWith('?<', i)) i = source.indexOf('>', i) + 1;
      else throw new Error(`requiredFactors: unknown group in ${source}`);
    }
    const info = alternatives();
    if (source[i] !== ')') throw new Error(`requiredFactors: unclosed group in ${source}`);
    i++;
    // a lookaround consumes nothing: what it requires is not part of the match
    return lookaround ? zeroWidth() : info;
  }
  function characterClass(): Info {
    let j = i + 1;
    let plain = source[j] !== '^';
    if (!plain) j++;
    const characters: string[] = [];
    // `[]` and `[^]` end at once in JavaScript
    while (j < source.length && source[j] !== ']') {
      if (source[j] === '\\') {
        const next = source[j + 1] as string;
        const known = ESCAPED_CHARACTER[next];
        if (known !== undefined) characters.push(known);
        else if (/[A-Za-z0-9]/.test(next)) plain = false;
        else characters.push(next);
        j += 2;
      } else if (source[j + 1] === '-' && source[j + 2] !== ']') {
        plain = false;
        j += 3;
      } else characters.push(source[j++] as string);
    }
    i = j + 1;
    if (!plain || characters.length === 0 || characters.length > 4) return ANYTHING;
    return { exact: new Set(characters), factors: null };
  }
  function escaped(): Info {
    const next = source[i + 1] as string;
    i += 2;
    if (next === 'b' || next === 'B') return zeroWidth();
    if (next === 'p' || next === 'P') {
      i = source.indexOf('}', i) + 1;
      return ANYTHING;
    }
    if (next === 'u' || next === 'x') {
      const digits = next === 'u' ? 4 : 2;
      const hex = source.slice(i, i + digits);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) return ANYTHING;
      i += digits;
      return literal(String.fromCharCode(Number.parseInt(hex, 16)));
    }
    const known = ESCAPED_CHARACTER[next];
    if (known !== undefined) return literal(known);
    // \w \s \d, their negations, back-references, \c..: anything
    if (/[A-Za-z0-9]/.test(next)) return ANYTHING;
    return literal(next);
  }

  const info = alternatives();
  if (i !== source.length) throw new Error(`requiredFactors: unexpected ")" in ${source}`);
  return factorsOf(info);
}
