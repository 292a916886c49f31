/**
 * What importing `@tracewarden/core` adds to a process's start: wall time of a whole `node`
 * process that only imports core's bundle, against bare `node -e 0`, one child process per sample,
 * interleaved (so load on the machine hits both alike). Medians; "added" is the difference of
 * the medians. Target (issue 18 §4): at most 30 ms added.
 *
 * Core is bundled first with esbuild, as tsup builds `dist` (one ESM file, dependencies such as
 * zod left external), into `packages/core/node_modules/.cache/` so that its dependencies resolve
 * as they do for an installed package. Nothing here asserts timing.
 *
 * Run: node --conditions=@tracewarden/source --import tsx bench/import.bench.ts
 * Env: SAMPLES (default 21).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const samples = Math.max(3, Number(process.env.SAMPLES ?? 21));
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const core = join(root, 'packages/core');
const outDirectory = join(core, 'node_modules/.cache/tracewarden-import-bench');
const outfile = join(outDirectory, 'index.mjs');

// esbuild comes with tsup (a root dev dependency); resolved through it, not installed again
const requireFromTsup = createRequire(createRequire(import.meta.url).resolve('tsup'));
const esbuild = requireFromTsup('esbuild') as typeof import('esbuild');
mkdirSync(outDirectory, { recursive: true });
esbuild.buildSync({
  entryPoints: [join(core, 'src/index.ts')],
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  outfile,
  logLevel: 'error',
});

function wallMs(args: string[]): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${result.status}`);
  return ms;
}

const bundleUrl = JSON.stringify(pathToFileURL(outfile).href);
const cases: { label: string; args: string[]; times: number[] }[] = [
  { label: 'node -e 0', args: ['-e', '0'], times: [] },
  {
    label: "import core's bundle",
    args: ['--input-type=module', '-e', `await import(${bundleUrl})`],
    times: [],
  },
  {
    // no options to check: zod is never loaded
    label: 'import, createTracer(), guard(fn)',
    args: [
      '--input-type=module',
      '-e',
      `const core = await import(${bundleUrl}); core.createTracer(); core.guard(async () => 1);`,
    ],
    times: [],
  },
  {
    // the first guard and tracer validate their options: zod is loaded then, not at import
    label: 'import, guard(fn, { tracer }) (zod)',
    args: [
      '--input-type=module',
      '-e',
      `const core = await import(${bundleUrl}); core.guard(async () => 1, { tracer: core.createTracer() });`,
    ],
    times: [],
  },
];
// warm the file system cache, unmeasured
for (const entry of cases) wallMs(entry.args);
for (let i = 0; i < samples; i++) for (const entry of cases) entry.times.push(wallMs(entry.args));

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const bareMs = median(cases[0]?.times ?? []);
console.log(`import @tracewarden/core: ${samples} child processes per row, medians of wall time`);
for (const entry of cases) {
  const ms = median(entry.times);
  const added = entry === cases[0] ? '' : `  added ${(ms - bareMs).toFixed(1).padStart(6)} ms`;
  console.log(`  ${entry.label.padEnd(40)} ${ms.toFixed(1).padStart(7)} ms${added}`);
}
console.log('  target (issue 18 §4): the import adds at most 30 ms');
