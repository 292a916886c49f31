// The built-ins that run a detector over the texts of a value: secrets, PII, prompt injection,
// links, Unicode classes, copyright notices, HTML, fuzzy search. A run's own detectors (options)
// replace the built-in ones where a policy supplies them.
import { detectCopyright } from '../detectors/detect-copyright.js';
import { detectPii } from '../detectors/detect-pii.js';
import { findInjectedRanges, findPromptInjection } from '../detectors/detect-prompt-injection.js';
import { detectSecrets } from '../detectors/detect-secrets.js';
import { detectUnicode, type UnicodeFinding } from '../detectors/detect-unicode.js';
import { extractHtmlData } from '../detectors/extract-html-data.js';
import { extractLinks, type LinkFinding } from '../detectors/extract-links.js';
import { FuzzyBudgetError, findFuzzy, fuzzyTolerance } from '../detectors/find-fuzzy.js';
import { PolicyError } from '../policy-error.js';
import type { PiiFinding } from '../policy-types.js';
import {
  type BuiltinFunction,
  collectFindings,
  findingType,
  markFound,
  numberOf,
} from './builtin-function.js';
import { textsOf } from './policy-values.js';
import { textSpan, withLocations } from './value-locations.js';

/**
 * @internal The most edit-distance cells `fuzzy_contains` computes per text (about 0.25 s): a
 * query and a text both taken from a trace could otherwise take minutes.
 */
export const MAX_FUZZY_CELLS = 20_000_000;

const linkUrl = (link: LinkFinding): string => link.url;
const linkDomain = (link: LinkFinding): string => link.domain;

// Invariant's link pattern (invariant.parsers.html): a scheme, a host, then path segments up to a
// space, newline or quote
const invariantLink = /https?:\/\/(?:[-\p{L}\p{N}_.]|%[\da-fA-F]{2})+(?:\/[^ \n"]+)*/gu;

function findInvariantLinks(text: string): { url: string; start: number; end: number }[] {
  return [...text.matchAll(invariantLink)].map((m) => ({
    url: m[0],
    start: m.index,
    end: m.index + m[0].length,
  }));
}

/**
 * The characters of a text the built-in detector flags at `threshold`: the windows that score
 * that high (`findInjectedRanges`), so a violation points at the injected instructions rather
 * than at the whole output; the best window when no range is reported; nothing when the text
 * scores lower. A replacement classifier gives only a score: then the whole text is marked.
 */
function flaggedRanges(text: string, threshold: number): readonly (readonly [number, number])[] {
  const finding = findPromptInjection(text);
  if (finding.score < threshold) return [];
  const ranges = findInjectedRanges(text, threshold);
  if (ranges.length > 0) return ranges;
  return finding.end > finding.start ? [[finding.start, finding.end]] : [[0, text.length]];
}

/** @internal The built-ins that run a detector over the texts of a value. */
export const detectorFunctions: Readonly<Record<string, BuiltinFunction>> = {
  secrets: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) =>
      collectFindings(
        ctx,
        value,
        addresses[0],
        ctx.run.detectors.secrets ?? detectSecrets,
        findingType,
      ),
  },
  pii: {
    min: 1,
    max: 2,
    named: ['entities'],
    addressed: true,
    call: (ctx, [value, positional], named, addresses) => {
      const wanted = named.entities ?? positional;
      const filter = Array.isArray(wanted) ? new Set(wanted.map(String)) : undefined;
      const detector = ctx.run.detectors.pii ?? detectPii;
      return collectFindings<PiiFinding>(
        ctx,
        value,
        addresses[0],
        (text) =>
          filter === undefined ? detector(text) : detector(text).filter((f) => filter.has(f.type)),
        findingType,
      );
    },
  },
  prompt_injection: {
    min: 1,
    max: 2,
    named: ['threshold'],
    addressed: true,
    call: (ctx, [value, positional], named, addresses) => {
      const threshold = numberOf(named.threshold ?? positional) ?? 0.5;
      const classifier = ctx.run.detectors.promptInjection;
      let found = false;
      for (const piece of textsOf(value, addresses[0])) {
        const ranges =
          classifier === undefined
            ? flaggedRanges(piece.text, threshold)
            : classifier(piece.text) >= threshold
              ? [[0, piece.text.length] as const]
              : [];
        for (const [start, end] of ranges) {
          found = true;
          markFound(ctx, piece.address, start, end);
        }
      }
      return found;
    },
  },
  links: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) =>
      collectFindings(ctx, value, addresses[0], extractLinks, linkUrl),
  },
  unicode: {
    min: 1,
    max: 2,
    named: ['categories'],
    addressed: true,
    call: (ctx, [value, positional], named, addresses) => {
      const wanted = named.categories ?? positional;
      const categories = Array.isArray(wanted) ? wanted.map(String) : undefined;
      const found = collectFindings<UnicodeFinding>(
        ctx,
        value,
        addresses[0],
        (text) => detectUnicode(text, categories),
        findingType,
      );
      return [...new Set(found)];
    },
  },
  copyright: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) =>
      collectFindings(ctx, value, addresses[0], detectCopyright, findingType),
  },
  html_code: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) => {
      const altTexts: string[] = [];
      const altLocations: (string | undefined)[] = [];
      const links: string[] = [];
      const linkLocations: (string | undefined)[] = [];
      for (const piece of textsOf(value, addresses[0])) {
        const data = extractHtmlData(piece.text);
        for (const alt of data.altTexts) {
          altTexts.push(alt.value);
          altLocations.push(textSpan(piece.address, alt.start, alt.end));
          markFound(ctx, piece.address, alt.start, alt.end);
        }
        for (const link of data.links) {
          links.push(link.value);
          linkLocations.push(textSpan(piece.address, link.start, link.end));
          markFound(ctx, piece.address, link.start, link.end);
        }
      }
      return {
        alt_texts: withLocations(altTexts, altLocations),
        links: withLocations(links, linkLocations),
      };
    },
  },
  fuzzy_contains: {
    min: 2,
    max: 4,
    named: ['query_similarity_threshold', 'use_semantic'],
    addressed: true,
    call: (ctx, [value, query, positional], named, addresses) => {
      const threshold = numberOf(named.query_similarity_threshold ?? positional) ?? 0.8;
      if (typeof query !== 'string' || threshold < 0 || threshold > 1) return false;
      const tolerance = fuzzyTolerance(query, threshold);
      let found = false;
      for (const piece of textsOf(value, addresses[0])) {
        let hit: ReturnType<typeof findFuzzy>;
        try {
          hit = findFuzzy(piece.text, query, tolerance, MAX_FUZZY_CELLS);
        } catch (error) {
          if (!(error instanceof FuzzyBudgetError)) throw error;
          throw new PolicyError({
            code: 'POLICY_LIMIT',
            message: `fuzzy_contains could not finish: ${error.message} (MAX_FUZZY_CELLS = ${MAX_FUZZY_CELLS}); use a shorter query`,
          });
        }
        if (hit === null) continue;
        found = true;
        markFound(ctx, piece.address, hit.start, hit.end);
      }
      return found;
    },
  },
  /** `links` as `from invariant.parsers.html import links` defines it (Invariant's URL regex). */
  html_links: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) =>
      collectFindings(ctx, value, addresses[0], findInvariantLinks, (link) => link.url),
  },
  domains: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) =>
      collectFindings(ctx, value, addresses[0], extractLinks, linkDomain),
  },
};
