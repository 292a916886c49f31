import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { echoTurn, type ScriptedServer, startScriptedServer } from '@tracewarden/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSnippets, findReadmes, repositoryRoot, type Snippet } from './collect-snippets.js';
import { exceptions, runnableExamples } from './exceptions.js';
import { instrument, runSnippet } from './run-snippet.js';
import { type SnippetCheck, typecheckSnippets } from './typecheck-snippets.js';

// Every README snippet and every TSDoc example, found anew on each run: a README or an
// example added anywhere under packages/ or examples/ is checked from the moment it exists.
const snippets = collectSnippets();
const byId = new Map(snippets.map((snippet) => [snippet.id, snippet]));
const checked = snippets.filter((snippet) => exceptions[snippet.id] === undefined);
const runnable = snippets.filter(
  (snippet) => snippet.mode === 'run' || runnableExamples.includes(snippet.id),
);

let checks: Map<string, SnippetCheck>;
let server: ScriptedServer;

beforeAll(async () => {
  checks = typecheckSnippets(snippets);
  // `new OpenAI()` in a snippet talks to this server (OPENAI_BASE_URL): no key, no network.
  // A model offered tools calls the first one once, then answers in words, so agent loops end.
  server = await startScriptedServer({
    turns: (request) => {
      const body = request.body ?? {};
      const messages = Array.isArray(body.messages) ? (body.messages as { role?: string }[]) : [];
      const tools = Array.isArray(body.tools)
        ? (body.tools as { function?: { name?: string } }[])
        : [];
      const name = tools[0]?.function?.name;
      if (name !== undefined && messages.at(-1)?.role === 'user')
        return { toolCalls: [{ name, arguments: {} }] };
      return echoTurn(request);
    },
  });
});
afterAll(() => server?.close());

function problems(snippet: Snippet): string[] {
  const check = checks.get(snippet.id);
  if (check === undefined) return [`${snippet.id}: not type-checked`];
  return check.errors;
}

describe('docs: every snippet is found', () => {
  it('finds the README of every package and example that has one', () => {
    const readmes = findReadmes();
    expect(readmes).toContain('README.md');
    for (const name of ['core', 'openai', 'testing', 'cli'])
      expect(readmes).toContain(`packages/${name}/README.md`);
    // the packages' READMEs hold at least one TypeScript snippet each
    for (const readme of readmes.filter((file) => /^packages\/[^/]+\/README\.md$/.test(file)))
      expect(snippets.some((snippet) => snippet.file === readme)).toBe(true);
  });

  it('picks up the README of a package or example and a guide as soon as it exists, never node_modules', () => {
    const root = mkdtempSync(join(tmpdir(), 'tracewarden-readmes-'));
    try {
      for (const file of [
        'README.md',
        'packages/new-adapter/README.md',
        'examples/new-adapter/email-agent/README.md',
        'packages/new-adapter/node_modules/dependency/README.md',
        'packages/core/src/README.md',
        'docs/guards.md',
        'docs/notes.txt',
      ]) {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        writeFileSync(join(root, file), '# readme\n');
      }
      expect(findReadmes(root)).toEqual([
        'README.md',
        'docs/guards.md',
        'examples/new-adapter/email-agent/README.md',
        'packages/core/src/README.md',
        'packages/new-adapter/README.md',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('lists as exceptions only examples that exist and still fail', () => {
    const stale: string[] = [];
    for (const id of Object.keys(exceptions)) {
      const snippet = byId.get(id);
      if (snippet === undefined) stale.push(`${id}: no such example any more`);
      else if (problems(snippet).length === 0)
        stale.push(`${id}: type-checks now; remove it from docs-tests/exceptions.ts`);
    }
    expect(stale).toEqual([]);
    expect(Object.keys(exceptions).length).toBeLessThanOrEqual(8);
  });

  it('runs every example it was asked to run', () => {
    for (const id of runnableExamples) expect(byId.has(id), id).toBe(true);
  });
});

describe('docs: snippets type-check', () => {
  it.each(checked.map((snippet) => [snippet.id, snippet] as const))('%s', (_, snippet) => {
    expect(problems(snippet)).toEqual([]);
  });
});

describe('docs: runnable snippets run and print what they show', () => {
  it.each(runnable.map((snippet) => [snippet.id, snippet] as const))('%s', async (_, snippet) => {
    const prelude = checks.get(snippet.id)?.prelude ?? '';
    const run = await runSnippet(snippet, prelude, {
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: 'sk-docs-test',
    });
    try {
      expect(
        run.code,
        `${snippet.file}:${snippet.line} exited with ${run.code}\n--- stderr\n${run.stderr}\n--- stdout\n${run.stdout}`,
      ).toBe(0);
      for (const output of run.outputs)
        expect(output.actual, `${snippet.file}:${output.line}: // → ${output.expected}`).toBe(
          output.expected,
        );
      for (const file of snippet.creates)
        expect(existsSync(join(run.cwd, file)), `${snippet.id} must write ${file}`).toBe(true);
    } finally {
      run.cleanup();
    }
  });
});

/** What varies from run to run in the demo's output: ids, durations, costs. */
function normalizeDemo(text: string): string[] {
  return text
    .trim()
    .split('\n')
    .map((line) =>
      line
        .replace(/tr_[0-9A-Z]{26}/g, 'tr_<id>')
        .replace(/\d+(?:\.\d+)? ms\b/g, '<n> ms')
        .replace(/\$\d+(?:\.\d+)?/g, '$<cost>')
        .trimEnd(),
    );
}

/**
 * A value cut with `…` is cut where the line runs out of width, which moves with the length of
 * what follows it (`4 ms` or `0.35 ms`): such lines agree when one cut text is a prefix of the other.
 */
function sameDemoLine(shown: string, printed: string): boolean {
  if (shown === printed) return true;
  const [shownHead, shownTail] = shown.split('…', 2);
  const [printedHead, printedTail] = printed.split('…', 2);
  if (shownTail === undefined || printedTail === undefined || shownTail !== printedTail)
    return false;
  const [shorter, longer] =
    (shownHead ?? '').length <= (printedHead ?? '').length
      ? [shownHead ?? '', printedHead ?? '']
      : [printedHead ?? '', shownHead ?? ''];
  return longer.startsWith(shorter) && longer.length - shorter.length <= 12;
}

describe('docs: the root README shows what `pnpm demo` prints', () => {
  it('prints the tree and summary shown in README.md (ids, timings and costs aside)', async () => {
    const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
    const shown = /```text\n(trace tr_[\s\S]*?)```/.exec(readme)?.[1];
    expect(shown, 'README.md has a ```text block with the demo output').toBeDefined();
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    // what `pnpm demo` runs (examples/openai/email-agent's start script), without an API key
    const printed = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--conditions=@tracewarden/source', `--import=${tsx}`, 'src/main.ts'],
        {
          cwd: join(repositoryRoot, 'examples', 'openai', 'email-agent'),
          // `pnpm demo` typed at the root: the demo prints the trace's path from there
          env: { PATH: process.env.PATH ?? '', INIT_CWD: repositoryRoot },
          timeout: 60_000,
        },
        (error, stdout, stderr) =>
          error ? reject(new Error(`the demo failed: ${stderr}\n${stdout}`)) : resolve(stdout),
      ),
    );
    // the trace file this run wrote is not the user's: leave the demo's folder as it was
    const written = /^trace: (\S+\.jsonl)/m.exec(printed)?.[1];
    if (written !== undefined) rmSync(join(repositoryRoot, written), { force: true });
    const want = normalizeDemo(shown ?? '');
    const got = normalizeDemo(printed);
    const differences = want.flatMap((line, index) =>
      sameDemoLine(line, got[index] ?? '') ? [] : [`README: ${line}\ndemo:   ${got[index]}`],
    );
    expect(differences).toEqual([]);
    expect(got).toHaveLength(want.length);
  });
});

describe('docs: the harness', () => {
  it('fails a run whose printed output differs from the output its comment shows', async () => {
    const snippet: Snippet = {
      id: 'harness-probe',
      kind: 'readme',
      file: 'README.md',
      line: 1,
      code: 'const two = 1 + 1;\nconsole.log(two); // → 3',
      packageFolder: repositoryRoot,
      mode: 'run',
      creates: [],
    };
    const run = await runSnippet(snippet, '', {});
    run.cleanup();
    expect(run.code).toBe(0);
    expect(run.outputs).toEqual([{ line: 2, expected: '3', actual: '2' }]);
  });

  it('compares what a console.log prints with the output its comment shows', () => {
    const { code, expected } = instrument(
      "const a = 1;\nconsole.log(a + 1); // → 2\nconsole.log('x'); // a plain comment",
    );
    expect(expected).toEqual([{ line: 1, text: '2' }]);
    expect(code.split('\n')[1]).toBe('__docsShown(0, a + 1);');
    expect(code.split('\n')[2]).toBe("console.log('x'); // a plain comment");
  });

  it('reports a README snippet that does not type-check, at its line in the README', () => {
    const broken: Snippet = {
      id: 'README.md#probe',
      kind: 'readme',
      file: 'README.md',
      line: 10,
      code: "import { createTracer } from '@tracewarden/core';\nconst tracer = createTracer();\ntracer.logMesage({ role: 'user', content: 'hi' });",
      packageFolder: repositoryRoot,
      mode: 'typecheck',
      creates: [],
    };
    const [check] = typecheckSnippets([broken]).values();
    expect(check?.errors).toEqual([
      expect.stringMatching(/^README\.md:12:8 TS2551: Property 'logMesage' does not exist/),
    ]);
  });
});
