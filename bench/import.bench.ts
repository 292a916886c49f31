/**
 * What importing `@tracewarden/core` (and each adapter) adds to a process's start: a whole
 * `node` process per sample, against bare `node -e 0`, interleaved (so load on the machine hits
 * every row alike). Each row shows the median wall time and the median CPU time (user + system)
 * the child reports at exit; CPU time is what to compare on a loaded machine. "added" is the
 * difference of the medians from bare node. Target (issue 18 §4): at most 30 ms added by a
 * process that imports core and makes a tracer, a guard and an adapter with options.
 *
 * Core is bundled first with esbuild, as tsup builds `dist` (ESM, dependencies such as zod left
 * external; since decision 110's split, `index.js` and shared chunks, with the policy engine in
 * `policy.js`, required on first use, using tsup.config.ts's define and seam plugin), into
 * `packages/core/node_modules/.cache/` so that its dependencies resolve as they do for an
 * installed package; each adapter likewise into its own package, importing core's bundle. A row
 * "then a policy" adds a first `parsePolicy` and check: what loading the engine costs. An adapter's rows come with its framework imported alone, so that what the
 * adapter itself adds can be read off. Each "with options" row also checks, once, that zod was
 * not loaded. Nothing here asserts timing.
 *
 * Then where core's import goes (decision 110), unless BREAKDOWN=0, on one file of what the
 * import loads (the policy engine left out as in the split): the bundle's bytes by domain,
 * the CPU time of reading it, of V8 compiling it (`vm.SourceTextModule`, in a child with
 * `--experimental-vm-modules`) and of running each domain's module bodies (a copy of the bundle
 * with a CPU-time mark at each module esbuild concatenated); and "what if" rows, interleaved with
 * the others: the "with options" process on a copy of the bundle with a group of modules left out
 * (their top-level names declared, never set), i.e. what loading that code on first use would save.
 *
 * Run: node --conditions=@tracewarden/source --import tsx bench/import.bench.ts
 * Env: SAMPLES (default 21); ADAPTERS=0 to time core only; BASELINE_SRC=<a copy of core's src> to
 * time it too, interleaved, as "(baseline)" rows (its adapters' rows import it); CORE_SRC=<a copy
 * of core's src> to time instead of this checkout's (e.g. a commit, without others' work in progress);
 * BREAKDOWN=0 to skip the breakdown and the "what if" rows.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import coreTsupOptions from '../packages/core/tsup.config.js';

const samples = Math.max(3, Number(process.env.SAMPLES ?? 21));
const withAdapters = process.env.ADAPTERS !== '0';
const withBreakdown = process.env.BREAKDOWN !== '0';
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
/** Core's tsup options: the policy seam's define and plugin (decision 110) */
const coreBuild = coreTsupOptions as {
  define: Record<string, string>;
  esbuildPlugins: import('esbuild').Plugin[];
};

/** The file each variant's adapters import as `@tracewarden/core`: core's split entry, or its one file. */
const coreEntries = new Map<string, string>();

/**
 * Core as tsup builds it since decision 110's split: `index.js`, shared chunks and the policy
 * engine's chunk (`policy.js`, required on first use), with tsup.config.ts's define and seam plugin.
 * Only for a core source that has the seam (`policy/policy-engine.ts`); older sources are one file.
 * @returns the entry's file, or undefined when the source has no seam
 */
async function bundleSplit(source: string, variant: string): Promise<string | undefined> {
  const engine = join(source, 'policy/policy-engine.ts');
  if (!existsSync(engine)) return undefined;
  const outdir = join(cacheDirectory('core'), `split${variant && `-${variant}`}`);
  rmSync(outdir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: { index: join(source, 'index.ts'), policy: engine },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    define: coreBuild.define,
    plugins: coreBuild.esbuildPlugins,
    outdir,
    logLevel: 'error',
  });
  // node_modules ends a package scope: say that these .js files are ES modules
  writeFileSync(join(outdir, 'package.json'), '{ "type": "module" }\n');
  return join(outdir, 'index.js');
}

/**
 * Bundles a package's source as tsup would, with `@tracewarden/core` as core's bundle of the
 * same variant ('' for this checkout, 'baseline' for `BASELINE_SRC`). Core is bundled twice when
 * its source has the policy seam: split as tsup builds it (what the rows time), and as one file of
 * what loads at import, the engine left out (what the breakdown reads).
 * @returns the URL (JSON-quoted) of what the rows import, the packages it imports (core's bundle
 * aside), and the one file of the breakdown with its bytes by source file
 */
async function bundle(
  pkg: string,
  variant: string,
): Promise<{ url: string; imports: string[]; outfile: string; bytes: Map<string, number> }> {
  const file = (name: string) => join(cacheDirectory(name), `index${variant && `-${variant}`}.mjs`);
  const outfile = file(pkg);
  mkdirSync(dirname(outfile), { recursive: true });
  const source =
    pkg !== 'core'
      ? join(root, 'packages', pkg, 'src')
      : variant === 'baseline'
        ? (baselineSource as string)
        : coreSource;
  const split = pkg === 'core' ? await bundleSplit(source, variant) : undefined;
  if (pkg === 'core') coreEntries.set(variant, split ?? outfile);
  const result = await esbuild.build({
    entryPoints: [join(source, 'index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    ...(split === undefined ? {} : { define: coreBuild.define }),
    plugins:
      pkg === 'core'
        ? split === undefined
          ? []
          : coreBuild.esbuildPlugins
        : [
            {
              name: 'core-bundle',
              setup(build) {
                build.onResolve({ filter: /^@tracewarden\/core$/ }, () => ({
                  path: pathToFileURL(coreEntries.get(variant) as string).href,
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
  const bytes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(
    Object.values(result.metafile.outputs)[0]?.inputs ?? {},
  ))
    bytes.set(input, bytesInOutput);
  return { url: urlOf(split ?? outfile), imports: [...new Set(imports)], outfile, bytes };
}

/** A module's file URL, JSON-quoted for a child's script. */
const urlOf = (file: string) => JSON.stringify(pathToFileURL(file).href);

/**
 * The domain of one of core's source files, as the breakdown groups them: `src/<domain>/`, or
 * `policy/<part>` for the policy's language, runtime, detectors and recommended policy.
 */
function domainOf(file: string): string {
  const [first, second, third] = file.slice(file.lastIndexOf('src/') + 4).split('/');
  if (second === undefined) return first ?? file;
  return first === 'policy' && third !== undefined ? `policy/${second}` : (first as string);
}

/** The source file each module of an (unminified) esbuild bundle starts at: its `// …src/x.ts` line. */
const moduleStart = /^\/\/ \S*?(src\/\S+\.ts)$/;

/**
 * A copy of core's bundle with the modules of `domains` left out: each one's top-level names are
 * declared (`var`) and never set, so the rest compiles and links, and fails only if it reads one
 * at import. What loading those modules on first use would save, short of building it.
 */
function bundleWithout(outfile: string, domains: readonly string[], name: string): string {
  const kept: string[] = [];
  let leftOut = false;
  let names: string[] = [];
  const declare = () => {
    if (names.length > 0) kept.push(`var ${names.join(', ')};`);
    names = [];
  };
  for (const line of readFileSync(outfile, 'utf8').split('\n')) {
    const start = moduleStart.exec(line);
    if (start !== null) {
      declare();
      leftOut = domains.includes(domainOf(start[1] as string));
    }
    if (!leftOut) kept.push(line);
    else {
      const declared = /^(?:var|let|const|class|function\*?|async function\*?) ([\w$]+)/.exec(line);
      if (declared !== null) names.push(declared[1] as string);
    }
  }
  declare();
  const file = join(dirname(outfile), `${name}.mjs`);
  writeFileSync(file, kept.join('\n'));
  return file;
}

/** A copy of core's bundle that records the CPU time of each module's top-level code. */
function instrumentedBundle(outfile: string): string {
  const marked = readFileSync(outfile, 'utf8')
    .split('\n')
    .map((line) => {
      const start = moduleStart.exec(line);
      return start === null
        ? line
        : `__mark(${JSON.stringify(domainOf(start[1] as string))});\n${line}`;
    });
  // after the imports (hoisted anyway): the marks' clock, started when the first module runs
  const first = marked.findIndex((line) => line.startsWith('__mark('));
  marked.splice(
    first,
    0,
    'const __cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };',
    'let __at = __cpu(), __in = "(imports)"; const __spent = (globalThis.__moduleCpu = {});',
    'function __mark(next) { const now = __cpu(); __spent[__in] = (__spent[__in] ?? 0) + now - __at; __at = now; __in = next; }',
  );
  marked.push('__mark("(end)");');
  const file = join(dirname(outfile), 'index-instrumented.mjs');
  writeFileSync(file, marked.join('\n'));
  return file;
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
/** This checkout's core bundle, for the breakdown */
let coreBundle: Awaited<ReturnType<typeof bundle>> | undefined;
/**
 * Groups of modules a "what if" row leaves out, each with the groups before it; a group no longer
 * in the import (the policy engine, since the split) is skipped.
 */
const leftOutGroups: { label: string; domains: string[] }[] = [
  { label: 'policy detectors', domains: ['policy/detectors'] },
  { label: 'policy language, runtime', domains: ['policy/language', 'policy/runtime'] },
  { label: 'convert, datasets, stitching', domains: ['convert', 'datasets', 'stitching'] },
];
/** A first policy check: what a process that uses a policy pays on top (the engine's chunk). */
const firstCheck = `core.parsePolicy('raise "no deletes" if:\\n  (call: ToolCall)\\n  call is tool:delete_file\\n').check([]);`;
for (const variant of baselineSource === undefined ? [''] : ['baseline', '']) {
  const built = await bundle('core', variant);
  const core = built.url;
  if (variant === '') coreBundle = built;
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
    {
      label: `core: with options, then a policy${tag}`,
      script: `const core = await import(${core}); ${options}
      core.checkAdapterOptions(adapterOptions, 'wrapOpenAI'); ${firstCheck}`,
      wall: [],
      cpu: [],
    },
  );
  if (withBreakdown && variant === '') {
    const domains: string[] = [];
    const bytesOf = (domain: string) =>
      [...built.bytes].reduce(
        (sum, [input, size]) => sum + (domainOf(input) === domain ? size : 0),
        0,
      );
    // since the split, the policy's groups keep only a few small helpers at import (~1 kB)
    leftOutGroups
      .filter((group) => group.domains.reduce((sum, domain) => sum + bytesOf(domain), 0) > 10_000)
      .forEach(({ label, domains: group }, index) => {
        domains.push(...group);
        const file = bundleWithout(built.outfile, domains, `index-what-if-${index}`);
        cases.push({
          label: `what if, lazy: ${index === 0 ? '' : '+ '}${label}`,
          script: `const core = await import(${urlOf(file)}); ${options}
        core.checkAdapterOptions(adapterOptions, 'wrapOpenAI');`,
          wall: [],
          cpu: [],
        });
      });
  }
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

function run(
  { script, cwd, label }: Case,
  extra = '',
  flags: string[] = [],
): { wall: number; cpu: number; out: string } {
  const start = process.hrtime.bigint();
  const result = spawnSync(
    process.execPath,
    [...flags, '--input-type=module', '-e', `${reportCpu}${extra}${script}`],
    {
      encoding: 'utf8',
      // a "what if" copy may fail at import (code that reads a left-out name at the top level)
      stdio: ['ignore', 'pipe', label.startsWith('what if') ? 'pipe' : 'inherit'],
      cwd: cwd ?? root,
    },
  );
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`child exited with ${result.status}: ${script}`);
  const cpu = Number(/\ncpu ([\d.]+)/.exec(result.stdout)?.[1] ?? Number.NaN);
  return { wall, cpu, out: result.stdout };
}

// warm the file system cache, unmeasured; check once which "with options" rows load zod
const zodLoaded: string[] = [];
for (const entry of [...cases]) {
  if (entry.label.startsWith('what if')) {
    try {
      run(entry);
    } catch {
      console.log(
        `  ${entry.label}: left out (that copy fails at import: a left-out name is read there)`,
      );
      cases.splice(cases.indexOf(entry), 1);
      continue;
    }
  } else run(entry);
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
  console.log(`  ${entry.label.padEnd(46)} ${format(wall)} | ${format(cpu)}${added}${beyond}`);
}
console.log(
  zodLoaded.length === 0
    ? '  zod was not loaded by any "with options" row'
    : `  zod was loaded by: ${zodLoaded.join(', ')}`,
);
console.log('  target (issue 18 §4): core with options adds at most 30 ms');

if (withBreakdown && coreBundle !== undefined) {
  const { outfile, bytes } = coreBundle;
  const byDomain = new Map<string, number>();
  for (const [input, size] of bytes)
    byDomain.set(domainOf(input), (byDomain.get(domainOf(input)) ?? 0) + size);
  const total = [...bytes.values()].reduce((sum, size) => sum + size, 0);
  const kB = (size: number) => `${(size / 1000).toFixed(0)} kB`;
  // reading and compiling the bundle, and its module bodies by domain, each in a fresh child
  const compileScript = `const vm = await import('node:vm'); const { readFileSync } = await import('node:fs');
    const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
    let at = cpu(); const text = readFileSync(${JSON.stringify(outfile)}).toString('utf8'); const read = cpu() - at;
    at = cpu(); new vm.SourceTextModule(text); const compile = cpu() - at;
    process.stdout.write('\\nphases ' + JSON.stringify({ read, compile }));`;
  const bodies = `await import(${urlOf(instrumentedBundle(outfile))});
    process.stdout.write('\\nphases ' + JSON.stringify(globalThis.__moduleCpu));`;
  const phases = new Map<string, number[]>();
  for (let i = 0; i < samples; i++)
    for (const [script, flags] of [
      [compileScript, ['--experimental-vm-modules', '--no-warnings']],
      [bodies, []],
    ] as const) {
      const { out } = run({ label: 'breakdown', script, wall: [], cpu: [] }, '', [...flags]);
      const spent = JSON.parse(/\nphases (.*)/.exec(out)?.[1] ?? '{}') as Record<string, number>;
      let modules = 0;
      for (const [phase, ms] of Object.entries(spent)) {
        phases.set(phase, [...(phases.get(phase) ?? []), ms]);
        if (script === bodies && !phase.startsWith('(')) modules += ms;
      }
      if (script === bodies)
        phases.set('(all modules)', [...(phases.get('(all modules)') ?? []), modules]);
    }
  const range = (values: number[] = []) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q: number) => (sorted[Math.floor((sorted.length - 1) * q)] ?? 0).toFixed(1);
    return `${median(values).toFixed(1).padStart(5)} (${at(0.25)}-${at(0.75)})`;
  };
  console.log(
    `\nwhere importing core's bundle goes (${kB(total)} of code, esbuild as tsup; CPU ms, median (q25-q75) of ${samples} children)`,
  );
  console.log(`  read and decode the file               ${range(phases.get('read'))}`);
  console.log(`  V8 compiles it (vm.SourceTextModule)   ${range(phases.get('compile'))}`);
  console.log(`  run its module bodies                  ${range(phases.get('(all modules)'))}`);
  const domains = [...byDomain.keys()].sort(
    (a, b) =>
      median(phases.get(b) ?? [0]) - median(phases.get(a) ?? [0]) ||
      (byDomain.get(b) ?? 0) - (byDomain.get(a) ?? 0),
  );
  for (const domain of domains)
    console.log(
      `    ${domain.padEnd(20)} ${kB(byDomain.get(domain) ?? 0).padStart(7)}  ${range(phases.get(domain) ?? [0])}`,
    );
}
