import { TraceError } from '../errors/index.js';
import { ownsDirectPath } from '../tracing/record-guarded-call.js';
import { type ModelResponseTracer, recordModelResponse } from '../tracing/record-model-response.js';
import type { Tracer } from '../tracing/types.js';
import { parseToolArguments } from './message-fingerprint.js';
import type { RecorderCore } from './recorder-core.js';
import { violationSummary } from './tool-call-review.js';
import {
  freshCallId,
  generatedCallId,
  isAbsentCallId,
  rememberCall,
  type TracerState,
} from './tracer-state.js';
import type { ModelToolCall, ProviderToolCall, ToolCallReview } from './types.js';

/*
 * The response's blocks: the assistant MESSAGE, its THINK, a TOOL_CALL per proposed call and,
 * in `refuse` mode, the refusal as the blocked call's TOOL_RESULT.
 */

/**
 * Records a TOOL_CALL under `parent` (once per call id: a call already in the trace is not
 * recorded again).
 * @returns the TOOL_CALL block's id, or `undefined` when it could not be recorded
 * @internal
 */
export function recordToolCall(
  core: RecorderCore,
  tracer: Tracer,
  state: TracerState,
  parent: string,
  call: ModelToolCall,
  callId: string,
  metadata?: Record<string, unknown>,
  /** The call waits for an output from the next request (not a call the provider ran). */
  awaitsOutput = true,
): string | undefined {
  const existing = tracer.findToolCall(callId);
  if (existing !== undefined) return existing.id;
  const parsed = parseToolArguments(call.arguments);
  const payload: { call_id: string; name: string; arguments: unknown; [key: string]: unknown } = {
    call_id: callId,
    name: call.name,
    arguments: parsed.value,
  };
  // a call id the model used again, recorded under a new one: the model's id is kept as
  // eventsToBlocks keeps it (blocksToEvents gives it back)
  if (callId !== call.id && !isAbsentCallId(call.id))
    metadata = { ...metadata, chat_event: { id: call.id } };
  if (!parsed.valid)
    payload.invalid_arguments =
      typeof call.arguments === 'string' ? call.arguments : String(call.arguments);
  const block = core.safely(() =>
    tracer.logAct({
      parent_block_id: parent,
      payload,
      ...(metadata === undefined ? {} : { metadata }),
    }),
  );
  if (block !== undefined && awaitsOutput) rememberCall(state, callId, parent);
  return block?.id;
}

/** A response as its blocks record it. @internal */
export interface ResponseRecord {
  text: string | null;
  reasoning: string;
  calls: readonly ModelToolCall[];
  /** The id each call is recorded under (`responseCallIds`), by index. */
  callIds: readonly string[];
  /** Indexes (in `calls`) of calls whose streamed arguments are not complete JSON. */
  partialCalls: ReadonlySet<number> | undefined;
  metadata: Record<string, unknown>;
  raw: unknown;
  /** One review per call, in order (finished calls only). */
  reviews: readonly ToolCallReview[] | undefined;
  /** Tool calls the provider ran itself, with their results. */
  providerCalls: readonly ProviderToolCall[];
}

/**
 * The call id a provider-run call is recorded under: its own, unless the trace or this
 * response already has it (a client call of the same response, a call of an earlier answer:
 * then `<id>_2`, ...), or a generated one when it has none.
 */
function providerCallId(
  tracer: Tracer,
  state: TracerState,
  id: string | undefined,
  taken: Set<string>,
): string {
  if (typeof id !== 'string' || id === '') return generatedCallId(tracer, state);
  return taken.has(id) || tracer.findToolCall(id) !== undefined
    ? freshCallId(tracer, id, 1, taken)
    : id;
}

/**
 * Records the tool calls the provider ran itself under the answer `parent`: each a TOOL_CALL
 * (under an id of its own: see {@link providerCallId}) and, when the response carried it, its
 * TOOL_RESULT, both with `provider_executed: true`. They ran already: a TOOL_CALL never waits
 * for an output from the next request, with a result or without.
 */
function recordProviderCalls(
  core: RecorderCore,
  tracer: Tracer,
  state: TracerState,
  parent: string,
  calls: readonly ProviderToolCall[],
  clientCallIds: readonly string[],
): void {
  const taken = new Set(clientCallIds);
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as ProviderToolCall;
    const callId = providerCallId(tracer, state, call.id, taken);
    taken.add(callId);
    const name = typeof call.name === 'string' && call.name !== '' ? call.name : 'provider_tool';
    const callBlockId = recordToolCall(
      core,
      tracer,
      state,
      parent,
      { id: typeof call.id === 'string' ? call.id : '', name, arguments: call.arguments ?? {} },
      callId,
      { provider_executed: true },
      false,
    );
    if (callBlockId === undefined || call.output === undefined) continue;
    const recorded = core.safely(() =>
      tracer.logObserve({
        parent_block_id: callBlockId,
        payload: { call_id: callId, output: call.output },
        metadata: {
          status: call.isError === true ? 'failure' : 'success',
          provider_executed: true,
        },
      }),
    );
    if (recorded !== undefined) state.results.add(callId);
  }
}

/** Records the assistant MESSAGE of a response, by the tracer's direct path when it has one. */
function recordAnswer(
  tracer: Tracer,
  text: string | null,
  metadata: Record<string, unknown>,
  raw: unknown,
): string {
  // createTracer's tracers take the response directly (deferred when nothing can see it)
  // (not past a logMessage of a wrapper's own: it must see every response)
  return ownsDirectPath(
    (tracer as Partial<ModelResponseTracer>)[recordModelResponse],
    tracer.logMessage,
  )
    ? (tracer as ModelResponseTracer)[recordModelResponse](text, metadata, raw)
    : tracer.logMessage({ role: 'assistant', content: text, metadata, raw }).id;
}

/**
 * What `metadata.content_omitted` says of an answer whose text broke the message byte limit:
 * the limit's error details, or `undefined` for any other error.
 */
function tooLargeText(
  error: unknown,
  text: string | null,
): { reason: 'PAYLOAD_TOO_LARGE'; limit_bytes: unknown; actual_bytes: unknown } | undefined {
  if (text === null || !TraceError.isInstance(error) || error.code !== 'PAYLOAD_TOO_LARGE')
    return undefined;
  const details = (error.details ?? {}) as Record<string, unknown>;
  if (details.field !== undefined && details.field !== 'content') return undefined;
  return {
    reason: 'PAYLOAD_TOO_LARGE',
    limit_bytes: details.limit_bytes,
    actual_bytes: details.actual_bytes,
  };
}

/**
 * Records a response: the assistant MESSAGE (through a `createTracer` tracer's direct path, so a
 * tracer without sinks may build it later), THINK, the TOOL_CALLs and, for calls refused in
 * `refuse` mode, their refusal as TOOL_RESULT.
 * @returns the MESSAGE block's id, or `undefined` when it could not be recorded
 * @internal
 */
export function recordResponseBlocks(
  core: RecorderCore,
  tracer: Tracer,
  state: TracerState,
  response: ResponseRecord,
): string | undefined {
  let blockId: string | undefined;
  try {
    blockId = recordAnswer(tracer, response.text, response.metadata, response.raw);
  } catch (recordingError) {
    core.onRecordingError(recordingError);
    // A text over the message limit (seed 002: no truncation) would take the answer's usage,
    // cost and tool calls with it: the MESSAGE is recorded without its text, saying so.
    const details = tooLargeText(recordingError, response.text);
    if (details !== undefined)
      blockId = core.safely(() =>
        recordAnswer(
          tracer,
          null,
          { ...response.metadata, content_omitted: details },
          // not the provider's raw response: it holds the same text
          null,
        ),
      );
  }
  if (blockId === undefined) return undefined;
  const parentId = blockId;
  if (response.reasoning !== '')
    core.safely(() =>
      tracer.logThink({ parent_block_id: parentId, payload: { text: response.reasoning } }),
    );
  const { calls, callIds, reviews } = response;
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as ModelToolCall;
    const callId = callIds[i] as string;
    const review = reviews?.[i];
    const callMetadata: Record<string, unknown> = {};
    if (response.partialCalls?.has(i)) callMetadata.partial = true;
    if (review !== undefined && review.violations.length > 0) {
      callMetadata.policy = review.decision;
      callMetadata.violations = violationSummary(review.violations);
    }
    const callBlockId = recordToolCall(core, tracer, state, parentId, call, callId, callMetadata);
    if (review?.refusal !== undefined && callBlockId !== undefined) {
      const refusal = review.refusal;
      const recorded = core.safely(() =>
        tracer.logObserve({
          parent_block_id: callBlockId,
          payload: { call_id: callId, output: refusal },
          // A TOOL_RESULT status is a seed-004 ToolCallStatus: the call did not run
          // (`failure`); `refused` and the policy decision say why (decision 007).
          metadata: {
            status: 'failure',
            refused: true,
            policy: 'block',
            violations: violationSummary(review.violations),
          },
        }),
      );
      if (recorded !== undefined) state.results.add(callId);
    }
  }
  if (response.providerCalls.length > 0)
    recordProviderCalls(core, tracer, state, parentId, response.providerCalls, callIds);
  return blockId;
}
