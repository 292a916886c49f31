/**
 * What importing `@tracewarden/core` (and each adapter) adds to a process's start: a whole
 * `node` process per sample, against bare `node -e 0`, interleaved (so load on the machine hits
 * every row alike). Each row shows the median wall time and the median CPU time (user + system)
 * the child reports at exit; CPU time is what to compare on a loaded machine. "added" is the
 * difference of the medians from bare node. Target (issue 18 §4): at most 30 ms added by a
 * process that imports core and makes a tracer, a guard and an adapter with options.
 *
 * Core is bundled first with esbuild, as tsup builds `dist` (one ESM file, dependencies such as
 * zod left external), into `packages/core/node_modules/.cache/` so that its dependencies resolve
 * as they do for an installed package; each adapter likewise into its own package, importing
 * core's bundle. An adapter's rows come with its framework imported alone, so that what the
 * adapter itself adds can be read off. Each "with options" row also checks, once, that zod was
 * not loaded. Nothing here asserts timing.
 *
 * Run: node --conditions=@tracewarden/source --import tsx bench/import.bench.ts
 * Env: SAMPLES (default 21); ADAPTERS=0 to time core only; BASELINE_SRC=<a copy of core's src> to
 * time it too, interleaved, as "(baseline)" rows (its adapters' rows import it); CORE_SRC=<a copy
 * of core's src> to time instead of this checkout's (e.g. a commit, without others' work in progress).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const samples = Math.max(3, Number(process.env.SAMPLES ?? 21));
const withAdapters = process.env.ADAPTERS !== '0';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cacheDirectory = (pkg: string) =>
  join(root, 'packages', pkg, 'node_modules/.cache/tracewarden-import-bench');
/** Another copy of core's `src` (e.g. `git archive` of a commit) to time against, interleaved. */
const baselineSource = process.env.BASELINE_SRC;
/** Core's `src` to time: this checkout's unless given (e.g. a commit's, without work in progress). */
const coreSource = process.env.CORE_SRC ?? join(root, 'packages/core/src');

// esbuild comes with tsup (a root dev dependency); resolved through it, not installed again
const requireFromTsup = createRequire(createRequire(import.meta.url).resolve('tsup'));
const esbuild = requireFromTsup('esbuild') as typeof import('esbuild');

/**
 * Bundles a package's source as tsup would, with `@tracewarden/core` as core's bundle of the
 * same variant ('' for this checkout, 'baseline' for `BASELINE_SRC`).
 * @returns the bundle's URL (JSON-quoted) and the packages it imports, core's bundle aside
 */
async function bundle(pkg: string, variant: string): Promise<{ url: string; imports: string[] }> {
  const file = (name: string) => join(cacheDirectory(name), `index${variant && `-${variant}`}.mjs`);
  const outfile = file(pkg);
  mkdirSync(dirname(outfile), { recursive: true });
  const source =
    pkg !== 'core'
      ? join(root, 'packages', pkg, 'src')
      : variant === 'baseline'
        ? (baselineSource as string)
        : coreSource;
  const result = await esbuild.build({
    entryPoints: [join(source, 'index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    plugins:
      pkg === 'core'
        ? []
        : [
            {
              name: 'core-bundle',
              setup(build) {
                build.onResolve({ filter: /^@tracewarden\/core$/ }, () => ({
                  path: pathToFileURL(file('core')).href,
                  external: true,
                }));
              },
            },
          ],
    outfile,
    metafile: true,
    logLevel: 'error',
  });
  const imports = Object.values(result.metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((entry) => entry.external && !entry.path.startsWith('file:'))
    .map((entry) => entry.path);
  return { url: JSON.stringify(pathToFileURL(outfile).href), imports: [...new Set(imports)] };
}

/** Prints the child's own CPU time at exit (pipes are written synchronously on Linux). */
const reportCpu =
  "process.on('exit', () => { const u = process.cpuUsage(); process.stdout.write('\\ncpu ' + (u.user + u.system) / 1000); });";
/** Prints whether zod is in the CommonJS cache (core loads zod with `require`, when it does). */
const reportZod =
  "const { createRequire: requireFrom } = await import('node:module'); process.on('exit', () => { const loaded = Object.keys(requireFrom(import.meta.url).cache).some((p) => /[\\\\/]zod[\\\\/]/.test(p)); process.stdout.write('\\nzod ' + loaded); });";

// a realistic set of options: a tracer with a sink, a guard with three guards, adapter options
const options = `
  const tracer = core.createTracer({ sinks: [core.createMemorySink()] });
  core.guard(async () => 1, {
    retry: { maxRetries: 2, initialDelay: 0.1 },
    timeout: { timeoutSeconds: 5 },
    budget: { maxCostPerSession: 1, onExceed: 'block' },
  });
  const adapterOptions = {
    tracer,
    guards: { rateLimit: { callsPerSecond: 5 }, circuitBreaker: { failureThreshold: 3 } },
    timeoutSeconds: 30,
  };`;

interface Case {
  label: string;
  script: string;
  /** compared with this case's row: what the row adds beyond it */
  against?: string;
  /** where the child runs: an adapter's package, so that its framework resolves as installed */
  cwd?: string;
  wall: number[];
  cpu: number[];
}
const cases: Case[] = [{ label: 'node -e 0', script: '', wall: [], cpu: [] }];
for (const variant of baselineSource === undefined ? [''] : ['baseline', '']) {
  const core = (await bundle('core', variant)).url;
  const tag = variant && ` (${variant})`;
  cases.push(
    { label: `import core's bundle${tag}`, script: `await import(${core});`, wall: [], cpu: [] },
    {
      label: `core: createTracer(), guard(fn)${tag}`,
      script: `const core = await import(${core}); core.createTracer(); core.guard(async () => 1);`,
      wall: [],
      cpu: [],
    },
    {
      label: `core: with options${tag}`,
      script: `const core = await import(${core}); ${options}
      core.checkAdapterOptions(adapterOptions, 'wrapOpenAI');`,
      wall: [],
      cpu: [],
    },
  );
  if (!withAdapters) continue;
  const adapters = [
    {
      pkg: 'openai',
      make: `adapter.wrapOpenAI({ chat: { completions: { create() {} } }, withOptions() { return this; } }, adapterOptions);`,
    },
    {
      pkg: 'ai-sdk',
      make: 'adapter.tracewardenMiddleware(adapterOptions);',
    },
    {
      pkg: 'langchain',
      make: 'new adapter.TracewardenCallbackHandler(adapterOptions);',
    },
  ];
  for (const { pkg, make } of adapters) {
    const { url, imports } = await bundle(pkg, variant);
    const cwd = join(root, 'packages', pkg);
    // exactly the framework modules the adapter imports (from a child in the adapter's package)
    const framework = imports.map((path) => `await import(${JSON.stringify(path)});`).join(' ');
    const frameworkLabel = `${pkg}: its framework + core${tag}`;
    if (variant === '') console.log(`${pkg} imports: ${imports.join(', ') || '(nothing)'}`);
    cases.push(
      {
        label: frameworkLabel,
        script: `${framework} await import(${core});`,
        cwd,
        wall: [],
        cpu: [],
      },
      {
        label: `${pkg}: import the adapter${tag}`,
        script: `${framework} await import(${url});`,
        against: frameworkLabel,
        cwd,
        wall: [],
        cpu: [],
      },
      {
        label: `${pkg}: adapter with options${tag}`,
        script: `${framework} const adapter = await import(${url}); const core = await import(${core}); ${options} ${make}`,
        against: frameworkLabel,
        cwd,
        wall: [],
        cpu: [],
      },
    );
  }
}

function run({ script, cwd }: Case, extra = ''): { wall: number; cpu: number; out: string } {
  const start = process.hrtime.bigint();
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `${reportCpu}${extra}${script}`],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], cwd: cwd ?? root },
  );
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`child exited with ${result.status}: ${script}`);
  const cpu = Number(/\ncpu ([\d.]+)/.exec(result.stdout)?.[1] ?? Number.NaN);
  return { wall, cpu, out: result.stdout };
}

// warm the file system cache, unmeasured; check once which "with options" rows load zod
const zodLoaded: string[] = [];
for (const entry of cases) {
  run(entry);
  if (entry.label.includes('with options') && /\nzod true/.test(run(entry, reportZod).out))
    zodLoaded.push(entry.label);
}
for (let i = 0; i < samples; i++)
  for (const entry of cases) {
    const { wall, cpu } = run(entry);
    entry.wall.push(wall);
    entry.cpu.push(cpu);
  }

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const bare = cases[0] as Case;
const format = (ms: number) => ms.toFixed(1).padStart(6);
console.log(
  `import cost: ${samples} child processes per row, medians in ms (wall | CPU), added vs node -e 0`,
);
for (const entry of cases) {
  const wall = median(entry.wall);
  const cpu = median(entry.cpu);
  const added =
    entry === bare
      ? ''
      : `  added ${format(wall - median(bare.wall))} | ${format(cpu - median(bare.cpu))}`;
  const reference = cases.find((other) => other.label === entry.against);
  const beyond =
    reference === undefined
      ? ''
      : `  beyond framework + core ${format(wall - median(reference.wall))} | ${format(cpu - median(reference.cpu))}`;
  console.log(`  ${entry.label.padEnd(44)} ${format(wall)} | ${format(cpu)}${added}${beyond}`);
}
console.log(
  zodLoaded.length === 0
    ? '  zod was not loaded by any "with options" row'
    : `  zod was loaded by: ${zodLoaded.join(', ')}`,
);
console.log('  target (issue 18 §4): core with options adds at most 30 ms');
