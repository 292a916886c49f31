/**
 * Runs every `bench/*.bench.ts` in its own node process (so each has a clean heap and may set its
 * own flags on its first line as `// node-flags: --max-old-space-size=64`).
 *
 * `pnpm bench [filter]` measures the packages as users run them: their built `dist` (the root
 * script builds first; turbo skips what is up to date). `pnpm bench:source [filter]` runs on the
 * TypeScript sources through tsx instead, for a quick loop while changing code: its figures are
 * higher than users see, because tsx compiles with esbuild's `keepNames`, which wraps every
 * function and closure the code creates in a `__name()` call (an `Object.defineProperty` each;
 * measured: `createTracer()` 37.9 µs from source vs 15.8 µs from dist).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageConditions } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !filter || f.includes(filter))
  .sort();
console.log(
  packageConditions().length > 0
    ? 'packages: TypeScript sources through tsx (pnpm bench:source)'
    : 'packages: built dist, as users run them (pnpm bench)',
);
let failed = 0;
for (const file of files) {
  const path = join(here, file);
  const first = readFileSync(path, 'utf8').split('\n', 1)[0] ?? '';
  const flags = first.startsWith('// node-flags:')
    ? first.slice('// node-flags:'.length).trim().split(/\s+/)
    : [];
  console.log(`\n# ${file}`);
  const result = spawnSync(
    process.execPath,
    [...flags, '--expose-gc', ...packageConditions(), '--import', 'tsx', path],
    { stdio: 'inherit' },
  );
  if (result.status !== 0) failed++;
}
if (failed > 0) {
  console.error(`${failed} benchmark file(s) failed`);
  process.exit(1);
}
