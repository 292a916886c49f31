import type { Message, ToolCall, ToolOutput, Trace } from '../model/index.js';
import type { PolicyViolation } from '../policy/policy-types.js';
import type { Tracer } from '../tracing/types.js';
import { parseToolArguments } from './message-fingerprint.js';
import { normalizeContent } from './normalize-content.js';
import { recordToolResult } from './record-tool-result.js';
import type { RecorderCore } from './recorder-core.js';
import type {
  ModelToolCall,
  NeutralMessage,
  ProviderToolCall,
  ToolCallPolicy,
  ToolCallReview,
} from './types.js';

/*
 * The tool-call review: every proposed call is checked against the policy before anything runs,
 * and in `refuse` mode a blocked call's refusal replaces it in what the caller sees.
 */

/**
 * The default refusal text of a blocked call: what the model reads in `refuse` mode when no
 * `refusalMessage` is given (adapters that word a refusal themselves start from it).
 * @param review - the blocked call's review
 * @returns `Tool call <name> was blocked by policy: <first blocking message>. It was not executed.`
 * @example
 * ```ts
 * defaultRefusal({
 *   call: { id: 'c1', name: 'send_email', arguments: {} },
 *   allowed: false,
 *   violations: [],
 *   decision: 'block',
 * });
 * // 'Tool call send_email was blocked by policy: not allowed. It was not executed.'
 * ```
 */
export function defaultRefusal(review: ToolCallReview): string {
  return refusalWording(review.call.name, review.violations);
}

/**
 * {@link defaultRefusal}'s text from a tool name and violations, as a review holds them or as a
 * block's metadata records them (`violationSummary`): the first blocking violation's message.
 * @internal
 */
export function refusalWording(
  toolName: string,
  violations: readonly { message?: unknown; action?: unknown }[],
): string {
  const first = violations.find((violation) => violation.action === 'block') ?? violations[0];
  const message = typeof first?.message === 'string' ? first.message : 'not allowed';
  return `Tool call ${toolName} was blocked by policy: ${message}. It was not executed.`;
}

/** The chat-event view of request messages, for the policy. */
function toChatEvents(messages: readonly NeutralMessage[]): Trace {
  const events: Trace = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      const event: ToolOutput = { role: 'tool', content: normalizeContent(message.content) };
      if (message.tool_call_id !== undefined) event.tool_call_id = message.tool_call_id;
      events.push(event);
      continue;
    }
    const event: Message = { role: message.role, content: normalizeContent(message.content) };
    if (message.tool_calls && message.tool_calls.length > 0) {
      event.tool_calls = message.tool_calls.map((call) =>
        toPolicyCall(call.id, call.function.name, call.function.arguments),
      );
    }
    events.push(event);
  }
  return events;
}

/**
 * Adds the calls the provider ran in a response, and their results, to the events a review
 * reads: one assistant event with the calls, then a tool event per result.
 */
function addProviderCalls(events: Trace, calls: readonly ProviderToolCall[]): void {
  const ids = calls.map((call, i) =>
    typeof call.id === 'string' && call.id !== '' ? call.id : `provider_call_${i}`,
  );
  events.push({
    role: 'assistant',
    content: null,
    tool_calls: calls.map((call, i) =>
      toPolicyCall(ids[i] as string, call.name ?? 'provider_tool', call.arguments ?? {}),
    ),
  });
  for (let i = 0; i < calls.length; i++) {
    const output = (calls[i] as ProviderToolCall).output;
    if (output === undefined) continue;
    events.push({
      role: 'tool',
      tool_call_id: ids[i] as string,
      content: typeof output === 'string' ? output : (JSON.stringify(output) ?? ''),
    });
  }
}

function toPolicyCall(id: string, name: string, args: unknown): ToolCall {
  return { id, type: 'function', function: { name, arguments: parseToolArguments(args).value } };
}

/** A policy that can also check a whole trace (`Policy`, `recommendedPolicy()`). */
interface TraceCheckingPolicy extends ToolCallPolicy {
  check(trace: Trace): { errors: readonly PolicyViolation[] };
}

/** The top-level event index an address (`"3"`, `"3.tool_calls.0"`, `"3.content:7-8"`) names. */
function eventIndexOf(address: string): number {
  const end = address.indexOf('.');
  return Number(end < 0 ? address : address.slice(0, end));
}

/**
 * The violations of what the model read in a request: those bound to a message that arrived
 * since the model last answered (the tool outputs and user messages after the request's last
 * assistant message; every message on a first call). That is where a rule on a tool output
 * alone fires (a `warn` on an injected output, `recommendedPolicy()`'s `injected-content`): no
 * proposed call's review reports it, since it is already in the trace the call is checked
 * against. And the violations of the answer's text (`answer`): rules on an assistant message,
 * such as `recommendedPolicy()`'s `injected-link` (an answer showing a link to a domain only an
 * injected output gave). The rules see the turn from the model's last answer on (so an output
 * is linked to its call), not the earlier history. A policy that cannot check a whole trace (a
 * bare `ToolCallPolicy`) finds none.
 * @internal
 */
export function reviewReadMessages(
  core: RecorderCore,
  messages: readonly NeutralMessage[],
  answer?: string | null,
): { read: PolicyViolation[]; answer: PolicyViolation[] } {
  const none = { read: [], answer: [] };
  const policy = core.policy as TraceCheckingPolicy | undefined;
  if (policy === undefined || typeof policy.check !== 'function') return none;
  let lastAnswer = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'assistant') {
      lastAnswer = i;
      break;
    }
  }
  const read = messages.slice(lastAnswer + 1);
  if (!read.some((message) => message.role === 'tool' || message.role === 'user')) return none;
  // Checked from the model's last answer on (the calls the new outputs answer, then them), not
  // the whole conversation: each request costs its own turn, not the history's length again.
  const from = Math.max(lastAnswer, 0);
  const firstNew = lastAnswer + 1 - from;
  const events = toChatEvents(messages.slice(from));
  // the answer's text, as the message rules read (its calls have reviews of their own)
  const answerIndex = typeof answer === 'string' && answer !== '' ? events.length : -1;
  if (answerIndex >= 0) events.push({ role: 'assistant', content: answer as string });
  const found = { read: [] as PolicyViolation[], answer: [] as PolicyViolation[] };
  for (const violation of policy.check(events).errors) {
    const indexes = violation.addresses.map(eventIndexOf);
    if (answerIndex >= 0 && indexes.includes(answerIndex)) found.answer.push(violation);
    else if (indexes.some((index) => index >= firstNew)) found.read.push(violation);
  }
  return found;
}

/**
 * Reviews each proposed call of a response, in order (without a policy, every call is allowed).
 * Earlier calls of the same response are part of the trace the later ones are checked against.
 * @internal
 */
export function reviewToolCalls(
  core: RecorderCore,
  messages: readonly NeutralMessage[],
  text: string | null,
  calls: readonly ModelToolCall[],
  providerCalls: readonly ProviderToolCall[] = [],
): ToolCallReview[] {
  const reviews: ToolCallReview[] = [];
  if (calls.length === 0) return reviews;
  const policy = core.policy;
  if (policy === undefined) {
    for (const call of calls)
      reviews.push({ call, allowed: true, decision: 'allow', violations: [] });
    return reviews;
  }
  const events = toChatEvents(messages);
  // what the provider ran in this response (a web search) came before the calls it led to: its
  // results are data the model read, as a tool's output would be
  if (providerCalls.length > 0) addProviderCalls(events, providerCalls);
  const assistant: Message = { role: 'assistant', content: text, tool_calls: [] };
  events.push(assistant);
  const options = { onPolicyViolation: core.mode, refusalMessage: core.refusalMessage };
  for (const call of calls) {
    const proposed = toPolicyCall(call.id, call.name, call.arguments);
    const review = judge(policy, events, call, proposed, options);
    reviews.push(review);
    if (review.allowed) assistant.tool_calls?.push(proposed);
  }
  return reviews;
}

/**
 * Reviews one proposed tool call against a policy, on the trace's chat events so far: the
 * verdict, the decision recorded on the TOOL_CALL (`block`, `warn`, `log` or `allow`), the
 * violations, and in `refuse` mode the refusal text. What the recorder does for each call a
 * model proposes; an adapter calls it for a tool run no model proposed (a plain tool invocation).
 * @param policy - the policy (`parsePolicy`, `recommendedPolicy`)
 * @param events - the trace so far, as chat events (without the call itself)
 * @param call - the proposed call (arguments parsed or as JSON text)
 * @param options - the mode and the refusal text (default: the recorder's)
 * @returns the review
 * @example
 * ```ts
 * const review = reviewToolCall(policy, [{ role: 'user', content: 'hi' }], {
 *   id: 'call_1',
 *   name: 'send_email',
 *   arguments: { to: 'a@b.example' },
 * });
 * if (!review.allowed) console.log(review.decision, review.violations.length);
 * ```
 */
export function reviewToolCall(
  policy: ToolCallPolicy,
  events: Trace,
  call: ModelToolCall,
  options: ReviewOptions = {},
): ToolCallReview {
  return judge(policy, events, call, toPolicyCall(call.id, call.name, call.arguments), options);
}

interface ReviewOptions {
  onPolicyViolation?: 'throw' | 'refuse' | undefined;
  refusalMessage?: ((review: ToolCallReview) => string) | undefined;
}

/** {@link reviewToolCall} on the call as the policy sees it (built once by the caller). */
function judge(
  policy: ToolCallPolicy,
  events: Trace,
  call: ModelToolCall,
  proposed: ToolCall,
  options: ReviewOptions,
): ToolCallReview {
  const verdict = policy.checkToolCall(events, proposed);
  const violations = verdict.violations;
  let decision: ToolCallReview['decision'] = 'allow';
  if (!verdict.allowed) decision = 'block';
  else if (violations.some((violation) => violation.action === 'warn')) decision = 'warn';
  else if (violations.length > 0) decision = 'log';
  const review: ToolCallReview = { call, allowed: verdict.allowed, decision, violations };
  if (!verdict.allowed && options.onPolicyViolation === 'refuse')
    review.refusal = (options.refusalMessage ?? defaultRefusal)(review);
  return review;
}

/**
 * Re-checks a proposed call whose arguments the framework changed before running it (a repaired
 * call, a schema that trims or coerces): a block is recorded as the call's refusal and its text
 * returned, whatever the mode (the call must not run on arguments nobody checked).
 * @internal
 */
export function recheckToolCall(
  core: RecorderCore,
  tracer: Tracer,
  messages: readonly NeutralMessage[],
  text: string | null,
  call: ModelToolCall,
): string | undefined {
  const review = reviewToolCalls(core, messages, text, [call])[0];
  if (review === undefined || review.allowed) return undefined;
  const refusal = review.refusal ?? core.refusalMessage(review);
  core.safely(() =>
    recordToolResult(tracer, {
      callId: call.id,
      output: refusal,
      metadata: {
        status: 'failure',
        refused: true,
        policy: 'block',
        rechecked_arguments:
          typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
        violations: violationSummary(review.violations),
      },
    }),
  );
  return refusal;
}

/**
 * The violations as a block's metadata records them (`message`, `action`, `key`, `rule`,
 * `addresses`), under `metadata.violations` of a TOOL_CALL or a refused TOOL_RESULT.
 * @param violations - a review's violations
 * @returns one plain object per violation
 * @example
 * ```ts
 * const metadata = { policy: review.decision, violations: violationSummary(review.violations) };
 * ```
 */
export function violationSummary(
  violations: readonly PolicyViolation[],
): Record<string, unknown>[] {
  return violations.map((violation) => ({
    message: violation.message,
    action: violation.action,
    key: violation.key,
    rule: violation.rule.name ?? violation.rule.index,
    addresses: violation.addresses,
  }));
}

/** What the caller sees (and re-sends next turn) of a reviewed response. @internal */
export interface DeliveredResponse {
  text: string | null;
  calls: readonly ModelToolCall[];
  /** The refusals appended to the text, one a line; `undefined` when none was. */
  refusalText: string | undefined;
  /** Whether a blocked call was removed from the response. */
  refused: boolean;
}

/**
 * What the caller sees of a response: blocked calls with a refusal removed and their refusals
 * appended to the text, except calls the framework's tool executor refuses itself
 * (`keepRefusedCall`, marked `refusedAtTool`).
 * @internal
 */
export function deliveredResponse(
  text: string | null,
  calls: readonly ModelToolCall[],
  blocked: readonly ToolCallReview[],
  keepRefusedCall: ((call: ModelToolCall) => boolean) | undefined,
): DeliveredResponse {
  const refusals =
    blocked.length === 0
      ? blocked
      : blocked.filter((review) => {
          if (review.refusal === undefined) return false;
          // refused by the framework's tool executor instead: the call stays in the response
          if (keepRefusedCall?.(review.call) === true) {
            review.refusedAtTool = true;
            return false;
          }
          return true;
        });
  if (refusals.length === 0) return { text, calls, refusalText: undefined, refused: false };
  const refusalText = refusals.map((review) => review.refusal).join('\n');
  const refused = new Set(refusals.map((review) => review.call));
  return {
    text: text === null ? refusalText : `${text}\n\n${refusalText}`,
    calls: calls.filter((call) => !refused.has(call)),
    refusalText,
    refused: true,
  };
}
