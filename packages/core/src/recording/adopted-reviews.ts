import type { PolicyViolation } from '../policy/policy-types.js';
import { canonicalJson } from './refusals.js';
import type { ModelToolCall, ReviewedCalls, ToolCallReview } from './types.js';

/*
 * Verdicts one recorder hands another that records the same model call: an enforcing AI SDK
 * middleware inside the telemetry integration records into a trace of its own, so the
 * integration's trace (the one the user reads) takes the middleware's verdicts onto its TOOL_CALL
 * blocks. They are recorded, not enforced again: the recorder that reached them enforced them.
 */

const rank: Record<ToolCallReview['decision'], number> = { allow: 0, log: 1, warn: 2, block: 3 };

/** One violation found by both reviewers (one policy given to both) is recorded once. */
function sameViolation(a: PolicyViolation, b: PolicyViolation): boolean {
  return (
    a === b ||
    (a.message === b.message &&
      a.action === b.action &&
      a.key === b.key &&
      a.rule.index === b.rule.index &&
      a.rule.name === b.rule.name &&
      a.addresses.join() === b.addresses.join())
  );
}

/** Both reviews of one call as one: the strictest decision, the violations of both. */
function merged(own: ToolCallReview, other: ToolCallReview): ToolCallReview {
  const violations = [...own.violations];
  for (const violation of other.violations)
    if (!violations.some((known) => sameViolation(known, violation))) violations.push(violation);
  const review: ToolCallReview = {
    call: own.call,
    allowed: own.allowed && other.allowed,
    decision: rank[other.decision] > rank[own.decision] ? other.decision : own.decision,
    violations,
  };
  const refusal = own.refusal ?? other.refusal;
  if (refusal !== undefined) review.refusal = refusal;
  if (own.refusedAtTool === true || other.refusedAtTool === true) review.refusedAtTool = true;
  return review;
}

/** What the recorder records of a response, with another recorder's verdicts taken in. */
export interface ShownCalls {
  /** The response's calls, then the adopted calls it no longer holds (removed or rejected). */
  calls: ModelToolCall[];
  /** One review per call of `calls`. */
  reviews: ToolCallReview[];
  /** The mode of the reviewer whose verdicts were adopted, when it flagged a call. */
  mode: 'throw' | 'refuse';
}

/**
 * The calls and reviews to record when another recorder of this call reviewed it too: each call
 * takes the adopted review of its id and tool name (merged with its own, if any); an adopted
 * call the response no longer holds (the other reviewer removed it in `refuse` mode, or rejected
 * the whole answer in `throw` mode) is recorded after the response's calls, so the trace shows
 * every proposed call with its verdict.
 * @param calls - the response's calls, as this recorder saw them
 * @param own - this recorder's reviews (`undefined` when the call failed before any)
 * @param adopted - the other recorder's verdicts
 * @param ownMode - this recorder's mode
 * @internal
 */
export function withAdoptedReviews(
  calls: readonly ModelToolCall[],
  own: readonly ToolCallReview[] | undefined,
  adopted: ReviewedCalls,
  ownMode: 'throw' | 'refuse',
): ShownCalls {
  const left = [...adopted.reviews];
  const reviews: ToolCallReview[] = [];
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as ModelToolCall;
    const mine = own?.[i] ?? { call, allowed: true, decision: 'allow', violations: [] };
    // the same id, tool and arguments; else the same id and tool (arguments the framework
    // re-serialised): ids may repeat within one answer (`call_0` twice, `""`)
    const args = canonicalJson(call.arguments);
    const sameCall = (review: ToolCallReview) =>
      review.call.id === call.id && review.call.name === call.name;
    let at = left.findIndex(
      (review) => sameCall(review) && canonicalJson(review.call.arguments) === args,
    );
    if (at < 0) at = left.findIndex(sameCall);
    if (at < 0) {
      reviews.push(mine);
      continue;
    }
    reviews.push(merged(mine, left[at] as ToolCallReview));
    left.splice(at, 1);
  }
  const shown = [...calls];
  for (const review of left) {
    shown.push(review.call);
    reviews.push(review);
  }
  const flagged = adopted.reviews.some((review) => review.violations.length > 0);
  return { calls: shown, reviews, mode: flagged ? adopted.mode : ownMode };
}
