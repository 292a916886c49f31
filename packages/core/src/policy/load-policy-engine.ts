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
        ? (createRequire(import.meta.url)(TRACEWARDEN_POLICY_CHUNK) as PolicyEngine)
        : linkedEngine;
  }
  return engine;
}
