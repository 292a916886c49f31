import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@tracewarden/source'] },
  ssr: { resolve: { conditions: ['@tracewarden/source'] } },
  test: {
    name: 'redis',
    include: ['src/**/*.test.ts'],
    // property tests run hundreds of cases: on a loaded 2-core CI machine 5 s is too tight
    testTimeout: 30_000,
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'] },
  },
});
