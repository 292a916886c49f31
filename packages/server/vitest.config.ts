import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@tracewarden/source'] },
  ssr: { resolve: { conditions: ['@tracewarden/source'] } },
  test: {
    name: 'server',
    include: ['src/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'] },
  },
});
