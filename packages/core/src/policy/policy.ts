import { loadPolicyEngine } from './load-policy-engine.js';
import { PolicyMonitor } from './policy-monitor.js';
import type {
  PolicyAction,
  PolicyResult,
  PolicyViolation,
  ProposedToolCall,
  ToolCallVerdict,
} from './policy-types.js';
import { PolicyViolationError } from './policy-violation-error.js';
import type { PolicySession, SessionSettings } from './runtime/policy-session.js';
import type { RulePlan } from './runtime/rule-plan.js';

/** A rule of a compiled policy, as listed by {@link Policy.rules}. */
export interface PolicyRuleInfo {
  index: number;
  name: string | undefined;
  message: string;
  action: PolicyAction;
  /** Variable names and their event types, in declaration order. */
  variables: { name: string; type: string }[];
}

/**
 * A compiled policy: guardrail rules that quantify over a trace's events, evaluated in process.
 * Build one with {@link parsePolicy} (Invariant-style text) or {@link definePolicy} (typed rules).
 * All methods are synchronous and never mutate the traces they are given.
 *
 * @example
 * ```ts
 * const policy = parsePolicy(`
 *   raise "untrusted output reached send_email" if:
 *     (out: ToolOutput) -> (call: ToolCall)
 *     out is tool:fetch_url
 *     call is tool:send_email({ to: r".*@(?!corp\\.com$).*" })
 * `);
 * const { errors } = policy.check(trace);
 * const verdict = policy.checkToolCall(trace, { name: 'send_email', arguments: { to: 'x@evil.com' } });
 * ```
 */
export class Policy {
  /** The rules, in order. */
  readonly rules: readonly PolicyRuleInfo[];

  /** @internal */
  constructor(
    private readonly plans: readonly RulePlan[],
    private readonly settings: SessionSettings,
  ) {
    this.rules = plans.map((plan) => ({
      index: plan.index,
      name: plan.name,
      message: plan.message,
      action: plan.action,
      variables: plan.variables.map((v) => ({ name: v.name, type: v.type })),
    }));
  }

  /** @internal */
  createSession(input: unknown): PolicySession {
    return new (loadPolicyEngine().PolicySession)(this.plans, this.settings, input);
  }

  /**
   * Checks a whole trace: one violation per satisfying assignment of each rule's variables (no
   * de-duplication, as Invariant's one-shot check), up to the policy's `maxViolations`; past it
   * the result has `truncated: true`.
   * @param trace - chat events (OpenAI format; tool-call arguments may be JSON strings). A run
   *   in Anthropic's Messages API shape (`tool_use` / `tool_result` content parts) or an OpenAI
   *   Responses API item list is read as `fromAnthropicMessages` / `fromResponsesItems` rewrite
   *   it, and addresses name the rewritten events.
   * @param input - policy parameters, read as `input.x` in rules
   * @returns the violations, in rule order, then by the bound events' positions
   * @example
   * ```ts
   * policy.check([{ role: 'user', content: 'my key is ghp_...' }]).errors[0]?.ranges; // ['0.content:10-50']
   * ```
   */
  check(trace: readonly unknown[], input?: Record<string, unknown>): PolicyResult {
    const session = this.createSession(input);
    session.appendAll(trace);
    return session.evaluateAll();
  }

  /**
   * Checks only what `pending` adds to `past`: violations that bind at least one pending event
   * (and, for rules with quantifier blocks, violations whose key `past` did not have). Each key is
   * reported once.
   * @param past - events already checked
   * @param pending - new events appended after `past`
   * @param input - policy parameters
   * @returns the new violations
   * @example
   * ```ts
   * policy.checkPending(trace.slice(0, -1), trace.slice(-1));
   * ```
   */
  checkPending(
    past: readonly unknown[],
    pending: readonly unknown[],
    input?: Record<string, unknown>,
  ): PolicyResult {
    const session = this.createSession(input);
    session.appendAll(past);
    session.prime();
    const known = session.wholeTraceKeys();
    const newFrom = session.store.size;
    session.appendAll(pending);
    return session.evaluateNew(newFrom, known);
  }

  /**
   * Would executing this proposed tool call violate a rule? The call is appended to the last
   * trace entry when it is an assistant message, else as a new assistant message; only
   * violations that bind the call (or that it newly causes in quantifier blocks) count.
   * @param trace - the trace so far
   * @param call - the proposed call
   * @param input - policy parameters
   * @returns `allowed: false` when a `block` violation is found, and every violation
   * @example
   * ```ts
   * const { allowed } = policy.checkToolCall(trace, { name: 'send_email', arguments: { to: 'a@evil.com' } });
   * ```
   */
  checkToolCall(
    trace: readonly unknown[],
    call: ProposedToolCall | Record<string, unknown>,
    input?: Record<string, unknown>,
  ): ToolCallVerdict {
    const session = this.createSession(input);
    session.appendAll(trace);
    return loadPolicyEngine().proposeToolCall(session, call);
  }

  /**
   * Like {@link Policy.checkToolCall}, but throws when the call would be blocked.
   * @param trace - the trace so far
   * @param call - the proposed call
   * @param input - policy parameters
   * @returns the non-blocking violations (warn and log)
   * @throws PolicyViolationError (`POLICY_VIOLATION`) carrying every violation
   * @example
   * ```ts
   * policy.assertToolCall(trace, { name: 'delete_repo', arguments: {} });
   * ```
   */
  assertToolCall(
    trace: readonly unknown[],
    call: ProposedToolCall | Record<string, unknown>,
    input?: Record<string, unknown>,
  ): PolicyViolation[] {
    const verdict = this.checkToolCall(trace, call, input);
    if (!verdict.allowed) throw new PolicyViolationError({ violations: verdict.violations });
    return verdict.violations;
  }

  /**
   * A monitor for a growing trace: keeps the indexed events and per-rule state, so each append
   * costs only the new events, and reports each violation key once.
   * @param input - policy parameters
   * @returns a new {@link PolicyMonitor}
   * @example
   * ```ts
   * const monitor = policy.monitor();
   * monitor.append([userMessage]); monitor.append([assistantMessage]);
   * ```
   */
  monitor(input?: Record<string, unknown>): PolicyMonitor {
    return new PolicyMonitor(this.createSession(input));
  }
}
