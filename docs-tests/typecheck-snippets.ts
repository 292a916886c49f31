import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { repositoryRoot, type Snippet } from './collect-snippets.js';

/** The outcome of type-checking one snippet. */
export interface SnippetCheck {
  /** Compiler errors, each `line:column message` in the snippet's own file. */
  errors: string[];
  /**
   * TSDoc only: names the example uses without defining, declared as `any` (a placeholder
   * such as `context` or `lines`); names the package exports are imported instead.
   */
  placeholders: string[];
  /** The one line of imports and placeholder declarations put before a TSDoc example. */
  prelude: string;
}

/** Workspace package names mapped to their source entries, so snippets import what users import. */
function workspacePaths(): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  const packages = join(repositoryRoot, 'packages');
  for (const name of readdirSync(packages)) {
    const manifestPath = join(packages, name, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      name?: string;
      exports?: Record<string, unknown>;
    };
    if (manifest.name === undefined || manifest.exports === undefined) continue;
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      const source =
        typeof target === 'object' && target !== null
          ? (target as Record<string, unknown>)['@tracewarden/source']
          : undefined;
      if (typeof source !== 'string') continue;
      paths[subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`] = [
        join(packages, name, source),
      ];
    }
  }
  return paths;
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(repositoryRoot, 'tsconfig.base.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, repositoryRoot);
  return {
    ...parsed.options,
    noEmit: true,
    // a snippet is a module of its own, so top-level await works as in a user's ESM file
    moduleDetection: ts.ModuleDetectionKind.Force,
    paths: workspacePaths(),
  };
}

function virtualPath(snippet: Snippet, index: number): string {
  return join(
    snippet.packageFolder,
    '__docs_snippets__',
    `${index}-${snippet.id.replace(/[^\w.-]+/g, '_')}.ts`,
  );
}

function createProgram(
  files: Map<string, string>,
  options: ts.CompilerOptions,
  roots: string[],
  oldProgram?: ts.Program,
): ts.Program {
  const host = ts.createCompilerHost(options, true);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (path) => files.get(path) ?? readFile(path);
  host.fileExists = (path) => files.has(path) || fileExists(path);
  host.getSourceFile = (path, languageVersion, onError, shouldCreate) => {
    const text = files.get(path);
    if (text !== undefined) return ts.createSourceFile(path, text, languageVersion, true);
    return getSourceFile(path, languageVersion, onError, shouldCreate);
  };
  return ts.createProgram({
    rootNames: roots,
    options,
    host,
    ...(oldProgram ? { oldProgram } : {}),
  });
}

function errorsOf(program: ts.Program, path: string, prelude: number): ts.Diagnostic[] {
  const file = program.getSourceFile(path);
  if (file === undefined) return [];
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].filter(
    (diagnostic) => diagnostic.start === undefined || diagnostic.start >= prelude,
  );
}

function describe(diagnostic: ts.Diagnostic, prelude: string, snippet: Snippet): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  const preludeLines = prelude.split('\n').length - 1;
  return `${snippet.file}:${snippet.line + line - preludeLines}:${character + 1} TS${diagnostic.code}: ${message}`;
}

/** "Cannot find name 'x'", its "did you mean" variants, and `{ x }` with no `x` in scope. */
const missingNameCodes = new Set([2304, 2552, 2582, 2593, 2503, 2686, 18004]);
/** A callback over a placeholder (`lines.map((line) => ...)`) has untyped parameters. */
const placeholderCallbackCodes = new Set([7006, 7031]);

function missingNames(diagnostics: readonly ts.Diagnostic[]): string[] {
  const names = new Set<string>();
  for (const diagnostic of diagnostics) {
    if (!missingNameCodes.has(diagnostic.code)) continue;
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const match = /'([\w$]+)'/.exec(text);
    if (match?.[1] !== undefined) names.add(match[1]);
  }
  return [...names];
}

/**
 * Names TSDoc examples use from other modules without importing them, and where they come from:
 * imported (when the snippet's package can resolve the module) rather than typed `any`.
 */
const wellKnownImports: Readonly<Record<string, string>> = {
  OpenAI: "import OpenAI from 'openai';",
  z: "import { z } from 'zod';",
  generateText: "import { generateText } from 'ai';",
  streamText: "import { streamText } from 'ai';",
  wrapLanguageModel: "import { wrapLanguageModel } from 'ai';",
  isStepCount: "import { isStepCount } from 'ai';",
  ChatOpenAI: "import { ChatOpenAI } from '@langchain/openai';",
  createAgent: "import { createAgent } from 'langchain';",
  expect: "import { expect } from 'vitest';",
  createReadStream: "import { createReadStream } from 'node:fs';",
};

/** Placeholders whose meaning is the same in every example: typed, so their use is checked. */
const typedPlaceholders: Readonly<Record<string, string>> = {
  tracer: "import('@tracewarden/core').Tracer",
  policy: "import('@tracewarden/core').Policy",
};

function moduleOf(importLine: string): string | undefined {
  return /from '([^']+)'/.exec(importLine)?.[1];
}

interface Exported {
  from: string;
  typeOnly: boolean;
}

function exportsOf(program: ts.Program, modulePath: string): Map<string, Exported> {
  const found = new Map<string, Exported>();
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(modulePath);
  const symbol = file === undefined ? undefined : checker.getSymbolAtLocation(file);
  if (symbol === undefined) return found;
  for (const exported of checker.getExportsOfModule(symbol)) {
    const target =
      exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    found.set(exported.name, {
      from: modulePath,
      typeOnly: (target.flags & ts.SymbolFlags.Value) === 0,
    });
  }
  return found;
}

/**
 * Type-checks snippets with the repository's own compiler settings (strict,
 * `noUncheckedIndexedAccess`, `exactOptionalPropertyTypes`), importing workspace packages from
 * source. README snippets are checked as written: a reader copies them whole. A TSDoc example
 * documents one declaration and may use its names without importing them: those are imported
 * from its file, its package's entry or core; well-known framework names (`OpenAI`, `z`,
 * `generateText`) from their module when its package can resolve it; `tracer` and `policy` are
 * typed as core's `Tracer` and `Policy`; any other free name is a placeholder, declared `any`.
 *
 * @param snippets - the snippets
 * @returns each snippet's errors and placeholders, by id
 */
export function typecheckSnippets(snippets: readonly Snippet[]): Map<string, SnippetCheck> {
  const options = compilerOptions();
  const paths = snippets.map((snippet, index) => virtualPath(snippet, index));
  const entries = options.paths ?? {};
  const packageEntryOf = (snippet: Snippet): string | undefined => {
    const manifest = join(snippet.packageFolder, 'package.json');
    if (!existsSync(manifest)) return undefined;
    const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name;
    return name === undefined ? undefined : entries[name]?.[0];
  };

  const files = new Map<string, string>();
  for (const [index, snippet] of snippets.entries())
    files.set(paths[index] ?? '', `${snippet.code}\nexport {};\n`);
  const sources = [
    ...new Set(
      snippets.flatMap((snippet) => {
        const entry = packageEntryOf(snippet);
        return [
          ...(snippet.kind === 'tsdoc' ? [join(repositoryRoot, snippet.file)] : []),
          ...(entry === undefined ? [] : [entry]),
        ];
      }),
    ),
  ];
  const first = createProgram(files, options, [...paths, ...sources]);

  const preludes = new Map<string, string>();
  const placeholders = new Map<string, string[]>();
  const exportCache = new Map<string, Map<string, Exported>>();
  const exportsFrom = (path: string) => {
    let cached = exportCache.get(path);
    if (cached === undefined) {
      cached = exportsOf(first, path);
      exportCache.set(path, cached);
    }
    return cached;
  };
  for (const [index, snippet] of snippets.entries()) {
    if (snippet.kind !== 'tsdoc') continue;
    const path = paths[index] ?? '';
    const missing = missingNames(errorsOf(first, path, 0));
    if (missing.length === 0) continue;
    const own = exportsFrom(join(repositoryRoot, snippet.file));
    const entry = packageEntryOf(snippet);
    const publicNames = entry === undefined ? new Map<string, Exported>() : exportsFrom(entry);
    const coreEntry = entries['@tracewarden/core']?.[0];
    const coreNames =
      coreEntry === undefined ? new Map<string, Exported>() : exportsFrom(coreEntry);
    const resolves = (specifier: string) =>
      specifier.startsWith('node:') ||
      ts.resolveModuleName(specifier, path, options, ts.sys).resolvedModule !== undefined;
    const lines: string[] = [];
    const free: string[] = [];
    for (const name of missing) {
      // adapters' examples use core's names (`createTracer`, `renderTree`) as their users do
      const exported = own.get(name) ?? publicNames.get(name) ?? coreNames.get(name);
      const known = wellKnownImports[name];
      const knownModule = known === undefined ? undefined : moduleOf(known);
      const typed = typedPlaceholders[name];
      if (
        exported === undefined &&
        known !== undefined &&
        knownModule !== undefined &&
        resolves(knownModule)
      ) {
        lines.push(known);
      } else if (exported === undefined && typed !== undefined) {
        lines.push(`declare const ${name}: ${typed};`);
      } else if (exported === undefined) {
        free.push(name);
        lines.push(`declare const ${name}: any; type ${name} = any;`);
      } else {
        const specifier = exported.from.replace(/\.ts$/, '.js');
        lines.push(`import ${exported.typeOnly ? 'type ' : ''}{ ${name} } from '${specifier}';`);
      }
    }
    // one line, so the snippet's line numbers shift by exactly one
    preludes.set(path, `${lines.join(' ')}\n`);
    placeholders.set(snippet.id, free);
  }

  let second = first;
  if (preludes.size > 0) {
    for (const [path, prelude] of preludes) files.set(path, prelude + (files.get(path) ?? ''));
    second = createProgram(files, options, [...paths, ...sources], first);
  }

  const results = new Map<string, SnippetCheck>();
  for (const [index, snippet] of snippets.entries()) {
    const path = paths[index] ?? '';
    const prelude = preludes.get(path) ?? '';
    const free = placeholders.get(snippet.id) ?? [];
    results.set(snippet.id, {
      errors: errorsOf(second, path, prelude.length)
        .filter((diagnostic) => free.length === 0 || !placeholderCallbackCodes.has(diagnostic.code))
        .map((diagnostic) => describe(diagnostic, prelude, snippet)),
      placeholders: free,
      prelude,
    });
  }
  return results;
}

/** @internal for the runner: where a snippet of this folder may import its dependencies from. */
export function snippetFolder(snippet: Snippet): string {
  return dirname(virtualPath(snippet, 0));
}
