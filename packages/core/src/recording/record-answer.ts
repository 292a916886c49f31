import type { Tracer } from '../tracing/types.js';
import { withAdoptedReviews } from './adopted-reviews.js';
import { type ChainKey, mixChainKey, PairMap, responseHashPair } from './message-fingerprint.js';
import type { RecorderCore } from './recorder-core.js';
import { recordResponseBlocks } from './response-blocks.js';
import { scrubRaw } from './scrub-raw.js';
import type { AggregatedOutput } from './streamed-output.js';
import { deliveredResponse } from './tool-call-review.js';
import { responseCallIds, type TracerState } from './tracer-state.js';
import type {
  ModelCallOutcome,
  ModelCallResponse,
  ModelCallStartInput,
  ModelCallStatus,
  ToolCallReview,
} from './types.js';

/**
 * Records a model call's answer once the call has ended (its guards settled, its metadata built):
 * the assistant MESSAGE with its THINK and TOOL_CALL blocks (another recorder's verdicts taken
 * in, `adoptedReviews`), and what the conversation remembers of it for the next request: the
 * answer the caller sees (refused calls removed) and the ids its calls were recorded under.
 * Positional parameters: it runs once per model call, and an options object would be one more
 * allocation on that path.
 * @param prefixKey - the conversation's chain key up to this request (`recordRequest`)
 * @param metadata - the answer's metadata; `policy` is added here when a call was flagged
 * @returns what the recorder tells the adapter (status, reviews, refusal, MESSAGE id)
 * @internal
 */
export function recordAnswer(
  core: RecorderCore,
  tracer: Tracer,
  state: TracerState,
  input: ModelCallStartInput,
  prefixKey: ChainKey,
  status: ModelCallStatus,
  response: ModelCallResponse | undefined,
  output: AggregatedOutput,
  reviews: ToolCallReview[] | undefined,
  metadata: Record<string, unknown>,
): ModelCallOutcome {
  // another recorder's verdicts on this very call, recorded with the calls (see `adoptedReviews`)
  const adopted =
    input.adoptedReviews === undefined ? undefined : core.safely(input.adoptedReviews);
  const shown =
    adopted === undefined
      ? undefined
      : withAdoptedReviews(output.calls, reviews, adopted, core.mode);
  const shownCalls = shown?.calls ?? output.calls;
  const shownReviews = shown?.reviews ?? reviews;
  // the ids the TOOL_CALLs are recorded under (a call without one gets one here)
  // (a call id of the trace this request does not wait on is a new call: `reusedCallId`)
  const callIds = responseCallIds(tracer, state, shownCalls, input.messages);
  // this recorder's own verdicts decide what the caller sees; adopted ones were enforced already
  const blocked =
    reviews === undefined || reviews.length === 0
      ? []
      : reviews.filter((review) => !review.allowed);
  if (shownReviews !== undefined && shownReviews.length > 0) {
    const flagged = shownReviews.filter((review) => review.violations.length > 0);
    if (flagged.length > 0) {
      const idOf = (review: ToolCallReview) => callIds[shownReviews.indexOf(review)];
      metadata.policy = {
        mode: shown?.mode ?? core.mode,
        blocked: shownReviews.filter((review) => !review.allowed).map(idOf),
        flagged: flagged.map(idOf),
      };
    }
  }
  const raw = scrubRaw(
    response?.raw === undefined
      ? { request: input.raw }
      : { request: input.raw, response: response.raw },
  );
  const blockId = recordResponseBlocks(core, tracer, state, {
    text: output.text,
    reasoning: output.reasoning,
    calls: shownCalls,
    callIds,
    partialCalls: output.partialCalls,
    metadata,
    raw,
    reviews: shownReviews,
    providerCalls: output.providerCalls,
  });

  // What the caller sees (and re-sends next turn): refused calls removed, refusal appended.
  const delivered = deliveredResponse(output.text, output.calls, blocked, input.keepRefusedCall);
  const [h1, h2] = responseHashPair(delivered.text, delivered.calls);
  state.responses.add(h1, h2);
  const next = mixChainKey(prefixKey, h1, h2);
  state.prefixes.add(next.a, next.b);
  // the answer ends the request a trimmed history is aligned against (`alignTrimmedHistory`)
  const last = state.lastRequest;
  const lastKey = last?.keys[last.keys.length - 1];
  if (last !== undefined && lastKey?.a === prefixKey.a && lastKey.b === prefixKey.b)
    last.keys.push(next);
  // the next request's tool outputs answer these calls (`recordRequest`)
  const deliveredCalls = delivered.calls;
  if (deliveredCalls.length > 0) {
    const recordedIds =
      deliveredCalls === output.calls && callIds.length === deliveredCalls.length
        ? callIds
        : deliveredCalls.map((call) => callIds[output.calls.indexOf(call)] as string);
    state.turnCalls.set(next.a, next.b, recordedIds);
    // the answer as a later request may re-send it edited (`editedAnswer`)
    (state.answers ??= new PairMap()).set(prefixKey.a, prefixKey.b, {
      calls: deliveredCalls,
      callIds: recordedIds,
    });
  }

  const outcome: ModelCallOutcome = {
    status,
    toolCalls: reviews ?? [],
    refused: delivered.refused,
  };
  if (delivered.refusalText !== undefined) outcome.refusalText = delivered.refusalText;
  if (blockId !== undefined) outcome.messageBlockId = blockId;
  return outcome;
}
