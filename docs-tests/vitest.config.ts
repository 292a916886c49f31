import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@tracewarden/source'] },
  ssr: { resolve: { conditions: ['@tracewarden/source'] } },
  test: {
    name: 'docs',
    include: ['*.test.ts'],
    // one compiler pass over every snippet, then each runnable one in its own Node process
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
