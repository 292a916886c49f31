/**
 * The published declarations must not need `langchain` (an optional peer): a user with only
 * `@langchain/core` type-checks against them. The package's own source (tests and fixtures
 * aside) therefore never refers to the `langchain` module — not even as a type — so nothing the
 * declaration build emits can. (Emitting the declarations here would compile core's source too:
 * tens of seconds; the rule on the source is stricter and instant.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const sourceRoot = fileURLToPath(new URL('.', import.meta.url));

function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '__fixtures__') files.push(...sourceFiles(path));
    } else if (/\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name)) files.push(path);
  }
  return files;
}

/** Every module a file refers to: imports, re-exports, `import('...')` types, `require()`. */
function referencedModules(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text);
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      found.push(node.argument.literal.text);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function isLangchain(module: string): boolean {
  return module === 'langchain' || module.startsWith('langchain/');
}

describe('public declarations', () => {
  it('never refer to the optional `langchain` peer: the source outside tests does not import it', () => {
    const files = sourceFiles(sourceRoot);
    expect(files.length).toBeGreaterThan(10);
    const offending = files.flatMap((file) =>
      referencedModules(file, readFileSync(file, 'utf8'))
        .filter(isLangchain)
        .map((module) => `${relative(sourceRoot, file)}: ${module}`),
    );
    expect(offending).toEqual([]);
  });

  it('finds such a reference in every form a declaration could carry it', () => {
    const forms = [
      "import type { AgentMiddleware } from 'langchain';",
      "export type { AgentMiddleware } from 'langchain';",
      "type M = import('langchain').AgentMiddleware;",
      "const m = await import('langchain/agents');",
    ];
    for (const form of forms)
      expect(referencedModules('probe.ts', form).some(isLangchain), form).toBe(true);
    expect(referencedModules('probe.ts', "import { x } from '@langchain/core/messages';")).toEqual([
      '@langchain/core/messages',
    ]);
  });
});
