import { type CallTurn, firstUnansweredCall } from '../model/unanswered-calls.js';
import type { Tracer } from '../tracing/types.js';
import { type ChainKey, PairSet } from './message-fingerprint.js';
import type { NeutralMessage } from './types.js';

/*
 * What recording remembers per tracer, shared by every recorder (and every adapter) writing to
 * it: the conversation prefixes, responses and tool results already recorded.
 * @internal
 */

/** What the recorder remembers per tracer (shared by every recorder writing to it). */
export interface TracerState {
  /** Chain keys of every conversation prefix recorded. */
  prefixes: PairSet;
  /** Hashes of the fingerprints of recorded responses: never re-recorded when re-sent. */
  responses: PairSet;
  /**
   * Call ids whose result is recorded: those in the trace when recording first saw the tracer,
   * then every result recorded through core (the recorder, `recordToolResult`, which guards and
   * every adapter use). Looked up per tool result, so never rebuilt from the trace's blocks.
   */
  results: Set<string>;
  /** `results.has`, made once per state for the order rule. */
  isAnswered: (callId: string) => boolean;
  /**
   * The TOOL_CALLs recorded through the recorder (and found at the first scan), by turn (the
   * calls of one assistant message, in order), oldest turn first; turns whose calls are all
   * answered are dropped lazily from the top: the order rule's stack (decision 002).
   */
  unanswered: ParentedTurn[];
  /** The most recent such call id (the order rule's fallback when every call is answered). */
  lastCall: string | undefined;
  /** How many call ids this state generated for calls without one. */
  generatedIds: number;
  /**
   * A call id the model used again after its first call was answered (providers that number
   * calls per answer: `call_0` every turn) -> the id its latest call is recorded under
   * (`call_0_2`, see {@link reusedCallId}); made on the first reuse.
   */
  reused: Map<string, string> | undefined;
  /**
   * A call id that parallel calls of the latest response using it share (`call_0` twice in one
   * answer) -> the ids those calls are recorded under, in the calls' order (`call_0`,
   * `call_0_2`, see {@link responseCallIds}); results naming the id answer them in that order.
   * Made on the first such response.
   */
  shared: Map<string, string[]> | undefined;
  /**
   * The leading messages of the last request whose key depends only on fields compared here
   * (string or no content, no tool calls: `messageStep`'s rule), with those fields and the key
   * after each. A history re-sent as the same objects is matched by identity, without a memo
   * lookup or a prefix lookup per message.
   */
  sent: SentMessage[];
}

/** The calls of one assistant message, for the order rule (decision 002). */
interface ParentedTurn extends CallTurn {
  /** The assistant MESSAGE block the calls hang under. */
  parent: string;
}

/** One message of the last request, as {@link TracerState.sent} keeps it. */
export interface SentMessage {
  message: NeutralMessage;
  role: unknown;
  content: unknown;
  toolCallId: unknown;
  /** The chain key of the conversation up to and including this message (among the prefixes). */
  key: ChainKey;
}

/** Whether a message's key depends only on its role, string content and tool call id. */
export function keyedByFields(message: NeutralMessage): boolean {
  const content = message.content;
  return (
    (typeof content === 'string' || content === null || content === undefined) &&
    (message.tool_calls === undefined || message.tool_calls.length === 0)
  );
}

/** Remembers the request's next message and the key after it. */
export function rememberSent(sent: SentMessage[], message: NeutralMessage, key: ChainKey): void {
  sent.push({
    message,
    role: message.role,
    content: message.content,
    toolCallId: message.tool_call_id,
    key,
  });
}

const states = new WeakMap<Tracer, TracerState>();

export function stateOf(tracer: Tracer): TracerState {
  let state = states.get(tracer);
  if (state === undefined) {
    const results = new Set<string>();
    state = {
      prefixes: new PairSet(),
      responses: new PairSet(),
      results,
      isAnswered: (callId) => results.has(callId),
      unanswered: [],
      lastCall: undefined,
      generatedIds: 0,
      reused: undefined,
      shared: undefined,
      sent: [],
    };
    // What the trace already holds (blocks logged before any recorder saw this tracer): read
    // once, here; from now on the index grows as core records.
    for (const block of tracer.blocks()) {
      if (block.sub_type === 'TOOL_RESULT') state.results.add(block.payload.call_id);
      else if (block.sub_type === 'TOOL_CALL')
        rememberCall(state, block.payload.call_id, block.parent_block_id ?? '');
    }
    states.set(tracer, state);
  }
  return state;
}

/** Remembers a TOOL_CALL recorded in the trace under `parent`, for the order rule. */
export function rememberCall(state: TracerState, callId: string, parent: string): void {
  const turns = state.unanswered;
  const last = turns[turns.length - 1];
  if (last !== undefined && last.parent === parent) last.calls.push(callId);
  else turns.push({ parent, calls: [callId], next: 0 });
  state.lastCall = callId;
}

/**
 * Whether the result of `callId` is recorded in `tracer`: a set lookup (results recorded through
 * core are indexed as they are written, and what the trace held before at the first scan). A
 * TOOL_RESULT logged straight through `tracer.logObserve` after that is not seen here.
 */
export function hasResult(state: TracerState, callId: string): boolean {
  return state.results.has(callId);
}

/**
 * Whether a tool call id is absent: `""` (as Gemini-backed agents send every id), `undefined`,
 * `null` or no string at all (decision 030).
 */
export function isAbsentCallId(callId: unknown): boolean {
  return typeof callId !== 'string' || callId === '';
}

/**
 * The call a tool result answers. An explicit id is kept as it is (the id its latest call is
 * recorded under when the model used it again; the first unanswered of parallel calls sharing
 * it, in their order); an absent one
 * ({@link isAbsentCallId}) is linked by decision 002's order rule over the calls recorded in
 * this trace: the first unanswered call of the latest message that has one (parallel calls are
 * answered in their order), else the most recent call, else none.
 * @returns the call id, or `undefined` when the trace has no call to link to
 */
export function answeredCallId(state: TracerState, callId: unknown): string | undefined {
  if (isAbsentCallId(callId))
    return firstUnansweredCall(state.unanswered, state.isAnswered) ?? state.lastCall;
  const shared = state.shared?.get(callId as string);
  if (shared !== undefined) {
    // parallel calls sharing the id: the first without a result, else the last again
    for (const id of shared) if (!state.results.has(id)) return id;
    return shared[shared.length - 1];
  }
  return state.reused?.get(callId as string) ?? (callId as string);
}

/**
 * The id a model's call with id `callId` is recorded under. Seed 002 allows one TOOL_CALL per
 * call id in a trace, but some providers number calls per answer (`call_0` every turn): a call
 * whose id is already answered in this trace is a new call, recorded as `call_0_2` (then `_3`,
 * ...: `eventsToBlocks`' rule for a trace that repeats an id), and results the model's tool
 * messages send under `call_0` land under it ({@link answeredCallId}). An id whose call is not
 * answered yet is the same call, as before.
 * The common case (an id the trace has no answered call of) is one set lookup.
 */
export function reusedCallId(
  tracer: Tracer,
  state: TracerState,
  callId: string,
  taken?: ReadonlySet<string>,
): string {
  const current = state.reused?.get(callId) ?? callId;
  if (!state.results.has(current)) return current;
  const id = freshCallId(tracer, callId, 1, taken);
  state.reused ??= new Map();
  state.reused.set(callId, id);
  return id;
}

/**
 * `<callId>_<n>` for the first `n` above `after` that no TOOL_CALL of the trace has and `taken`
 * (ids of the response being recorded) does not hold: `eventsToBlocks`' rule for a repeated id.
 */
function freshCallId(
  tracer: Tracer,
  callId: string,
  after: number,
  taken: ReadonlySet<string> | undefined,
): string {
  let n = after;
  let id: string;
  do {
    n += 1;
    id = `${callId}_${n}`;
  } while (tracer.findToolCall(id) !== undefined || taken?.has(id) === true);
  return id;
}

/**
 * The id a TOOL_CALL without one is recorded under: unique in the trace (it names the trace and
 * counts), never `""`.
 */
export function generatedCallId(tracer: Tracer, state: TracerState): string {
  let id: string;
  do {
    state.generatedIds += 1;
    id = `call_${tracer.traceId}_${state.generatedIds}`;
  } while (tracer.findToolCall(id) !== undefined);
  return id;
}

/**
 * The ids a response's calls are recorded under, by index: a call's own id
 * ({@link reusedCallId}), or one generated for a call without one ({@link generatedCallId}).
 * Parallel calls sharing one id (`call_0` twice in one answer, from servers that number calls
 * per answer) are distinct calls, as `eventsToBlocks` reads them: the later ones are recorded
 * under fresh ids (`call_0_2`, ...) with the model's id kept in metadata, and results naming the
 * id answer them in the calls' order ({@link answeredCallId}). Before, the second call and its
 * result were dropped.
 */
export function responseCallIds(
  tracer: Tracer,
  state: TracerState,
  calls: readonly { id?: unknown }[],
): string[] {
  const ids = new Array<string>(calls.length);
  // Only where a response has two calls or more: the recorded ids of each model id, and every
  // id a fresh one must not take (the response's model ids, and the ids given so far).
  let byModelId: Map<string, string[]> | undefined;
  let taken: Set<string> | undefined;
  if (calls.length > 1) {
    byModelId = new Map();
    taken = new Set();
    for (const call of calls) if (!isAbsentCallId(call.id)) taken.add(call.id as string);
  }
  for (let i = 0; i < calls.length; i++) {
    const modelId = (calls[i] as { id?: unknown }).id;
    if (isAbsentCallId(modelId)) {
      ids[i] = generatedCallId(tracer, state);
      continue;
    }
    const original = modelId as string;
    const earlier = byModelId?.get(original);
    let id: string;
    if (earlier === undefined) {
      id = reusedCallId(tracer, state, original, taken);
      byModelId?.set(original, [id]);
      // the latest response uses the id once: its results name that call alone
      state.shared?.delete(original);
    } else {
      // a parallel call with the same id: a call of its own
      id = freshCallId(tracer, original, earlier.length, taken);
      earlier.push(id);
      (state.shared ??= new Map()).set(original, earlier);
      (state.reused ??= new Map()).set(original, id);
    }
    taken?.add(id);
    ids[i] = id;
  }
  return ids;
}
