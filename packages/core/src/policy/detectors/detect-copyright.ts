/** A copyright notice or licence text found by `detectCopyright`. */
export interface CopyrightFinding {
  /**
   * `COPYRIGHT` for a notice, else the licence: Invariant's names (`GNU_AGPL_V3`, `GNU_GPL_V2`,
   * `GNU_LGPL_V3`, `MOZILLA_PUBLIC_LICENSE_2.0`, `APACHE_LICENSE_2.0`, `MIT_LICENSE`,
   * `BOOST_SOFTWARE_LICENSE`) plus `GNU_GPL_V3`, `GNU_GPL`, `GNU_LGPL_V2.1`, `BSD_LICENSE` and
   * `LICENSE:<SPDX id>` for other SPDX identifiers.
   */
  type: string;
  start: number;
  end: number;
}

const year = String.raw`(?:\s*,?\s*(?:19|20)\d{2}(?:\s*[-–]\s*(?:(?:19|20)\d{2}|present))?)`;
const years = `${year}*`;
const someYears = `${year}+`;

const notice = new RegExp(
  String.raw`\bcopyright\s*(?:\(c\)|©)${years}|\bcopyright${someYears}|©${years}|\(c\)${someYears}|\ball\s+rights\s+reserved\b`,
  'giu',
);

const spdx = /SPDX-License-Identifier:\s*([A-Za-z0-9.+-]+)/g;

const spdxNames: Record<string, string> = {
  MIT: 'MIT_LICENSE',
  'Apache-2.0': 'APACHE_LICENSE_2.0',
  'MPL-2.0': 'MOZILLA_PUBLIC_LICENSE_2.0',
  'BSL-1.0': 'BOOST_SOFTWARE_LICENSE',
  'GPL-2.0': 'GNU_GPL_V2',
  'GPL-3.0': 'GNU_GPL_V3',
  'AGPL-3.0': 'GNU_AGPL_V3',
  'LGPL-3.0': 'GNU_LGPL_V3',
  'LGPL-2.1': 'GNU_LGPL_V2.1',
  'BSD-2-Clause': 'BSD_LICENSE',
  'BSD-3-Clause': 'BSD_LICENSE',
};

const gnu =
  /\bGNU\s+(Affero\s+|Lesser\s+|Library\s+)?General\s+Public\s+License(?:\s*(?:\(["“]?[AL]?GPL["”]?\)\s*)?[,;]?\s*(?:as\s+published\s+by\s+the\s+Free\s+Software\s+Foundation\s*[,;]?\s*)?(?:either\s+)?(?:version|v\.?)\s*(\d(?:\.\d)?))?/gi;

const phrases: { type: string; pattern: RegExp }[] = [
  {
    type: 'MIT_LICENSE',
    pattern:
      /Permission\s+is\s+hereby\s+granted,\s+free\s+of\s+charge,\s+to\s+any\s+person\s+obtaining\s+a\s+copy|\bMIT\s+Licen[cs]e\b/gi,
  },
  {
    type: 'APACHE_LICENSE_2.0',
    pattern: /\bApache\s+Licen[cs]e,?\s+(?:Version\s+|v)2\.0\b/gi,
  },
  {
    type: 'MOZILLA_PUBLIC_LICENSE_2.0',
    pattern: /\bMozilla\s+Public\s+Licen[cs]e,?\s+(?:v\.?\s*|Version\s+)2\.0\b/gi,
  },
  {
    type: 'BOOST_SOFTWARE_LICENSE',
    pattern: /\bBoost\s+Software\s+Licen[cs]e\b(?:\s*-\s*Version\s+1\.0)?/gi,
  },
  {
    type: 'BSD_LICENSE',
    pattern:
      /Redistribution\s+and\s+use\s+in\s+source\s+and\s+binary\s+forms,\s+with\s+or\s+without\s+modification,\s+are\s+permitted/gi,
  },
];

function gnuName(kind: string | undefined, version: string | undefined): string {
  const variant = (kind ?? '').trim().toLowerCase();
  if (variant === 'affero') return 'GNU_AGPL_V3';
  if (variant === 'lesser' || variant === 'library')
    return version?.startsWith('2') ? 'GNU_LGPL_V2.1' : 'GNU_LGPL_V3';
  if (version?.startsWith('2')) return 'GNU_GPL_V2';
  if (version?.startsWith('3')) return 'GNU_GPL_V3';
  return 'GNU_GPL';
}

/**
 * Finds copyright notices (`Copyright (C) 2024 Acme`, `©`, `(c) 2024`, `All rights reserved`)
 * and common licence texts and headers (GPL, LGPL, AGPL, MIT, Apache 2.0, MPL 2.0, Boost, BSD,
 * and `SPDX-License-Identifier:` lines) in text. A superset of Invariant's `copyright`
 * detector, which knows `Copyright (C)`, `Copyright ©` and seven licence texts.
 *
 * @param text - any text
 * @returns the findings, sorted by position
 * @example
 * ```ts
 * detectCopyright('Copyright (c) 2024 Acme'); // [{ type: 'COPYRIGHT', start: 0, end: 18 }]
 * ```
 */
export function detectCopyright(text: string): CopyrightFinding[] {
  const out: CopyrightFinding[] = [];
  for (const m of text.matchAll(notice))
    out.push({ type: 'COPYRIGHT', start: m.index, end: m.index + m[0].trimEnd().length });
  for (const m of text.matchAll(gnu))
    out.push({ type: gnuName(m[1], m[2]), start: m.index, end: m.index + m[0].length });
  for (const { type, pattern } of phrases)
    for (const m of text.matchAll(pattern))
      out.push({ type, start: m.index, end: m.index + m[0].length });
  for (const m of text.matchAll(spdx)) {
    const id = m[1] ?? '';
    const base = id.replace(/(?:-only|-or-later|\+)$/, '');
    out.push({
      type: spdxNames[base] ?? `LICENSE:${id}`,
      start: m.index,
      end: m.index + m[0].length,
    });
  }
  return out.sort((a, b) => a.start - b.start || a.end - b.end);
}
