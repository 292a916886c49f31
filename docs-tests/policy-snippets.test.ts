import { PolicyError, parsePolicy } from '@tracewarden/core';
import { describe, expect, it } from 'vitest';
import { findReadmes, type PolicySnippet, policySnippets } from './collect-snippets.js';

// Every ```policy block of every README and guide, found anew on each run: each one compiles,
// and each one marked with a trace is checked against it, so a guide's rules cannot rot.
const pages = findReadmes().map((file) => ({ file, ...policySnippets(file) }));
const snippets = pages.flatMap((page) =>
  page.policies.map((snippet) => [snippet.id, snippet, page.traces] as const),
);

function refusal(snippet: PolicySnippet): unknown {
  try {
    parsePolicy(snippet.code);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('docs: policy blocks compile and give the violations they claim', () => {
  it('finds the policy guide and its blocks', () => {
    const guide = pages.find((page) => page.file === 'docs/policy-language.md');
    expect(guide?.policies.length ?? 0).toBeGreaterThan(10);
  });

  it('runs every policy block of the guides: each is checked against a trace or must fail', () => {
    const unchecked = pages
      .filter((page) => page.file.startsWith('docs/'))
      .flatMap((page) => page.policies)
      .filter((snippet) => snippet.trace === undefined && snippet.error === undefined)
      .map((snippet) => `${snippet.file}:${snippet.line}`);
    expect(unchecked).toEqual([]);
  });

  it.each(snippets)('%s', (_, snippet, traces) => {
    const where = `${snippet.file}:${snippet.line}`;
    if (snippet.error !== undefined) {
      const error = refusal(snippet);
      expect(PolicyError.isInstance(error), `${where} must be refused`).toBe(true);
      expect((error as PolicyError).code, where).toBe(snippet.error);
      return;
    }
    const policy = parsePolicy(snippet.code);
    if (snippet.trace === undefined) return;
    const trace = traces.get(snippet.trace.name);
    expect(
      trace,
      `${where}: no trace named ${snippet.trace.name} in ${snippet.file}`,
    ).toBeDefined();
    const found = policy.check(trace ?? []).errors;
    expect(
      found.length,
      `${where}: ${found.map((violation) => violation.message).join('; ')}`,
    ).toBe(snippet.trace.violations);
  });
});
