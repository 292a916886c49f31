/** A link found in text, with its character range. */
export interface LinkFinding {
  url: string;
  /** Lower-case host name, without port. */
  domain: string;
  start: number;
  end: number;
}

const link =
  /\b(?:https?|ftp):\/\/[^\s<>"'`]+|\bwww\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+[^\s<>"'`]*/gi;

/**
 * Finds URLs (`http(s)://`, `ftp://` and `www.` links) in text. Trailing punctuation and
 * unbalanced closing brackets are not part of a link.
 *
 * @param text - any text
 * @returns the links in order, with their domains and ranges
 * @example
 * ```ts
 * extractLinks('see https://evil.example.com/x.'); // [{ url: 'https://evil.example.com/x', domain: 'evil.example.com', start: 4, end: 30 }]
 * ```
 */
export function extractLinks(text: string): LinkFinding[] {
  const out: LinkFinding[] = [];
  for (const m of text.matchAll(link)) {
    let url = m[0];
    // bracket counts kept as characters are dropped (recounting per character was quadratic on a
    // long run of ')', seconds for 50k)
    let open = 0;
    let close = 0;
    for (const c of url) {
      if (c === '(') open++;
      else if (c === ')') close++;
    }
    const hasSquare = url.includes('[');
    for (;;) {
      const last = url[url.length - 1] ?? '';
      if ('.,;:!?'.includes(last)) url = url.slice(0, -1);
      else if (last === ')' && open < close) {
        url = url.slice(0, -1);
        close--;
      } else if (last === ']' && !hasSquare) url = url.slice(0, -1);
      else break;
    }
    const hostPart = url.replace(/^[a-z]+:\/\//i, '').split(/[/?#]/, 1)[0] ?? '';
    const domain = hostPart
      .replace(/^[^@]*@/, '')
      .replace(/:\d+$/, '')
      .toLowerCase();
    out.push({ url, domain, start: m.index, end: m.index + url.length });
  }
  return out;
}
