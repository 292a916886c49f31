import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = join(dirname(fileURLToPath(import.meta.url)), '../__fixtures__/link-memory.mts');

describe('the call-id index across traces', () => {
  it('lets a collected trace’s tool-call arguments go (3000 calls of 100 KB: not 300 MB kept)', () => {
    const output = execFileSync(
      process.execPath,
      ['--expose-gc', '--conditions=@tracewarden/source', '--import', 'tsx', script],
      { encoding: 'utf8', timeout: 60_000 },
    );
    const { grownMb } = JSON.parse(output.trim().split('\n').at(-1) as string) as {
      grownMb: number;
    };
    // the index itself stays (ids, names, weak refs): a few MB, not the 300 MB of arguments
    expect(grownMb).toBeLessThan(40);
  }, 90_000);
});
