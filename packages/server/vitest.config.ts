import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@tracewarden/source'] },
  ssr: { resolve: { conditions: ['@tracewarden/source'] } },
  test: {
    name: 'server',
    include: ['src/**/*.test.ts'],
    // every suite runs on Postgres too, over real HTTP, often beside other test files on a
    // loaded machine: a request takes tens of milliseconds there, so the 5 s default is short
    testTimeout: 60_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'] },
  },
});
