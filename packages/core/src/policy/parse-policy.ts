import { loadPolicyEngine } from './load-policy-engine.js';
import { Policy } from './policy.js';
import { PolicyError } from './policy-error.js';
import type { PolicyAction, PolicyDetectors } from './policy-types.js';
import { resolveMaxViolations } from './runtime/resolve-max-violations.js';

/** Options of {@link parsePolicy}. */
export interface ParsePolicyOptions {
  /**
   * Per-rule actions by rule message, rule name (`# name: ...`) or 0-based rule index. They
   * override `# action:` annotations in the text.
   * @default {} (every rule blocks unless annotated)
   */
  actions?: Readonly<Record<string | number, PolicyAction>>;
  /**
   * Replacements for the built-in detectors (`secrets`, `pii`, `prompt_injection`).
   * @default {} (deterministic built-ins)
   */
  detectors?: PolicyDetectors;
  /**
   * Extra synchronous functions rules may call by name; they receive plain data (events as their
   * JSON objects). Only what you pass here is reachable from a policy.
   * @default {}
   */
  functions?: Readonly<Record<string, (...args: unknown[]) => unknown>>;
  /**
   * The most violations one check (`check`, `checkPending`, `checkToolCall`, a monitor's
   * `append`) returns. Rules over several variables can have millions of satisfying assignments
   * (two `ToolCall` variables over 5,000 calls: 25M); enumeration stops at the cap, so time and
   * memory stay bounded, and the result says `truncated: true`.
   * @default 10000
   */
  maxViolations?: number;
}

const actions = new Set(['block', 'warn', 'log']);

/**
 * Parses and compiles an Invariant-style guardrail policy. Several `raise "message" if:` rules with
 * indented, ANDed conditions over typed variables (`(call: ToolCall)`), flows (`a -> b`, `a ~> b`),
 * tool patterns (`call is tool:send_email({ to: r".*@x.com" })`), predicates, bindings,
 * quantifier blocks and detectors; typed members of collections
 * (`(line: str) in msg.content.splitlines()`, one violation per element), `input.NAME`
 * parameters, `raise PolicyViolation(key=value)`, `a if c else b`, `contains_only`, `text()`,
 * `image()`, `json.loads` after `import json`, `html_code`, `should_allow_rbac`. Indented text
 * (a template literal) is fine as is. Regexes run in linear time; backreferences are refused.
 *
 * Set a rule's action with a comment line directly above its `raise`: `# action: warn` (also
 * `# name: no-exfiltration`), or with `options.actions`. Rules block by default.
 *
 * @param text - the policy source
 * @param options - actions, detectors and host functions
 * @returns the compiled {@link Policy}
 * @throws PolicyError `POLICY_SYNTAX` or `POLICY_TYPE` with the line and column of the problem
 * (an import of a module without a local implementation names it; nesting deeper than
 * `MAX_POLICY_NESTING`, 200 levels, names that limit)
 * @example
 * ```ts
 * const policy = parsePolicy(`
 *   # action: warn
 *   raise "secret in a message" if:
 *     (msg: Message)
 *     any(secrets(msg))
 * `);
 * policy.check(trace).errors;
 * ```
 */
export function parsePolicy(text: string, options: ParsePolicyOptions = {}): Policy {
  if (typeof text !== 'string') {
    throw new PolicyError({
      code: 'POLICY_SYNTAX',
      message: `policy text must be a string, found ${typeof text}`,
      line: 1,
      column: 1,
    });
  }
  const { PolicyCompiler, parsePolicyText } = loadPolicyEngine();
  const ast = parsePolicyText(text);
  const configured = options.actions ?? {};
  for (const [key, action] of Object.entries(configured)) {
    if (!actions.has(action)) {
      throw new PolicyError({
        code: 'POLICY_TYPE',
        message: `options.actions[${JSON.stringify(key)}] is ${JSON.stringify(action)}; expected block, warn or log`,
      });
    }
  }
  const plans = new PolicyCompiler(ast.items, {
    actions: configured,
    functions: options.functions ?? {},
  }).compile();
  for (const key of Object.keys(configured)) {
    const matches = plans.some(
      (plan) => plan.message === key || plan.name === key || String(plan.index) === key,
    );
    if (!matches) {
      throw new PolicyError({
        code: 'POLICY_TYPE',
        message: `options.actions names rule ${JSON.stringify(key)}, which is not in the policy; expected a rule message, name or index`,
      });
    }
  }
  return new Policy(plans, {
    detectors: options.detectors ?? {},
    functions: { ...(options.functions ?? {}) },
    maxViolations: resolveMaxViolations(options.maxViolations),
  });
}
