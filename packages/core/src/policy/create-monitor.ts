import type { Policy } from './policy.js';
import type { PolicyMonitor } from './policy-monitor.js';

/**
 * Creates a monitor that checks a growing trace incrementally (same as `policy.monitor(input)`).
 * @param policy - a compiled policy
 * @param input - policy parameters (`input.x` in rules)
 * @returns a {@link PolicyMonitor}
 * @example
 * ```ts
 * const monitor = createMonitor(policy);
 * monitor.append([event]).errors;
 * ```
 */
export function createMonitor(policy: Policy, input?: Record<string, unknown>): PolicyMonitor {
  return policy.monitor(input);
}
