/**
 * Verdicts handed from the place that decides (a model call's policy review) to the place that
 * executes (a guarded tool), keyed by the model's tool call id: a framework whose loop runs the
 * tools itself keeps a reviewed call in the response, and the guarded tool asks
 * {@link refusalFor} before it runs. Bounded: the oldest entries go first past
 * {@link maxPendingRefusals}, so verdicts no tool ever claims cannot grow without limit.
 */

import type { ModelToolCall, ToolCallReview } from './types.js';

/** What a tool learns about the call it is asked to run. */
export interface ReviewedCall {
  /** The tool the model called. */
  toolName: string;
  /** The arguments that were reviewed, as canonical JSON text (see {@link canonicalJson}). */
  arguments: string | undefined;
  /** The refusal the tool must answer instead of running (a blocked call). */
  refusal: string | undefined;
  /**
   * Re-checks the call on the arguments the tool is about to run with, when they differ from the
   * reviewed ones: returns the refusal when the policy blocks them.
   */
  recheck?: ((toolName: string, args: unknown) => string | undefined) | undefined;
}

const pending = new Map<string, ReviewedCall>();
/**
 * Verdicts on calls without an id (`""`, as Gemini-backed agents send: decision 030), oldest
 * first. They cannot share one slot under `""`: two such calls of one answer would leave one
 * verdict, and a blocked call could run under its neighbour's. A tool takes the oldest verdict
 * on its name and arguments, else the oldest on its name (re-checked on its arguments).
 */
const pendingWithoutId: ReviewedCall[] = [];

/** Most verdicts kept waiting for their tool at once (oldest dropped first). */
export const maxPendingRefusals = 10_000;

/**
 * JSON text with object keys sorted: the same arguments give the same text however they were
 * built (a model's JSON text, a parsed and re-serialised object).
 * @param value - any JSON value (or a JSON text, parsed first)
 * @returns the canonical text, or `undefined` for a value that is not JSON
 * @example
 * ```ts
 * canonicalJson('{"b":1,"a":2}') === canonicalJson({ a: 2, b: 1 }); // true
 * ```
 */
export function canonicalJson(value: unknown): string | undefined {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  try {
    return JSON.stringify(parsed, (_key, inner: unknown) => {
      if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(inner).sort())
        sorted[key] = (inner as Record<string, unknown>)[key];
      return sorted;
    });
  } catch {
    return undefined;
  }
}

/** Two reviews of one proposed call (same tool, same arguments): nested reviewers. */
function sameCall(
  earlier: ReviewedCall | undefined,
  review: ReviewedCall,
): earlier is ReviewedCall {
  return (
    earlier !== undefined &&
    earlier.toolName === review.toolName &&
    earlier.arguments === review.arguments
  );
}

/**
 * One call reviewed twice (an enforcing middleware inside an enforcing telemetry integration,
 * each with its own policy): a refusal is never undone by the other reviewer's allow, and
 * changed arguments are re-checked by both.
 */
function strictest(earlier: ReviewedCall, review: ReviewedCall): ReviewedCall {
  const first = earlier.recheck;
  const second = review.recheck;
  return {
    toolName: review.toolName,
    arguments: review.arguments,
    refusal: review.refusal ?? earlier.refusal,
    recheck:
      first === undefined || second === undefined
        ? (second ?? first)
        : (toolName, args) => second(toolName, args) ?? first(toolName, args),
  };
}

/**
 * Hands the verdict on a reviewed call to the tool that will run it.
 * @param callId - the model's tool call id
 * @param review - the tool name, reviewed arguments, refusal (if blocked) and a re-check
 * @example
 * ```ts
 * registerReview('call_1', { toolName: 'send_email', arguments: canonicalJson('{}'), refusal: undefined });
 * ```
 */
export function registerReview(callId: string, review: ReviewedCall): void {
  if (callId === '') {
    pendingWithoutId.push(review);
    if (pendingWithoutId.length > maxPendingRefusals) pendingWithoutId.shift();
    return;
  }
  const earlier = pending.get(callId);
  pending.delete(callId);
  pending.set(callId, sameCall(earlier, review) ? strictest(earlier, review) : review);
  if (pending.size > maxPendingRefusals) {
    const oldest = pending.keys().next();
    if (oldest.done !== true) pending.delete(oldest.value);
  }
}

/**
 * What a tool must do with the call it is about to run: the refusal to answer instead, or
 * `undefined` to run. The verdict is taken (once). A call reviewed with other arguments than
 * the tool received (the framework repaired or transformed them) is checked again on the
 * arguments it would really run with; a verdict for another tool name is not this call's.
 * @param callId - the model's tool call id
 * @param toolName - the tool about to run
 * @param args - the arguments it is about to run with
 * @returns the refusal text, or `undefined` to run
 * @example
 * ```ts
 * const refusal = refusalFor(options.toolCallId, 'send_email', input);
 * if (refusal !== undefined) throw new PolicyViolationError({ violations: [], message: refusal });
 * ```
 */
export function refusalFor(callId: string, toolName: string, args: unknown): string | undefined {
  if (callId === '') return refusalWithoutId(toolName, args);
  const review = pending.get(callId);
  if (review === undefined) return undefined;
  if (review.toolName !== '' && review.toolName !== toolName) return undefined;
  pending.delete(callId);
  return verdictOn(review, toolName, args);
}

/** {@link refusalFor} of a call without an id: see `pendingWithoutId`. */
function refusalWithoutId(toolName: string, args: unknown): string | undefined {
  const forTool = (review: ReviewedCall) => review.toolName === '' || review.toolName === toolName;
  const text = canonicalJson(args);
  let at = pendingWithoutId.findIndex((review) => forTool(review) && review.arguments === text);
  if (at < 0) at = pendingWithoutId.findIndex(forTool);
  if (at < 0) return undefined;
  const [review] = pendingWithoutId.splice(at, 1);
  return verdictOn(review as ReviewedCall, toolName, args);
}

/** A taken verdict, for the arguments the tool is about to run with. */
function verdictOn(review: ReviewedCall, toolName: string, args: unknown): string | undefined {
  // the verdict holds for the arguments it was given on; other arguments are judged afresh
  // (reviewed arguments that were not JSON at all are never the ones that run)
  if (review.recheck === undefined) return review.refusal;
  if (review.arguments !== undefined && canonicalJson(args) === review.arguments)
    return review.refusal;
  return review.recheck(toolName, args);
}

/**
 * Hands the verdict on one reviewed call to the tool that will run it (a refusal to answer, and
 * with a policy the reviewed arguments and a re-check): what every adapter whose framework runs
 * the tools itself does with each review of a model call's outcome. Nothing to hand over (no
 * refusal, no policy) registers nothing.
 * @param review - one of `outcome.toolCalls`
 * @param recheck - `outcome.recheck`
 * @example
 * ```ts
 * const outcome = handle.finish(response);
 * for (const review of outcome.toolCalls) handOverVerdict(review, outcome.recheck);
 * ```
 */
export function handOverVerdict(
  review: ToolCallReview,
  recheck: ((call: ModelToolCall) => string | undefined) | undefined,
): void {
  const call = review.call;
  if (review.refusal === undefined && recheck === undefined) return;
  registerReview(call.id, {
    toolName: call.name,
    arguments: canonicalJson(call.arguments),
    refusal: review.refusal,
    recheck:
      recheck === undefined
        ? undefined
        : (toolName, args) =>
            recheck({
              id: call.id,
              name: toolName,
              arguments: (args ?? {}) as Record<string, unknown>,
            }),
  });
}
