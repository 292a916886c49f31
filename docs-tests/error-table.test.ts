import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from './collect-snippets.js';
import { collectErrorClasses } from './error-codes.js';

/** `docs/errors.md`'s table rows: the class in the first cell, its codes in the third. */
function documentedCodes(): Map<string, string[]> {
  const text = readFileSync(join(repositoryRoot, 'docs', 'errors.md'), 'utf8');
  const rows = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const cells = line.split('|').map((cell) => cell.trim());
    const name = /^`(\w+)`$/.exec(cells[1] ?? '')?.[1];
    if (name === undefined) continue;
    const codes = [...(cells[3] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]);
    rows.set(name, [...(rows.get(name) ?? []), ...codes.map(String)].sort());
  }
  return rows;
}

describe('docs: the error table lists every error class and code', () => {
  it('finds the error classes in the sources (the collector works)', () => {
    const names = collectErrorClasses().map((entry) => entry.name);
    expect(names).toEqual(
      expect.arrayContaining(['TracewardenError', 'GuardError', 'PolicyError', 'TraceError']),
    );
  });

  it('has a row for each class with exactly the codes its code can hold', () => {
    const documented = documentedCodes();
    const inCode = new Map(collectErrorClasses().map((entry) => [entry.name, entry.codes]));
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(inCode));
  });
});
