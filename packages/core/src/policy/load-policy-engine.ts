/**
 * The seam between core's main bundle and the policy engine's chunk (decision 110). The sources
 * import the engine statically, so tests and typecheck run on them unchanged; the build defines
 * `TRACEWARDEN_POLICY_CHUNK` (tsup.config.ts), which drops the static import from the bundle and
 * loads `dist/policy.js` with `require()` on first use instead: synchronous, so `parsePolicy`,
 * `Policy`'s methods and the detectors stay synchronous (`require()` of an ES module needs Node
 * 22.12), and sharing Node's module map, so the chunk gets the very classes the main bundle has
 * (`PolicyError`, `Policy`: `instanceof` and `isInstance` hold across the seam).
 */
import { createRequire } from 'node:module';
import { TracewardenError } from '../errors/index.js';
import * as linkedEngine from './policy-engine.js';

/** The policy language, runtime and detectors, as `policy-engine.ts` exports them. */
export type PolicyEngine = typeof linkedEngine;

/**
 * Set by the build to the chunk's path relative to the bundle file this module lands in (every
 * chunk and `index.js` are at the root of `dist/`); not declared when running from source.
 */
declare const TRACEWARDEN_POLICY_CHUNK: string | undefined;

let engine: PolicyEngine | undefined;

/**
 * The policy engine, loaded on the first call.
 * @returns the engine's functions and classes
 */
export function loadPolicyEngine(): PolicyEngine {
  if (engine === undefined) {
    engine =
      typeof TRACEWARDEN_POLICY_CHUNK === 'string'
        ? requireChunk(TRACEWARDEN_POLICY_CHUNK)
        : linkedEngine;
  }
  return engine;
}

/**
 * Requires the chunk; a chunk that cannot be found (an app bundled with core inside it, so the
 * bundle has no `policy.js` beside it) or a Node that cannot `require()` an ES module is a typed
 * error that says what to do, not Node's bare "Cannot find module".
 */
function requireChunk(path: string): PolicyEngine {
  try {
    return createRequire(import.meta.url)(path) as PolicyEngine;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') {
      throw new TracewardenError('POLICY_ENGINE_MISSING', {
        message: `the policy engine (${path}, beside @tracewarden/core's dist/index.js) is missing, so no policy can be checked; if you bundle your app, keep @tracewarden/core external (esbuild --external:@tracewarden/core, webpack externals) or ship dist/policy.js beside the bundled file`,
        cause: error,
      });
    }
    if (code === 'ERR_REQUIRE_ESM') {
      throw new TracewardenError('POLICY_ENGINE_MISSING', {
        message: `the policy engine (${path}) could not be loaded: this Node (${process.version}) cannot require() an ES module; @tracewarden/core needs Node >= 22.12`,
        cause: error,
      });
    }
    throw error;
  }
}
