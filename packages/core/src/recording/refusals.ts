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

/** A verdict waiting for its tool, with the trace whose model call gave it. */
interface PendingReview {
  scope: object | undefined;
  review: ReviewedCall;
}

/**
 * Verdicts by call id. Several calls can wait under one id: providers number calls per answer
 * (`call_0` in every conversation), so two conversations of one process can each hold a verdict
 * on `call_0`, and a later call may reuse the id of one no tool claimed. See {@link refusalFor}
 * for how a tool, which does not know its trace, takes the right one.
 */
const pending = new Map<string, PendingReview[]>();
let pendingCount = 0;

/**
 * Verdicts on calls without an id (`""`, as Gemini-backed agents send: decision 030), oldest
 * first. They cannot share one slot under `""`: two such calls of one answer would leave one
 * verdict, and a blocked call could run under its neighbour's. A tool takes the oldest verdict
 * on its name and arguments, else the oldest on its name (re-checked on its arguments).
 */
const pendingWithoutId: ReviewedCall[] = [];

/**
 * Most verdicts kept waiting under one call id (oldest dropped first): conversations of one
 * process that number calls per answer all use `call_0`, and a tool's claim scans the id's list.
 */
export const maxVerdictsPerCallId = 64;

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
 * @param scope - the trace the reviewed call belongs to (its tracer): a trace keeps one verdict
 *   per id, several traces may each keep one on the same id
 * @example
 * ```ts
 * registerReview('call_1', { toolName: 'send_email', arguments: canonicalJson('{}'), refusal: undefined });
 * ```
 */
export function registerReview(callId: string, review: ReviewedCall, scope?: object): void {
  if (callId === '') {
    pendingWithoutId.push(review);
    if (pendingWithoutId.length > maxPendingRefusals) pendingWithoutId.shift();
    return;
  }
  const waiting = pending.get(callId) ?? [];
  // The same call reviewed again for the same trace (nested reviewers) is one verdict, the
  // strictest. Any other call under this id waits beside it, also in the same trace: another
  // conversation's `call_0` (conversations may share one tracer, as the AI SDK middleware's
  // fallback trace is shared), or one no tool claimed. Replacing it would let a blocked call run
  // once the other took the verdict.
  const at = waiting.findIndex((entry) => entry.scope === scope && sameCall(entry.review, review));
  const earlier = at < 0 ? undefined : waiting[at];
  if (earlier !== undefined) waiting.splice(at, 1);
  else pendingCount++;
  waiting.push({
    scope,
    review: earlier === undefined ? review : strictest(earlier.review, review),
  });
  // an id every conversation reuses (`call_0`) keeps its newest verdicts only: a claim scans them
  if (waiting.length > maxVerdictsPerCallId) {
    waiting.shift();
    pendingCount--;
  } // newest id last, so the oldest verdicts go first past the bound
  pending.delete(callId);
  pending.set(callId, waiting);
  if (pendingCount > maxPendingRefusals) {
    const oldest = pending.entries().next();
    if (oldest.done === true) return;
    const [oldestId, entries] = oldest.value;
    entries.shift();
    pendingCount--;
    if (entries.length === 0) pending.delete(oldestId);
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
 * @param scope - the trace the call belongs to, when the caller knows it: only that trace's
 *   verdicts are taken
 * @returns the refusal text, or `undefined` to run
 * @example
 * ```ts
 * const refusal = refusalFor(options.toolCallId, 'send_email', input);
 * if (refusal !== undefined) throw new PolicyViolationError({ violations: [], message: refusal });
 * ```
 */
export function refusalFor(
  callId: string,
  toolName: string,
  args: unknown,
  scope?: object,
): string | undefined {
  if (callId === '') return refusalWithoutId(toolName, args);
  const waiting = pending.get(callId);
  if (waiting === undefined) return undefined;
  let candidates = waiting.filter((entry) => waitsFor(entry, toolName, scope));
  if (candidates.length > 1) {
    const text = canonicalJson(args);
    const sameArguments = candidates.filter((entry) => entry.review.arguments === text);
    if (sameArguments.length > 0) candidates = sameArguments;
  }
  const first = candidates[0];
  if (first === undefined) return undefined;
  if (candidates.length === 1) {
    take(callId, waiting, first);
    return verdictOn(first.review, toolName, args);
  }
  // Several traces wait with this id, tool and arguments, and the tool cannot say whose call it
  // runs: the strictest verdict answers. A refusal is returned while an allowing verdict is taken,
  // so a blocked call never runs whichever trace claims first (an allowed one may be refused).
  // (Re-checks are not run here: each records its refusal in its own trace.)
  const refusing = candidates.find((entry) => entry.review.refusal !== undefined);
  if (refusing === undefined) {
    take(callId, waiting, first);
    return verdictOn(first.review, toolName, args);
  }
  const allowing = candidates.find((entry) => entry.review.refusal === undefined);
  take(callId, waiting, allowing ?? refusing);
  return refusing.review.refusal;
}

/** Removes a taken verdict. */
function take(callId: string, waiting: PendingReview[], entry: PendingReview): void {
  waiting.splice(waiting.indexOf(entry), 1);
  pendingCount--;
  if (waiting.length === 0) pending.delete(callId);
}

/**
 * Whether a model call of this process reviewed a call of this tool under this id and its
 * verdict still waits for the tool (see {@link refusalFor}, which takes it). Without `scope`,
 * another trace's verdict under the same id (`call_0` repeats) counts too: it then cannot vouch
 * that this very call was reviewed.
 * @param callId - the model's tool call id
 * @param toolName - the tool about to run
 * @param scope - the trace the call belongs to, when known: only its verdicts count
 * @returns whether a verdict waits for this call
 * @example
 * ```ts
 * const reviewed = hasVerdict(options.toolCallId, 'send_email', tracer);
 * ```
 */
export function hasVerdict(callId: string, toolName: string, scope?: object): boolean {
  if (callId === '') return pendingWithoutId.some((review) => isForTool(review, toolName));
  return pending.get(callId)?.some((entry) => waitsFor(entry, toolName, scope)) === true;
}

/** A verdict given on a call of `toolName` (or of any tool: `''`). */
function isForTool(review: ReviewedCall, toolName: string): boolean {
  return review.toolName === '' || review.toolName === toolName;
}

/** A waiting verdict on a call of `toolName`, of the trace `scope` when one is given. */
function waitsFor(entry: PendingReview, toolName: string, scope: object | undefined): boolean {
  return isForTool(entry.review, toolName) && (scope === undefined || entry.scope === scope);
}

/** {@link refusalFor} of a call without an id: see `pendingWithoutId`. */
function refusalWithoutId(toolName: string, args: unknown): string | undefined {
  const forTool = (review: ReviewedCall) => isForTool(review, toolName);
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
 * @param scope - the trace of the model call (`handle.tracer`), so a call reviewed twice for it
 *   (nested reviewers) is one verdict, while another trace's call with the same id keeps its own
 * @example
 * ```ts
 * const outcome = handle.finish(response);
 * for (const review of outcome.toolCalls) handOverVerdict(review, outcome.recheck, handle.tracer);
 * ```
 */
export function handOverVerdict(
  review: ToolCallReview,
  recheck: ((call: ModelToolCall) => string | undefined) | undefined,
  scope?: object,
): void {
  const call = review.call;
  if (review.refusal === undefined && recheck === undefined) return;
  registerReview(
    call.id,
    {
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
    },
    scope,
  );
}
