/**
 * What happens when a rule fires: `block` stops the action (adapters refuse the tool call),
 * `warn` lets it run and reports it, `log` only records it.
 * @example `'warn'`
 */
export type PolicyAction = 'block' | 'warn' | 'log';

/** The kinds of events a rule can quantify over (`(x: ToolCall)`). `Message` includes tool outputs. */
export type PolicyEventType = 'Message' | 'ToolCall' | 'ToolOutput' | 'Tool' | 'Event';

/**
 * One quantified variable of a violation, bound to an event of the trace.
 * @example `{ type: 'ToolCall', index: 1, address: '1.tool_calls.0', value: { id: 'c1', ... } }`
 */
export interface PolicyBinding {
  /** The event type the event was bound as. */
  type: PolicyEventType;
  /** Index of the top-level trace entry (a tool call shares its message's index). */
  index: number;
  /** Position in the flattened event sequence (messages, then their tool calls, in order). */
  position: number;
  /** Address into the trace: `"3"`, `"3.tool_calls.0"`, `"4.tools.1"`. */
  address: string;
  /** The event as evaluated (tool-call arguments parsed to objects). */
  value: Record<string, unknown>;
}

/** Which rule of a policy fired. */
export interface PolicyRuleReference {
  /** 0-based index of the rule in the policy. */
  index: number;
  /** The rule's name (`# name: ...` annotation or builder `name`), if it has one. */
  name: string | undefined;
  /** The rule's raise message. */
  message: string;
}

/**
 * One violation: one satisfying assignment of a rule's quantified variables.
 * @example
 * ```ts
 * { message: 'untrusted output sent by email', key: 'rule#0:[2,3]', action: 'block',
 *   addresses: ['2', '3.tool_calls.0', '2.content:10-22'], ranges: ['2.content:10-22'], ... }
 * ```
 */
export interface PolicyViolation {
  /** The raise message. */
  message: string;
  /** Extra positional arguments of `raise PolicyViolation("msg", a, b)`, evaluated. */
  args: unknown[];
  /** Extra keyword arguments of `raise PolicyViolation("msg", key=value)`, evaluated. */
  namedArgs: Record<string, unknown>;
  /** The bound variables, by name. */
  bindings: Record<string, PolicyBinding>;
  /** Addresses of the bound events followed by the marked character ranges. */
  addresses: string[];
  /** Character ranges marked by detectors, `find` and `in`: `"3.content:7-8"`. */
  ranges: string[];
  /**
   * Stable key: the rule and each bound variable's top-level event index (a tool call shares its
   * message's index). A monitor reports each key once.
   */
  key: string;
  /** The rule that fired. */
  rule: PolicyRuleReference;
  /** The rule's action. */
  action: PolicyAction;
}

/** The result of {@link Policy.check}. */
export interface PolicyResult {
  /** Every violation, in rule order, then in order of the bound events' positions. */
  errors: PolicyViolation[];
  /**
   * True when the check stopped at the policy's `maxViolations` (more assignments satisfy its
   * rules than were returned).
   */
  truncated: boolean;
}

/** The answer of {@link Policy.checkToolCall}. */
export interface ToolCallVerdict {
  /**
   * False when a violation with action `block` involves the proposed call, and when the check
   * reached `maxViolations` (a blocking violation could be among those not enumerated).
   */
  allowed: boolean;
  /** The violations the proposed call would cause (any action). */
  violations: PolicyViolation[];
  /**
   * True when the check stopped at the policy's `maxViolations`. Optional so that hand-written
   * verdicts (custom policy objects given to adapters) stay valid; absent means false.
   */
  truncated?: boolean;
}

/** A finding of a PII detector: the entity type (Presidio names) and its character range. */
export interface PiiFinding {
  /** e.g. `EMAIL_ADDRESS`, `PHONE_NUMBER`, `CREDIT_CARD`, `IBAN_CODE`, `IP_ADDRESS`. */
  type: string;
  start: number;
  end: number;
}

/** A finding of a secret detector: the token kind and its character range. */
export interface SecretFinding {
  /** e.g. `GITHUB_TOKEN`, `AWS_ACCESS_KEY`, `AZURE_STORAGE_KEY`, `SLACK_TOKEN`. */
  type: string;
  start: number;
  end: number;
}

/**
 * Pluggable detectors used by `secrets(...)`, `pii(...)` and `prompt_injection(...)` in rules.
 * Each must be synchronous (rules run before every tool call).
 */
export interface PolicyDetectors {
  /** Replaces the built-in secret scanner. */
  secrets?: (text: string) => SecretFinding[];
  /** Replaces (or wraps) the built-in PII detector, e.g. with a model-based one. */
  pii?: (text: string) => PiiFinding[];
  /** A prompt-injection classifier returning a score in [0, 1]. */
  promptInjection?: (text: string) => number;
}

/**
 * A proposed tool call: OpenAI's shape (`{ id?, type?, function: { name, arguments } }`, arguments
 * as an object or a JSON string) or the shorthand `{ name, arguments }`.
 */
export type ProposedToolCall =
  | { id?: string; type?: string; function: { name: string; arguments?: unknown } }
  | { id?: string; name: string; arguments?: unknown };
