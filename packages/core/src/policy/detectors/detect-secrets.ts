import { createRequire } from 'node:module';
import type { SecretFinding } from '../policy-types.js';

interface RuleReport {
  message: string;
  range: readonly [number, number];
}

interface RuleHandler {
  file?: (source: unknown) => unknown;
}

interface RuleContext {
  createTranslator: () => (messageId: string) => string;
  report: (report: RuleReport) => void;
  ignore: () => void;
}

interface RuleCreator {
  meta: { id: string };
  create: (context: RuleContext, options: Record<string, unknown>) => RuleHandler;
}

/** secretlint message ids mapped to the names Invariant's `secrets` uses. */
const typeNames: Record<string, string> = {
  AWSAccessKeyID: 'AWS_ACCESS_KEY',
  AWSSecretAccessKey: 'AWS_SECRET_ACCESS_KEY',
  GITHUB_TOKEN: 'GITHUB_TOKEN',
  SLACK_TOKEN: 'SLACK_TOKEN',
};

/** A random key mixes digits and capitals; a slug (`sk-proj-settings-page-layout`) does not. */
const looksRandom = (token: string): boolean => /\d/.test(token) && /[A-Z]/.test(token);

/**
 * Invariant's four token kinds, kept as a floor under secretlint's preset, and OpenAI's keys in
 * every current format: secretlint's rule takes only keys of the exact lengths with the
 * `T3BlbkFJ` marker, and keys that were cut, rotated test keys and older project keys have other
 * lengths. Each pattern starts at a prefix and runs to the end of the token, so the matches of a
 * text never overlap and a text is scanned once; `accept` then drops what is no key.
 */
const basePatterns: { type: string; pattern: RegExp; accept?: (token: string) => boolean }[] = [
  { type: 'GITHUB_TOKEN', pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36,255}\b/g },
  {
    type: 'AWS_ACCESS_KEY',
    pattern: /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b/g,
  },
  { type: 'AZURE_STORAGE_KEY', pattern: /AccountKey=[A-Za-z0-9+/]{86}==/g },
  { type: 'SLACK_TOKEN', pattern: /\bxox[baprs]-[0-9A-Za-z-]{10,72}/g },
  // project, service-account and admin keys (2024 on): a base64url body, about 160 characters
  {
    type: 'OPENAI_TOKEN',
    pattern: /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}/g,
    accept: looksRandom,
  },
  // user keys before them: `sk-` and 48 letters and digits (`T3BlbkFJ` in the middle)
  { type: 'OPENAI_TOKEN', pattern: /\bsk-[A-Za-z0-9]{32,}(?![\w-])/g, accept: looksRandom },
];

/**
 * Every secretlint rule looks for a long token, credentials in a URL or a PEM block; text with
 * none of these skips the (comparatively slow) full rule set.
 */
const mayHoldSecret =
  /[A-Za-z0-9_+/=.-]{20,}|:\/\/[^\s/@]+@|-----BEGIN|[=:]\s*["']?[A-Za-z0-9_+/=.-]{12,}/;

let compiled: { id: string; handler: RuleHandler; sink: RuleReport[] }[] | undefined;

/**
 * secretlint's preset, loaded on the first text worth scanning rather than at import: it is
 * about half of what importing core costs (issue 18 §4), and most processes never scan for
 * secrets. It is an ES module, loaded synchronously (`require` of ES modules, Node >= 22.12);
 * where the runtime cannot, the base patterns still run and a warning says so once.
 */
function secretlintRules(): RuleCreator[] {
  try {
    const preset = createRequire(import.meta.url)('@secretlint/secretlint-rule-preset-recommend');
    return (preset as { rules: RuleCreator[] }).rules;
  } catch (error) {
    process.emitWarning(
      `tracewarden: secrets() runs only its base patterns: secretlint's rules could not be loaded (${
        error instanceof Error ? error.message : String(error)
      }). Use Node.js >= 22.12, which loads ES modules with require().`,
      { code: 'TRACEWARDEN_SECRETS_PRESET' },
    );
    return [];
  }
}

function secretlintHandlers(): { id: string; handler: RuleHandler; sink: RuleReport[] }[] {
  if (compiled !== undefined) return compiled;
  compiled = [];
  for (const rule of secretlintRules()) {
    if (rule.meta.id.endsWith('filter-comments')) continue;
    const sink: RuleReport[] = [];
    const context: RuleContext = {
      createTranslator: () => (messageId: string) => messageId,
      report: (report) => sink.push(report),
      ignore: () => {},
    };
    const options = rule.meta.id.endsWith('rule-aws') ? { enableIDScanRule: true } : {};
    compiled.push({ id: rule.meta.id, handler: rule.create(context, options), sink });
  }
  return compiled;
}

/**
 * Finds secrets in text with secretlint's recommended rule set (run synchronously, in process)
 * plus Invariant's four token kinds (GitHub tokens, AWS access keys, Azure storage keys, Slack
 * tokens) as a floor, and OpenAI API keys of every format (`sk-proj-…`, `sk-svcacct-…`,
 * `sk-admin-…`, the older `sk-…`). Findings are sorted by position, one per character range.
 *
 * @param text - any text
 * @returns the findings: kind (`GITHUB_TOKEN`, `AWS_ACCESS_KEY`, `AZURE_STORAGE_KEY`,
 *   `SLACK_TOKEN`, `OPENAI_TOKEN`, or secretlint's message id for its other rules) and character
 *   range
 * @example
 * ```ts
 * detectSecrets('token 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');
 * // [{ type: 'GITHUB_TOKEN', start: 6, end: 46 }]
 * ```
 */
export function detectSecrets(text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  const seen = new Set<string>();
  const add = (type: string, start: number, end: number): void => {
    const key = `${start}:${end}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push({ type, start, end });
  };
  for (const { type, pattern, accept } of basePatterns) {
    pattern.lastIndex = 0;
    for (const m of text.matchAll(pattern))
      if (accept === undefined || accept(m[0])) add(type, m.index, m.index + m[0].length);
  }
  if (!mayHoldSecret.test(text)) return findings.sort((a, b) => a.start - b.start);
  const source = {
    content: text,
    filePath: 'trace.txt',
    sourceContentType: 'text',
    contentType: 'text',
  };
  for (const { handler, sink } of secretlintHandlers()) {
    sink.length = 0;
    try {
      const pending = handler.file?.(source);
      // a rule that needs async work (certificate checks) is skipped: rules run synchronously
      if (pending instanceof Promise) pending.catch(() => {});
    } catch {
      continue;
    }
    for (const report of sink)
      add(typeNames[report.message] ?? report.message, report.range[0], report.range[1]);
  }
  return findings.sort((a, b) => a.start - b.start || a.end - b.end);
}
