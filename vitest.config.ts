import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // docs-tests: every README snippet and TSDoc example, type-checked or run (docs cannot rot)
    projects: ['packages/*/vitest.config.ts', 'docs-tests/vitest.config.ts'],
  },
});
