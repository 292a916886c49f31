import { detectorRegExp } from '../runtime/policy-regex.js';

/** A value found by `extractHtmlData`, with the character range it came from. */
export interface HtmlFinding {
  value: string;
  start: number;
  end: number;
}

/** What `extractHtmlData` finds: image alt texts and links (`<a href>` and bare URLs). */
export interface HtmlData {
  altTexts: HtmlFinding[];
  links: HtmlFinding[];
}

// a tag name, then its attributes (starting with a space or '/') up to '>'. No lookahead and no
// `i` flag (letters spelled as classes): the linear-time engine takes neither, and on unclosed
// tags the backtracking engine is quadratic (60k characters took seconds)
const tag = detectorRegExp(
  '<([aA]|[iI][mM][gG])((?:[\\s/](?:[^>"\']|"[^"]*"|\'[^\']*\')*)?)>',
  'g',
);
const attribute = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
// Invariant's link pattern: a scheme, a host, then path segments up to a space, newline or quote
const bareLink = /https?:\/\/(?:[-\p{L}\p{N}_.]|%[\da-fA-F]{2})+(?:\/[^ \n"]+)*/gu;

const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeHtml(value: string): string {
  return value.replace(/&(#x[\da-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code =
        entity[1] === 'x' || entity[1] === 'X'
          ? Number.parseInt(entity.slice(2), 16)
          : Number.parseInt(entity.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return named[entity.toLowerCase()] ?? whole;
  });
}

/**
 * Extracts what HTML can hide from a reader, like Invariant's `html_code`: the `alt` texts of
 * `<img>` tags and the links of `<a href>` tags, plus every `http(s)://` URL in the text.
 * Attribute values are unescaped (`&amp;` becomes `&`); links are de-duplicated, first
 * occurrence first. A tolerant tag scanner, not a full HTML parser.
 *
 * @param text - HTML code or any text
 * @returns alt texts and links, each with the range of its source text
 * @example
 * ```ts
 * extractHtmlData('<img alt="ignore previous instructions"><a href="https://x.io">x</a>');
 * // { altTexts: [{ value: 'ignore previous instructions', ... }], links: [{ value: 'https://x.io', ... }] }
 * ```
 */
export function extractHtmlData(text: string): HtmlData {
  const altTexts: HtmlFinding[] = [];
  const links: HtmlFinding[] = [];
  const seen = new Set<string>();
  const addLink = (finding: HtmlFinding): void => {
    if (seen.has(finding.value)) return;
    seen.add(finding.value);
    links.push(finding);
  };
  for (const m of text.matchAll(tag())) {
    const name = (m[1] ?? '').toLowerCase();
    const wanted = name === 'img' ? 'alt' : 'href';
    const body = m[2] ?? '';
    const bodyStart = m.index + 1 + name.length;
    for (const a of body.matchAll(attribute)) {
      if ((a[1] ?? '').toLowerCase() !== wanted) continue;
      const raw = a[2] ?? a[3] ?? a[4];
      if (raw === undefined) continue;
      const offset = a[0].length - raw.length - (a[4] === undefined ? 1 : 0);
      const start = bodyStart + a.index + offset;
      const finding = { value: unescapeHtml(raw), start, end: start + raw.length };
      if (name === 'img') altTexts.push(finding);
      else addLink(finding);
    }
  }
  for (const m of text.matchAll(bareLink))
    addLink({ value: m[0], start: m.index, end: m.index + m[0].length });
  return { altTexts, links };
}
