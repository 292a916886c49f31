import { TraceError } from '../errors/index.js';
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
  historyUnderEarlierSystem,
  isSystemMessage,
  linkHistory,
  mayFollowOtherSystem,
  moveSystemRoot,
  rememberSystemRoot,
} from './system-prompt-change.js';
import {
  answeredCallId,
  hasResult,
  isAbsentCallId,
  isToolOutput,
  keyedByFields,
  rememberSent,
  responseCallIds,
  type SentMessage,
  type TracerState,
} from './tracer-state.js';
import { alignTrimmedHistory, sameSystemPrompt } from './trimmed-history.js';
import type { ModelToolCall, NeutralMessage, NeutralToolCall } from './types.js';

/*
 * The conversation history: a request's messages become blocks once. Every recorded
 * conversation prefix is kept per tracer as a chain of message fingerprints (decision 007), so a
 * conversation re-sent on every turn is recorded once, while the same text sent again later is a
 * new message.
 */

/**
 * The assistant turns of one request with the ids their calls are recorded under, for linking
 * the request's tool outputs to the turn they follow: the request says which call an output
 * answers, where the trace alone may not (a call id another conversation sharing the trace, or
 * an agent run inside a tool, also uses; `""` ids, whose order rule over the whole trace would
 * take another conversation's waiting call). Decision 002's rule, within the request.
 */
class RequestCalls {
  private readonly turns: {
    modelIds: unknown[];
    /** The recorded ids by index, `undefined` when not known (a turn recorded in another shape). */
    ids: readonly string[] | undefined;
    answered: boolean[];
  }[] = [];

  addTurn(calls: readonly NeutralToolCall[], ids: readonly string[] | undefined): void {
    this.turns.push({
      modelIds: calls.map((call) => call.id),
      ids: ids !== undefined && ids.length === calls.length ? ids : undefined,
      answered: calls.map(() => false),
    });
  }

  /**
   * Marks the call a tool output with `callId` answers: an explicit id, the first of the calls
   * with that id not answered yet in this request, of the latest turn proposing it (else the
   * last of them); an absent one, the first unanswered call of the latest turn that has one,
   * else the most recent call.
   * @returns the id that call is recorded under, or `undefined` when the request does not tell
   *   (no turn of it proposes the call, or the turn's recorded ids are not known)
   */
  answer(callId: unknown): string | undefined {
    const turns = this.turns;
    const absent = isAbsentCallId(callId);
    for (let t = turns.length - 1; t >= 0; t--) {
      const turn = turns[t] as (typeof turns)[number];
      let index = -1;
      if (absent) index = turn.answered.indexOf(false);
      else {
        let last = -1;
        for (let i = 0; i < turn.modelIds.length; i++) {
          if (turn.modelIds[i] !== callId) continue;
          if (!turn.answered[i]) {
            index = i;
            break;
          }
          last = i;
        }
        if (index < 0) index = last;
      }
      if (index < 0) continue;
      turn.answered[index] = true;
      return turn.ids?.[index];
    }
    // every call of the request answered: the most recent one (decision 002)
    const latest = turns[turns.length - 1];
    return absent && latest !== undefined ? latest.ids?.[latest.ids.length - 1] : undefined;
  }
}

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
  // the key after each message, for the next request to align a trimmed history against
  const keys: ChainKey[] = [];
  // The leading messages the last request sent too, as the same objects with the same fields:
  // their keys are known, and among the prefixes (which only grow). None proposes a call, so no
  // output among them answers one of this request.
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
    keys.push(key);
  }
  // from here on `sent` is rewritten, for as long as the messages stay keyed by their fields
  if (sent.length > index) sent.length = index;
  let remembering = true;
  let step: { fingerprint: string; key: ChainKey } | undefined;
  // the request's turns with calls, made at the first
  let requestCalls: RequestCalls | undefined;
  // calls answered by this request's own tool messages: a later turn of the same request that
  // proposes the same call id again is a new call, never the one re-sent
  let answeredHere: Set<string> | undefined;
  let linked = false;
  let aligned = false;
  for (;;) {
    for (; index < messages.length; index++) {
      const message = messages[index] as NeutralMessage;
      step = messageStep(key, message);
      if (!state.prefixes.has(step.key.a, step.key.b)) break;
      key = step.key;
      keys.push(key);
      if (remembering) {
        if (keyedByFields(message)) rememberSent(sent, message, key);
        else remembering = false;
      }
      const calls = message.tool_calls;
      if (calls !== undefined && calls.length > 0)
        (requestCalls ??= new RequestCalls()).addTurn(calls, state.turnCalls.get(key.a, key.b));
      else if (requestCalls !== undefined && isToolOutput(message))
        requestCalls.answer(message.tool_call_id);
    }
    if (linked || index === messages.length) break;
    if (mayFollowOtherSystem(messages, index)) {
      // the system prompt changed: the history may have been recorded after another one
      const earlier = historyUnderEarlierSystem(state, messages, index);
      if (earlier !== undefined) {
        // the history, recorded already, is now also known after this system prompt: the walk
        // above goes on through it
        linkHistory(state, messages, index, key, earlier);
        linked = true;
        const system = messages[0] as NeutralMessage;
        // the conversation goes on under this system prompt
        moveSystemRoot(state, earlier.root, messageStep(rootChainKey, system).key);
        // a change from the system prompt the history followed
        recordPlainMessage(core, tracer, system);
        continue;
      }
    }
    // a history trimmed from the front (under the same system prompt): its first messages are
    // the last request's tail and answer
    const last = state.lastRequest;
    if (aligned || last === undefined || messages.length - index < 2) break;
    if (!sameSystemPrompt(last, keys, messages)) break;
    const window = alignTrimmedHistory(last, messages, index);
    if (window === undefined) break;
    aligned = true;
    remembering = false;
    for (let t = 0; t < window.count; t++, index++) {
      const message = messages[index] as NeutralMessage;
      key = last.keys[window.from + t] as ChainKey;
      keys.push(key);
      const calls = message.tool_calls;
      if (calls !== undefined && calls.length > 0)
        (requestCalls ??= new RequestCalls()).addTurn(calls, state.turnCalls.get(key.a, key.b));
      else if (requestCalls !== undefined && isToolOutput(message))
        requestCalls.answer(message.tool_call_id);
    }
    step = undefined;
  }
  for (; index < messages.length; index++) {
    const message = messages[index] as NeutralMessage;
    // the first new message's step is already known from the loop above
    if (step === undefined) step = messageStep(key, message);
    const before = key;
    key = step.key;
    keys.push(key);
    state.prefixes.add(key.a, key.b);
    // a conversation's system prompt, after which a later request's history may be found
    if (index === 0 && isSystemMessage(message)) rememberSystemRoot(state, key);
    if (remembering) {
      if (keyedByFields(message)) rememberSent(sent, message, key);
      else remembering = false;
    }
    if (isToolOutput(message)) {
      // the call of the turn it follows in this request, else the trace's (decisions 002, 030)
      const callId =
        requestCalls?.answer(message.tool_call_id) ??
        answeredCallId(tracer, state, message.tool_call_id);
      const answered = recordToolOutput(core, tracer, state, message, callId);
      if (answered !== undefined) (answeredHere ??= new Set()).add(answered);
    } else if (message.role === 'assistant') {
      const ids =
        editedAnswer(state, before, message) ??
        recordAssistantMessage(core, tracer, state, message, step.fingerprint, answeredHere);
      const calls = message.tool_calls;
      if (calls !== undefined && calls.length > 0) {
        if (ids !== undefined) state.turnCalls.set(key.a, key.b, ids);
        (requestCalls ??= new RequestCalls()).addTurn(calls, ids);
      }
    } else recordPlainMessage(core, tracer, message);
    step = undefined;
  }
  // (a key per message, unless a system prompt change re-linked the history: then none)
  state.lastRequest =
    keys.length === messages.length
      ? { startsWithSystem: isSystemMessage(messages[0]), keys }
      : undefined;
  return key;
}

/**
 * The recorded ids of the calls of an assistant turn that re-sends, edited, the answer recorded
 * after the same prefix: the same call ids in the same order, other arguments (or text). A
 * human-in-the-loop "edit" (LangChain's `humanInTheLoopMiddleware`, an app's approval step)
 * changes a proposed call before it runs, and the next request re-sends the edited turn: it is
 * the recorded turn (its calls already hold their results), not a new message whose calls would
 * take the ids again. `undefined` when the turn is not such an edit.
 */
function editedAnswer(
  state: TracerState,
  before: ChainKey,
  message: NeutralMessage,
): readonly string[] | undefined {
  const calls = message.tool_calls;
  if (calls === undefined || calls.length === 0) return undefined;
  const answer = state.answers?.get(before.a, before.b);
  if (answer === undefined || answer.calls.length !== calls.length) return undefined;
  for (let i = 0; i < calls.length; i++) {
    const id = (calls[i] as NeutralToolCall).id;
    if (isAbsentCallId(id) || id !== (answer.calls[i] as { id: string }).id) return undefined;
  }
  return answer.callIds;
}

/**
 * The id a call of a re-sent assistant turn is recorded under, when the trace holds it: the
 * latest call recorded under its id, unless that call is answered and was another call (other
 * tool or arguments) — then the model used the id again for a new call (see `reusedCallId`).
 * When the model used the id for several calls, the latest of them that is this call (same tool
 * and arguments, not answered earlier in this request).
 */
function recordedCallOf(
  tracer: Tracer,
  state: TracerState,
  call: NeutralToolCall,
  answeredHere: ReadonlySet<string> | undefined,
): string | undefined {
  if (isAbsentCallId(call.id)) return undefined;
  const aliases = state.aliases?.get(call.id);
  if (aliases === undefined) {
    const recorded = tracer.findToolCall(call.id);
    if (recorded === undefined) return undefined;
    if (!hasResult(state, call.id)) return call.id;
    // answered earlier in this very request: this turn came after the answer, so it is new
    if (answeredHere?.has(call.id) === true) return undefined;
    return isSameCall(recorded, call) ? call.id : undefined;
  }
  for (let i = aliases.length - 1; i >= 0; i--) {
    const id = aliases[i] as string;
    if (answeredHere?.has(id) === true) continue;
    const recorded = tracer.findToolCall(id);
    if (recorded !== undefined && isSameCall(recorded, call)) return id;
  }
  return undefined;
}

/** The ids the calls of a re-sent assistant turn are recorded under, when the trace holds all. */
function recordedCallsOf(
  tracer: Tracer,
  state: TracerState,
  message: NeutralMessage,
  answeredHere: ReadonlySet<string> | undefined,
): string[] | undefined {
  const calls = message.tool_calls;
  if (calls === undefined || calls.length === 0) return undefined;
  const recorded: string[] = [];
  for (const call of calls) {
    const id = recordedCallOf(tracer, state, call, answeredHere);
    if (id === undefined) return undefined;
    recorded.push(id);
  }
  return recorded;
}

/** Whether a recorded TOOL_CALL has a call's tool and arguments. */
function isSameCall(
  recorded: { payload: { name: string; arguments: unknown; invalid_arguments?: unknown } },
  call: NeutralToolCall,
): boolean {
  if (recorded.payload.name !== call.function.name) return false;
  const given = canonicalJson(call.function.arguments);
  // arguments that are not JSON are kept as the model's text (`invalid_arguments`)
  return given === undefined
    ? recorded.payload.invalid_arguments === call.function.arguments
    : canonicalJson(recorded.payload.arguments) === given;
}

/**
 * Records a request's tool output not recorded before under call `callId`.
 * @returns the call id it was recorded under, else `undefined`
 */
function recordToolOutput(
  core: RecorderCore,
  tracer: Tracer,
  state: TracerState,
  message: NeutralMessage,
  callId: string | undefined,
): string | undefined {
  if (callId === undefined || hasResult(state, callId)) return undefined;
  const call = tracer.findToolCall(callId);
  // A result whose call is not in this trace cannot be attached (no orphans): not recorded,
  // and said once per call id (a conversation continued from `previous_response_id` in a new
  // process, a history whose assistant turn was trimmed), never silently
  if (call === undefined) {
    const reported = (state.unlinkedResults ??= new Set());
    if (!reported.has(callId)) {
      reported.add(callId);
      core.onRecordingError(
        new TraceError({
          code: 'VALIDATION',
          message: `a tool output for call "${callId}" was not recorded: trace ${tracer.traceId} has no TOOL_CALL with that id (its call was made in another trace or process, or left out of the request), and a TOOL_RESULT needs its call; record the conversation in one trace (withTrace) to keep it`,
          details: {
            sub_type: 'TOOL_RESULT',
            field: 'payload.call_id',
            call_id: callId,
            trace_id: tracer.traceId,
          },
        }),
      );
    }
    return undefined;
  }
  const text = plainText(message.content);
  const status = message.status;
  const block = core.safely(() =>
    tracer.logObserve({
      parent_block_id: call.id,
      payload: {
        call_id: callId,
        output:
          message.outputValue !== undefined
            ? message.outputValue
            : (text ?? normalizeContent(message.content)),
      },
      ...(typeof status === 'string' ? { metadata: { status } } : {}),
    }),
  );
  if (block === undefined) return undefined;
  state.results.add(callId);
  return callId;
}

/**
 * Records a request's assistant message not recorded before, with its calls.
 * @returns the ids its calls are recorded under (those of the trace when it is a recorded
 *   response re-sent), or `undefined` when not known
 */
function recordAssistantMessage(
  core: RecorderCore,
  tracer: Tracer,
  state: TracerState,
  message: NeutralMessage,
  fingerprint: string,
  answeredHere: ReadonlySet<string> | undefined,
): readonly string[] | undefined {
  const [h1, h2] = hashPair(fingerprint);
  // a recorded response after another prefix (a history edited or cut): not recorded again
  if (state.responses.has(h1, h2)) return recordedCallsOf(tracer, state, message, answeredHere);
  // An assistant turn re-sent as its tool calls alone (the Responses API's usual loop appends
  // only the `function_call` items) is the recorded response, not a new message: when it has
  // no text and every call id is already in the trace, there is nothing new to record.
  const calls = message.tool_calls;
  if (calls !== undefined && calls.length > 0) {
    const recorded = recordedCallsOf(tracer, state, message, answeredHere);
    if (recorded !== undefined) {
      const text =
        message.content === null || message.content === undefined ? '' : plainText(message.content);
      if (text === '') return recorded;
      // The Responses API re-sends items, not messages: a recorded response left with its text
      // alone (every call refused) followed by the next response's calls reads as one turn.
      if (text !== undefined) {
        const [t1, t2] = responseHashPair(text, []);
        if (state.responses.has(t1, t2)) return recorded;
      }
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
  return callIds;
}

/** Records a request's system, user (or other) message not recorded before. */
function recordPlainMessage(core: RecorderCore, tracer: Tracer, message: NeutralMessage): void {
  const role = message.role;
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
}
