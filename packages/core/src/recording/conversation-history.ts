import type { ContentPart } from '../model/index.js';
import type { Tracer } from '../tracing/types.js';
import {
  type ChainKey,
  hashPair,
  messageStep,
  plainText,
  responseHashPair,
  rootChainKey,
} from './message-fingerprint.js';
import { normalizeContent } from './normalize-content.js';
import type { RecorderCore } from './recorder-core.js';
import { canonicalJson } from './refusals.js';
import { recordToolCall } from './response-blocks.js';
import {
  answeredCallId,
  hasResult,
  isAbsentCallId,
  keyedByFields,
  rememberSent,
  responseCallIds,
  type SentMessage,
  type TracerState,
} from './tracer-state.js';
import type { ModelToolCall, NeutralMessage, NeutralToolCall } from './types.js';

/*
 * The conversation history: a request's messages become blocks once. Every recorded
 * conversation prefix is kept per tracer as a chain of message fingerprints (decision 007), so a
 * conversation re-sent on every turn is recorded once, while the same text sent again later is a
 * new message.
 */

/**
 * Records the request's messages that no earlier request recorded.
 * @returns the chain key of the whole request (the prefix the response extends)
 * @internal
 */
export function recordRequest(
  core: RecorderCore,
  tracer: Tracer,
  state: TracerState,
  messages: readonly NeutralMessage[],
): ChainKey {
  let key = rootChainKey;
  let index = 0;
  // The leading messages the last request sent too, as the same objects with the same fields:
  // their keys are known, and among the prefixes (which only grow).
  const sent = state.sent;
  const known = Math.min(sent.length, messages.length);
  for (; index < known; index++) {
    const message = messages[index] as NeutralMessage;
    const entry = sent[index] as SentMessage;
    if (
      entry.message !== message ||
      entry.role !== message.role ||
      entry.content !== message.content ||
      entry.toolCallId !== message.tool_call_id ||
      !keyedByFields(message)
    )
      break;
    key = entry.key;
  }
  // from here on `sent` is rewritten, for as long as the messages stay keyed by their fields
  if (sent.length > index) sent.length = index;
  let remembering = true;
  let step: { fingerprint: string; key: ChainKey } | undefined;
  // calls answered by this request's own tool messages: a later turn of the same request that
  // proposes the same call id again is a new call, never the one re-sent
  let answeredHere: Set<string> | undefined;
  for (; index < messages.length; index++) {
    const message = messages[index] as NeutralMessage;
    step = messageStep(key, message);
    if (!state.prefixes.has(step.key.a, step.key.b)) break;
    key = step.key;
    if (remembering) {
      if (keyedByFields(message)) rememberSent(sent, message, key);
      else remembering = false;
    }
  }
  for (; index < messages.length; index++) {
    const message = messages[index] as NeutralMessage;
    // the first new message's step is already known from the loop above
    if (step === undefined) step = messageStep(key, message);
    key = step.key;
    state.prefixes.add(key.a, key.b);
    if (remembering) {
      if (keyedByFields(message)) rememberSent(sent, message, key);
      else remembering = false;
    }
    const answered = recordInputMessage(
      core,
      tracer,
      state,
      message,
      step.fingerprint,
      answeredHere,
    );
    if (answered !== undefined) (answeredHere ??= new Set()).add(answered);
    step = undefined;
  }
  return key;
}

/**
 * Whether a call of a re-sent assistant turn is one the trace holds: the latest call recorded
 * under its id, unless that call is answered and was another call (other tool or arguments) —
 * then the model used the id again for a new call (see `reusedCallId`).
 */
function isRecordedCall(
  tracer: Tracer,
  state: TracerState,
  call: NeutralToolCall,
  answeredHere: ReadonlySet<string> | undefined,
): boolean {
  if (isAbsentCallId(call.id)) return false;
  const recordedId = state.reused?.get(call.id) ?? call.id;
  const recorded = tracer.findToolCall(recordedId);
  if (recorded === undefined) return false;
  if (!hasResult(state, recordedId)) return true;
  // answered earlier in this very request: this turn came after the answer, so it is new
  if (answeredHere?.has(recordedId) === true) return false;
  if (recorded.payload.name !== call.function.name) return false;
  const given = canonicalJson(call.function.arguments);
  // arguments that are not JSON are kept as the model's text (`invalid_arguments`)
  return given === undefined
    ? recorded.payload.invalid_arguments === call.function.arguments
    : canonicalJson(recorded.payload.arguments) === given;
}

/**
 * Records one request message not recorded before (a tool output under its call).
 * @returns the call id a tool output was recorded under, else `undefined`
 */
function recordInputMessage(
  core: RecorderCore,
  tracer: Tracer,
  state: TracerState,
  message: NeutralMessage,
  fingerprint: string,
  answeredHere: ReadonlySet<string> | undefined,
): string | undefined {
  const role = message.role;
  if (role === 'tool' || role === 'function') {
    // an absent or empty id links by the order rule (decisions 002, 030)
    const callId = answeredCallId(state, message.tool_call_id);
    if (callId === undefined || hasResult(state, callId)) return undefined;
    const call = tracer.findToolCall(callId);
    // A result whose call is not in this trace cannot be attached (no orphans): skip it.
    if (call === undefined) return undefined;
    const text = plainText(message.content);
    const status = message.status;
    const block = core.safely(() =>
      tracer.logObserve({
        parent_block_id: call.id,
        payload: { call_id: callId, output: text ?? normalizeContent(message.content) },
        ...(typeof status === 'string' ? { metadata: { status } } : {}),
      }),
    );
    if (block === undefined) return undefined;
    state.results.add(callId);
    return callId;
  }
  if (role === 'assistant') {
    const [h1, h2] = hashPair(fingerprint);
    if (state.responses.has(h1, h2)) return undefined;
    // An assistant turn re-sent as its tool calls alone (the Responses API's usual loop appends
    // only the `function_call` items) is the recorded response, not a new message: when it has
    // no text and every call id is already in the trace, there is nothing new to record.
    const calls = message.tool_calls;
    if (
      calls !== undefined &&
      calls.length > 0 &&
      calls.every((call) => isRecordedCall(tracer, state, call, answeredHere))
    ) {
      const text =
        message.content === null || message.content === undefined ? '' : plainText(message.content);
      if (text === '') return undefined;
      // The Responses API re-sends items, not messages: a recorded response left with its text
      // alone (every call refused) followed by the next response's calls reads as one turn.
      if (text !== undefined) {
        const [t1, t2] = responseHashPair(text, []);
        if (state.responses.has(t1, t2)) return undefined;
      }
    }
    const block = core.safely(() =>
      tracer.logMessage({ role: 'assistant', content: normalizeContent(message.content) }),
    );
    if (block === undefined) return undefined;
    const proposed = (message.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    }));
    const callIds = responseCallIds(tracer, state, proposed);
    for (let i = 0; i < proposed.length; i++)
      recordToolCall(
        core,
        tracer,
        state,
        block.id,
        proposed[i] as ModelToolCall,
        callIds[i] as string,
      );
    return undefined;
  }
  const input: {
    role: 'system' | 'user';
    content: string | ContentPart[] | null;
    [key: string]: unknown;
  } = {
    role: role === 'system' || role === 'developer' ? 'system' : 'user',
    content: normalizeContent(message.content),
  };
  if (role !== 'system' && role !== 'user') input.original_role = role;
  if (typeof message.name === 'string') input.name = message.name;
  core.safely(() => tracer.logMessage(input));
  return undefined;
}
