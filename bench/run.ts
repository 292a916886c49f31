/**
 * Runs every `bench/*.bench.ts` in its own node process (so each has a clean heap and may set its
 * own flags on its first line as `// node-flags: --max-old-space-size=64`). `pnpm bench [filter]`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !filter || f.includes(filter))
  .sort();
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
    [...flags, '--expose-gc', '--conditions=@tracewarden/source', '--import', 'tsx', path],
    {
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) failed++;
}
if (failed > 0) {
  console.error(`${failed} benchmark file(s) failed`);
  process.exit(1);
}
