import { TracewardenError } from '../errors/tracewarden-error.js';
import type { PolicyViolation } from './policy-types.js';

/** Options of {@link PolicyViolationError}. */
export interface PolicyViolationErrorOptions {
  /** The violations that blocked the action (at least one). */
  violations: readonly PolicyViolation[];
  /** Overrides the default message (the first violation's message and the count). */
  message?: string;
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.PolicyViolationError');

/** `rule "no-exfiltration" (#0)`, or `rule #0` for a rule without a name. */
function ruleLabel(violation: PolicyViolation | undefined): string {
  const rule = violation?.rule;
  if (rule === undefined) return 'an unknown rule';
  return rule.name === undefined ? `rule #${rule.index}` : `rule "${rule.name}" (#${rule.index})`;
}

/**
 * A policy blocked an action: thrown by adapters (and {@link Policy.assertToolCall}) when a
 * violation with action `block` was found. Carries every violation found.
 *
 * @example
 * ```ts
 * const verdict = policy.checkToolCall(trace, call);
 * if (!verdict.allowed) throw new PolicyViolationError({ violations: verdict.violations });
 * ```
 */
export class PolicyViolationError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'POLICY_VIOLATION';
  /** Every violation found, blocking or not. */
  readonly violations: readonly PolicyViolation[];

  constructor(options: PolicyViolationErrorOptions) {
    const first = options.violations[0];
    const more =
      options.violations.length > 1 ? ` (and ${options.violations.length - 1} more)` : '';
    super('POLICY_VIOLATION', {
      message:
        options.message ??
        `policy violation: ${first?.message ?? 'unknown'}${more}; the action was blocked by ${ruleLabel(first)}`,
      cause: options.cause,
    });
    this.violations = options.violations;
  }

  /**
   * Whether `error` is a `PolicyViolationError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (PolicyViolationError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is PolicyViolationError {
    return TracewardenError.hasMarker(error, marker);
  }
}
