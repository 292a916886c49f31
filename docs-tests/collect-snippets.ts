import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** How a snippet is held true: run (and its `// →` outputs compared), or type-checked. */
export type SnippetMode = 'run' | 'typecheck';

/** A TypeScript example taken from a README or a TSDoc `@example`. */
export interface Snippet {
  /** Stable name for reports and the exception list: `packages/openai/README.md#2`, `packages/core/src/tracing/with-trace.ts#currentTracer`. */
  id: string;
  kind: 'readme' | 'tsdoc';
  /** The file it was taken from, relative to the repository root. */
  file: string;
  /** 1-based line of the snippet's first code line in `file`. */
  line: number;
  code: string;
  /** The folder whose dependencies the snippet may import (its package, else the root). */
  packageFolder: string;
  mode: SnippetMode;
  /** Files a run must leave in its working directory (`<!-- docs-test: run creates=traces/run.jsonl -->`). */
  creates: string[];
}

/**
 * READMEs are found, not listed: a package or example that gets a README (the AI SDK and
 * LangChain adapters, their examples) is held to the rule as soon as the file exists. So is
 * every Markdown page of the user guides under `docs/`.
 */
export function findReadmes(root: string = repositoryRoot): string[] {
  const found = existsSync(join(root, 'README.md')) ? ['README.md'] : [];
  const walk = (folder: string, depth: number, wanted: (name: string) => boolean) => {
    if (!existsSync(folder) || depth > 3) return;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path, depth + 1, wanted);
      else if (wanted(entry.name)) found.push(relative(root, path));
    }
  };
  for (const parent of ['packages', 'examples'])
    walk(join(root, parent), 1, (name) => name === 'README.md');
  walk(join(root, 'docs'), 1, (name) => name.endsWith('.md'));
  return found.sort();
}

/** The package folder that owns a file: the nearest folder with a package.json. */
function packageFolderOf(file: string): string {
  let folder = dirname(join(repositoryRoot, file));
  while (folder.startsWith(repositoryRoot)) {
    if (existsSync(join(folder, 'package.json'))) return folder;
    if (folder === repositoryRoot) break;
    folder = dirname(folder);
  }
  return repositoryRoot;
}

const fence = /^(\s*)```(\w*)\s*$/;
/**
 * `<!-- docs-test: run -->` just before a fence: the snippet is executed, not only type-checked;
 * `creates=<path>` (repeatable) names files the run must leave behind.
 */
const runMarker = /<!--\s*docs-test:\s*run((?:\s+creates=\S+)*)\s*-->/;

/**
 * The `ts` / `typescript` fenced blocks of a Markdown file.
 * @param file - path relative to the repository root
 */
export function readmeSnippets(file: string): Snippet[] {
  const lines = readFileSync(join(repositoryRoot, file), 'utf8').split('\n');
  const snippets: Snippet[] = [];
  let index = 0;
  for (let i = 0; i < lines.length; i++) {
    const open = fence.exec(lines[i] ?? '');
    if (open === null) continue;
    const language = open[2] ?? '';
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end] ?? '')) end++;
    if (language === 'ts' || language === 'typescript') {
      index++;
      const marker = runMarker.exec(lines.slice(Math.max(0, i - 2), i).join('\n'));
      snippets.push({
        id: `${file}#${index}`,
        kind: 'readme',
        file,
        line: i + 2,
        code: lines.slice(i + 1, end).join('\n'),
        packageFolder: packageFolderOf(file),
        mode: marker === null ? 'typecheck' : 'run',
        creates: [...(marker?.[1] ?? '').matchAll(/creates=(\S+)/g)].map((match) => match[1] ?? ''),
      });
    }
    i = end;
  }
  return snippets;
}

function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== '__fixtures__')
        files.push(...sourceFiles(path));
    } else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.test.ts') &&
      !entry.name.endsWith('.test-d.ts') &&
      !entry.name.endsWith('.d.ts')
    ) {
      files.push(path);
    }
  }
  return files;
}

/** Every package's source files (tests excluded), relative to the repository root. */
export function findSources(): string[] {
  const packages = join(repositoryRoot, 'packages');
  const files: string[] = [];
  for (const name of readdirSync(packages)) {
    const src = join(packages, name, 'src');
    if (existsSync(src) && statSync(src).isDirectory()) files.push(...sourceFiles(src));
  }
  return files.map((file) => relative(repositoryRoot, file)).sort();
}

const declarationName =
  /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([\w$]+)|^\s*(?:(?:public|private|protected|static|readonly|async|get|set|override)\s+)*([\w$]+)\s*[(<:?=]/;

/**
 * The ```ts blocks of the `@example` tags of a source file's TSDoc comments, each named after
 * the declaration it documents (`file#name`, `file#name.2` for a second one).
 * @param file - path relative to the repository root
 */
export function tsdocSnippets(file: string): Snippet[] {
  const text = readFileSync(join(repositoryRoot, file), 'utf8');
  const lines = text.split('\n');
  const snippets: Snippet[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\/\*\*/.test(lines[i] ?? '')) continue;
    let end = i;
    while (end < lines.length && !(lines[end] ?? '').includes('*/')) end++;
    const comment = lines.slice(i, end + 1).map((line) => line.replace(/^\s*\/?\*+\/?\s?/, ''));
    let name: string | undefined;
    for (let next = end + 1; next < lines.length && name === undefined; next++) {
      const line = lines[next] ?? '';
      if (line.trim() === '' || line.trim().startsWith('@')) continue;
      const match = declarationName.exec(line);
      name = match?.[1] ?? match?.[2] ?? `line${next + 1}`;
    }
    let inExample = false;
    for (let c = 0; c < comment.length; c++) {
      const line = comment[c] ?? '';
      if (/^@example\b/.test(line.trim())) inExample = true;
      else if (/^@\w+/.test(line.trim()) && !/^@example/.test(line.trim())) inExample = false;
      if (!inExample) continue;
      const open = fence.exec(line);
      if (open === null) continue;
      let close = c + 1;
      while (close < comment.length && !/^\s*```/.test(comment[close] ?? '')) close++;
      const language = open[2] ?? '';
      if (language === '' || language === 'ts' || language === 'typescript') {
        const base = `${file}#${name ?? `line${i + 1}`}`;
        const count = (seen.get(base) ?? 0) + 1;
        seen.set(base, count);
        snippets.push({
          id: count === 1 ? base : `${base}.${count}`,
          kind: 'tsdoc',
          file,
          line: i + c + 2,
          code: comment.slice(c + 1, close).join('\n'),
          packageFolder: packageFolderOf(file),
          mode: 'typecheck',
          creates: [],
        });
      }
      c = close;
    }
    i = end;
  }
  return snippets;
}

/** Every snippet of every README and every TSDoc `@example` in the packages' sources. */
export function collectSnippets(): Snippet[] {
  return [...findReadmes().flatMap(readmeSnippets), ...findSources().flatMap(tsdocSnippets)];
}

/**
 * A block of policy text (a ```policy fence) in a README or guide. The docs test compiles it
 * with `parsePolicy`, and with a marker before the fence also checks it:
 * `<!-- docs-test: policy trace=<name> violations=<n> -->` checks it against the trace of that
 * name (a ```json fence after `<!-- docs-test: trace name=<name> -->` in the same file) and
 * expects that many violations; `<!-- docs-test: policy error=<CODE> -->` expects the text to
 * be refused with that `PolicyError` code.
 */
export interface PolicySnippet {
  /** `docs/policy-language.md#policy-3`: the n-th policy block of the file. */
  id: string;
  file: string;
  /** 1-based line of the block's first line in `file`. */
  line: number;
  code: string;
  /** The trace to check it against, by name, and the violations expected. */
  trace: { name: string; violations: number } | undefined;
  /** The `PolicyError` code the text must be refused with. */
  error: string | undefined;
}

const policyMarker = /<!--\s*docs-test:\s*policy((?:\s+\w+=\S+)*)\s*-->/;
const traceMarker = /<!--\s*docs-test:\s*trace\s+name=(\S+)\s*-->/;

/**
 * The ```policy blocks of a Markdown file, and the named traces (```json after a trace marker)
 * they are checked against.
 * @param file - path relative to the repository root
 */
export function policySnippets(file: string): {
  policies: PolicySnippet[];
  traces: Map<string, unknown[]>;
} {
  const lines = readFileSync(join(repositoryRoot, file), 'utf8').split('\n');
  const policies: PolicySnippet[] = [];
  const traces = new Map<string, unknown[]>();
  for (let i = 0; i < lines.length; i++) {
    const open = fence.exec(lines[i] ?? '');
    if (open === null) continue;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end] ?? '')) end++;
    const before = lines.slice(Math.max(0, i - 2), i).join('\n');
    const code = lines.slice(i + 1, end).join('\n');
    const language = open[2] ?? '';
    const traceName = traceMarker.exec(before)?.[1];
    if (language === 'json' && traceName !== undefined) {
      traces.set(traceName, JSON.parse(code) as unknown[]);
    } else if (language === 'policy') {
      const settings = new Map(
        [...(policyMarker.exec(before)?.[1] ?? '').matchAll(/(\w+)=(\S+)/g)].map(
          (match) => [match[1] ?? '', match[2] ?? ''] as const,
        ),
      );
      const traceSetting = settings.get('trace');
      policies.push({
        id: `${file}#policy-${policies.length + 1}`,
        file,
        line: i + 2,
        code,
        trace:
          traceSetting === undefined
            ? undefined
            : { name: traceSetting, violations: Number(settings.get('violations') ?? 'NaN') },
        error: settings.get('error'),
      });
    }
    i = end;
  }
  return { policies, traces };
}
