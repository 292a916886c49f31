import { loadPolicyEngine } from './load-policy-engine.js';
import type {
  PolicyResult,
  PolicyViolation,
  ProposedToolCall,
  ToolCallVerdict,
} from './policy-types.js';
import type { PolicySession } from './runtime/policy-session.js';

/**
 * Keeps a policy's state over a growing trace: appended events are indexed and filtered once,
 * new violations are found from the new events only, and each violation key is reported once.
 * Create one with {@link Policy.monitor} or {@link createMonitor}.
 *
 * @example
 * ```ts
 * const monitor = policy.monitor();
 * for (const event of stream) {
 *   const { errors } = monitor.append([event]);
 *   if (errors.some((e) => e.action === 'block')) break;
 * }
 * ```
 */
export class PolicyMonitor {
  private readonly reported = new Set<string>();
  private readonly all: PolicyViolation[] = [];
  // entries given, as given: an Anthropic or Responses API run becomes more (or fewer) events
  private given = 0;

  /** @internal */
  constructor(private readonly session: PolicySession) {}

  /** Number of top-level trace entries given so far (as given, before any rewrite). */
  get length(): number {
    return this.given;
  }

  /** Every violation reported so far, in report order. */
  get violations(): readonly PolicyViolation[] {
    return this.all;
  }

  /**
   * Appends events and returns the violations they cause that were not reported before.
   * @param events - new top-level trace entries, in order
   * @returns the new violations
   * @example
   * ```ts
   * monitor.append([{ role: 'tool', tool_call_id: 'c1', content: '...' }]);
   * ```
   */
  append(events: readonly unknown[]): PolicyResult {
    const newFrom = this.session.store.size;
    this.session.appendAll(events);
    this.given += events.length;
    const result = this.session.evaluateNew(newFrom, this.reported);
    for (const error of result.errors) this.all.push(error);
    return result;
  }

  /**
   * Appends the part of `trace` beyond what the monitor has seen (for callers that hold the whole
   * trace); the first {@link PolicyMonitor.length} entries are assumed unchanged.
   * @param trace - the whole trace so far
   * @returns the new violations
   * @example
   * ```ts
   * monitor.sync(messages);
   * ```
   */
  sync(trace: readonly unknown[]): PolicyResult {
    return this.append(trace.slice(this.length));
  }

  /**
   * Would executing this call violate a rule, given the events seen so far? Does not append it.
   * @param call - the proposed call
   * @returns the verdict, as {@link Policy.checkToolCall}
   * @example
   * ```ts
   * if (!monitor.checkToolCall({ name: 'send_email', arguments }).allowed) throw new Error('blocked');
   * ```
   */
  checkToolCall(call: ProposedToolCall | Record<string, unknown>): ToolCallVerdict {
    return loadPolicyEngine().proposeToolCall(this.session, call);
  }
}
