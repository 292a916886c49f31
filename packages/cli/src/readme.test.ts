import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from '@tracewarden/server';
import { afterAll, describe, expect, it } from 'vitest';

// The README's terminal sessions marked `<!-- docs-test: console -->` are replayed: each
// `$ cat <file>` writes the shown text to that file, each `$ tracewarden ...` runs the command
// in the same folder and must print exactly the lines shown under it. The folder holds the
// fixture the examples name: traces/run.jsonl (the two traces of __fixtures__/blocks.jsonl).
// A session marked `<!-- docs-test: console collector -->` runs against a fresh collector
// (startServer on a free port): TRACEWARDEN_URL and TRACEWARDEN_API_KEY are set for its
// commands, and the collector's URL is printed as the default one, http://127.0.0.1:7319.
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8').split('\n');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const workspace = mkdtempSync(join(tmpdir(), 'tracewarden-readme-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const fixtureLines = readFileSync(join(packageRoot, '__fixtures__', 'blocks.jsonl'), 'utf8');
mkdirSync(join(workspace, 'traces'));
writeFileSync(join(workspace, 'traces', 'run.jsonl'), fixtureLines);

interface Step {
  /** 1-based README line of the `$ ...` command. */
  line: number;
  command: string;
  shown: string[];
}

interface Session {
  line: number;
  steps: Step[];
  /** Runs against a collector. */
  collector: boolean;
}

function sessions(): Session[] {
  const found: Session[] = [];
  for (let i = 0; i < readme.length; i++) {
    const marker = /<!--\s*docs-test:\s*console(\s+collector)?\s*-->/.exec(readme[i] ?? '');
    if (marker === null) continue;
    const open = i + 1;
    if (!/^```console\s*$/.test(readme[open] ?? '')) continue;
    const steps: Step[] = [];
    let end = open + 1;
    for (; end < readme.length && !/^```\s*$/.test(readme[end] ?? ''); end++) {
      const text = readme[end] ?? '';
      if (text.startsWith('$ '))
        steps.push({
          line: end + 1,
          // a `# ...` after two spaces is a comment for the reader
          command: text.slice(2).replace(/\s{2,}#.*$/, ''),
          shown: [],
        });
      else steps.at(-1)?.shown.push(text);
    }
    for (const step of steps)
      while (step.shown.length > 0 && step.shown.at(-1)?.trim() === '') step.shown.pop();
    found.push({ line: open + 1, steps, collector: marker[1] !== undefined });
    i = end;
  }
  return found;
}

/** `traces/*.jsonl` as a shell would expand it, sorted. */
function expand(argument: string): string[] {
  const star = /^(.*)\/\*(\.\w+)$/.exec(argument);
  if (star === null) return [argument];
  const [, folder = '.', extension = ''] = star;
  return readdirSync(join(workspace, folder))
    .filter((name) => name.endsWith(extension))
    .sort()
    .map((name) => `${folder}/${name}`);
}

function run(args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        '--conditions=@tracewarden/source',
        `--import=${tsx}`,
        join(packageRoot, 'src', 'bin.ts'),
        ...args,
      ],
      { cwd: workspace, env: { PATH: process.env.PATH ?? '', ...env } },
      (_, stdout, stderr) => resolve(`${stdout}${stderr}`),
    );
  });
}

const found = sessions();

describe('README terminal sessions print what they show', () => {
  it('has sessions to replay', () => {
    expect(found.length).toBeGreaterThanOrEqual(3);
  });

  it.each(found.map((session) => [session.line, session] as const))(
    'README.md:%i',
    async (_, session) => {
      const collector = session.collector
        ? await startServer({
            port: 0,
            dataDir: mkdtempSync(join(workspace, 'collector-')),
            env: {},
          })
        : undefined;
      const env: Record<string, string> =
        collector === undefined
          ? {}
          : {
              TRACEWARDEN_URL: collector.url,
              TRACEWARDEN_API_KEY: collector.initialApiKey?.key as string,
            };
      try {
        await replay(session, env, collector?.url);
      } finally {
        await collector?.close();
      }
    },
  );
});

/** Runs a session's steps, comparing what each prints with what the README shows. */
async function replay(session: Session, env: Record<string, string>, url: string | undefined) {
  for (const step of session.steps) {
    const [program, ...rest] = step.command.trim().split(/\s+/);
    if (program === 'cat') {
      writeFileSync(join(workspace, rest[0] ?? ''), `${step.shown.join('\n')}\n`);
      continue;
    }
    expect(program, `README.md:${step.line}`).toBe('tracewarden');
    const redirect = rest.indexOf('>');
    const args = (redirect === -1 ? rest : rest.slice(0, redirect)).flatMap(expand);
    let output = await run(args, env);
    if (url !== undefined) output = output.replaceAll(url, 'http://127.0.0.1:7319');
    const printed = output.trimEnd().split('\n');
    if (step.shown.length > 0)
      expect(
        printed.map((line) => line.trimEnd()),
        `README.md:${step.line}`,
      ).toEqual(step.shown.map((line) => line.trimEnd()));
  }
}
