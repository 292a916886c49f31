import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'testing/index': 'src/testing/index.ts',
    // the policy language, runtime and detectors, loaded on first use (decision 110)
    policy: 'src/policy/policy-engine.ts',
  },
  format: ['esm'],
  // the policy chunk is internal: no declarations of its own
  dts: { entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node22',
  treeshake: true,
  // The seam (src/policy/load-policy-engine.ts) requires the chunk on first use instead of
  // importing it: the define selects that branch, and its static import of the engine, which
  // the sources keep for tests, resolves to an empty module here (esbuild keeps a module that a
  // dead branch names, and the whole engine with it, in every chunk that imports the seam).
  // The path is relative to the file the seam lands in: a shared chunk or index.js, both at
  // dist's root.
  define: { TRACEWARDEN_POLICY_CHUNK: JSON.stringify('./policy.js') },
  esbuildPlugins: [
    {
      name: 'policy-chunk-seam',
      setup(build) {
        build.onResolve({ filter: /^\.\/policy-engine\.js$/ }, ({ importer }) =>
          importer.endsWith('load-policy-engine.ts')
            ? { path: 'policy-engine', namespace: 'policy-chunk-seam' }
            : undefined,
        );
        build.onLoad({ filter: /.*/, namespace: 'policy-chunk-seam' }, () => ({
          contents: 'export {};',
          loader: 'js',
        }));
      },
    },
  ],
});
