import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Snippet } from './collect-snippets.js';

/** What a run printed and where the shown outputs (`// → ...`) differed. */
export interface SnippetRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Each `console.log(...); // → expected` line: what it printed and what the docs show. */
  outputs: { line: number; expected: string; actual: string | undefined }[];
  /** The folder the snippet ran in (its working directory); removed by `cleanup()`. */
  cwd: string;
  cleanup(): void;
}

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const shownOutput = /^(\s*)console\.log\((.*)\);\s*\/\/\s*→\s?(.*)$/;
const separator = '\u001e';

/**
 * Turns each `console.log(x); // → shown` line into a call that tags what it prints, so the
 * printed text can be compared with the text the docs show. The helper goes on the snippet's
 * first line, so the snippet's own line numbers stay as they are in the docs.
 */
export function instrument(code: string): {
  code: string;
  expected: { line: number; text: string }[];
} {
  const expected: { line: number; text: string }[] = [];
  const lines = code.split('\n').map((line, index) => {
    const match = shownOutput.exec(line);
    if (match === null) return line;
    expected.push({ line: index, text: (match[3] ?? '').trim() });
    return `${match[1]}__docsShown(${expected.length - 1}, ${match[2]});`;
  });
  const helper = `import { format as __docsFormat } from 'node:util'; const __docsShown = (index: number, ...values: unknown[]) => { process.stdout.write(\`${separator}\${index}${separator}\${__docsFormat(...values)}${separator}\\n\`); };`;
  return { code: `${helper} ${lines.join('\n')}`, expected };
}

/**
 * Runs a snippet as a user would run the file they pasted it into: its own Node process
 * (`node --import tsx`, workspace packages from source), in an empty working directory, with
 * the given environment (an `OPENAI_BASE_URL` pointing at the scripted server, so `new OpenAI()`
 * works offline). The file is written under the snippet's package's `node_modules/`, so it
 * imports exactly the dependencies that package has, and nothing lands in the working tree; it
 * is an `.mts` file because Node reads no package type inside `node_modules`.
 *
 * @param snippet - the snippet
 * @param prelude - one line of imports put before it (TSDoc examples), or ''
 * @param env - extra environment variables
 * @returns exit code, outputs, and the shown outputs compared
 */
export function runSnippet(
  snippet: Snippet,
  prelude: string,
  env: Record<string, string>,
): Promise<SnippetRun> {
  const folder = join(snippet.packageFolder, 'node_modules', '.docs-tests');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${snippet.id.replace(/[^\w.-]+/g, '_')}.mts`);
  const { code, expected } = instrument(snippet.code);
  writeFileSync(file, `${prelude.trim()} ${code}\n`);
  const cwd = mkdtempSync(join(tmpdir(), 'tracewarden-docs-'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=@tracewarden/source', `--import=${tsx}`, file],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', ...env },
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const failure = error as (Error & { code?: number | string }) | null;
        const shown = new Map<number, string>();
        const tag = new RegExp(`${separator}(\\d+)${separator}([\\s\\S]*?)${separator}\\n`, 'g');
        for (const match of stdout.matchAll(tag)) shown.set(Number(match[1]), match[2] ?? '');
        rmSync(file, { force: true });
        resolve({
          code: failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null,
          stdout: stdout.replace(tag, (_, index: string, text: string) =>
            expected[Number(index)] === undefined ? '' : `${text}\n`,
          ),
          stderr,
          outputs: expected.map((entry, index) => ({
            line: snippet.line + entry.line,
            expected: entry.text,
            actual: shown.get(index),
          })),
          cwd,
          cleanup: () => rmSync(cwd, { recursive: true, force: true }),
        });
      },
    );
  });
}
