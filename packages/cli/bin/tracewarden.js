#!/usr/bin/env node
// The `tracewarden` command: runs the built CLI (dist/bin.js). A committed file, so a fresh
// workspace install can link the command before anything is built.
import('../dist/bin.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/bin.js')) {
    process.stderr.write(
      'tracewarden: the CLI is not built here; run `pnpm build` first (or `pnpm tracewarden` at the root of a clone, which runs the sources)\n',
    );
    process.exit(2);
  }
  throw error;
});
