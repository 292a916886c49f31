// Runs biome on the files git tracks, so `pnpm check` judges the repository, not whatever else
// lies in the working tree (a report written while following a README, another branch's
// leftovers). Outside a git checkout it falls back to the whole folder.
//   node .ci/biome-tracked.mjs check [biome options]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const args = process.argv.slice(2);
let files;
try {
  files = execFileSync('git', ['ls-files', '-z', '--cached'], { encoding: 'utf8' })
    .split('\0')
    // tracked but deleted in the working tree: nothing to check
    .filter((file) => file !== '' && existsSync(file));
} catch {
  files = ['.'];
}
const result = spawnSync(
  'biome',
  [...args, '--files-ignore-unknown=true', '--no-errors-on-unmatched', ...files],
  { stdio: 'inherit', shell: process.platform === 'win32' },
);
process.exit(result.status ?? 1);
