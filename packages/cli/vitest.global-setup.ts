import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const packages = join(here, '..');
const tsup = createRequire(import.meta.url)
  .resolve('tsup')
  .replace(/index\.js$/, 'cli-default.js');

function newestSource(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function buildIfStale(name: string, output: string): void {
  const root = join(packages, name);
  const built = join(root, output);
  if (existsSync(built) && statSync(built).mtimeMs >= newestSource(join(root, 'src'))) return;
  // tsup from the package itself: same as `pnpm build`, without turbo
  execFileSync(process.execPath, [tsup], { cwd: root, stdio: 'inherit' });
}

/** Builds `@tracewarden/core` and `tracewarden` when their dist is missing or stale. */
export default function setup(): void {
  try {
    buildIfStale('core', 'dist/index.js');
    buildIfStale('cli', 'dist/bin.js');
  } catch (error) {
    // the in-process tests still run; the binary tests then fail, naming the missing build
    console.warn(
      `tracewarden cli tests: could not build dist (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
