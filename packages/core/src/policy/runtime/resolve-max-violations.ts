import { PolicyError } from '../policy-error.js';

/** @internal The default cap on the violations one check returns. */
export const DEFAULT_MAX_VIOLATIONS = 10_000;

/**
 * @internal Validates `maxViolations` (a positive integer, or Infinity to lift the cap knowingly).
 */
export function resolveMaxViolations(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_VIOLATIONS;
  if (
    typeof value !== 'number' ||
    Number.isNaN(value) ||
    value < 1 ||
    (Number.isFinite(value) && !Number.isInteger(value))
  ) {
    throw new PolicyError({
      code: 'POLICY_TYPE',
      message: `options.maxViolations must be a positive integer (or Infinity), found ${typeof value === 'number' ? value : typeof value}`,
    });
  }
  return value;
}
