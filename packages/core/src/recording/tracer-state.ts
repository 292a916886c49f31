import { type CallTurn, firstUnansweredCall } from '../model/unanswered-calls.js';
import { onTracerShutdown } from '../tracing/before-shutdown.js';
import type { Tracer } from '../tracing/types.js';
import { type ChainKey, PairMap, PairSet } from './message-fingerprint.js';
import { canonicalJson } from './refusals.js';
import type { LastRequest } from './trimmed-history.js';
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
  /** Call ids of tool outputs not recorded (no TOOL_CALL in the trace), each reported once. */
  unlinkedResults?: Set<string> | undefined;
  /**
   * A call id the model used for more than one call (providers that number calls per answer:
   * `call_0` every turn, or in two conversations sharing the trace) -> the ids those calls are
   * recorded under, in recording order (`call_0`, `call_0_2`, ...; see {@link reusedCallId} and
   * {@link responseCallIds}). The calls of one response are contiguous. Results naming the id
   * answer the latest response that has an unanswered one of them, in the calls' order
   * ({@link answeredCallId}). Made on the first reuse: the common case is one map miss.
   */
  aliases: Map<string, string[]> | undefined;
  /**
   * The ids a recorded assistant turn's calls are recorded under, by the chain key of the
   * conversation up to and including that turn: a re-sent history's tool outputs answer the
   * calls of the turn they follow in that request, not whatever call of the trace last used
   * their id (another conversation's, an agent-as-tool's). Only turns with calls.
   */
  turnCalls: PairMap<readonly string[]>;
  /**
   * The calls of the latest answer recorded after each conversation prefix (by the prefix's chain
   * key): the model's ids and the ids they are recorded under. A request that re-sends, after
   * that prefix, an assistant turn with the same call ids but other arguments or text re-sends
   * that answer as someone edited it (a human-in-the-loop "edit" before the tool ran): the
   * recorded turn, not a new one (see `editedAnswer`). Only answers with calls; made at the first.
   */
  answers?: PairMap<AnswerCalls> | undefined;
  /**
   * The model calls of this trace not ended yet, ended as cancelled when the tracer shuts down
   * (a stream nobody finished reading, `break` out of the AI SDK's `textStream`): recorded with
   * what streamed in, not lost. Made at the first call; `null` when the tracer runs no shutdown
   * hooks (a `Tracer` not made by `createTracer`).
   */
  inFlight?: Set<InFlightCall> | null | undefined;
  /** Whether the warning about a call id that cannot be told apart was given for this trace. */
  warnedAmbiguous: boolean;
  /**
   * The leading messages of the last request whose key depends only on fields compared here
   * (string or no content, no tool calls: `messageStep`'s rule), with those fields and the key
   * after each. A history re-sent as the same objects is matched by identity, without a memo
   * lookup or a prefix lookup per message.
   */
  sent: SentMessage[];
  /**
   * The last request's messages and the key after each: a next request whose history was trimmed
   * from the front is aligned against it (`alignTrimmedHistory`), not recorded again.
   */
  lastRequest?: LastRequest | undefined;
  /**
   * The chain keys after the leading system messages of recorded requests, newest last (at most
   * `maxSystemRoots`): a request whose system prompt changed finds its history after one of
   * them (see `historyUnderEarlierSystem`). Made at the first.
   */
  systemRoots?: ChainKey[] | undefined;
}

/** A model call in flight, as {@link TracerState.inFlight} keeps it. */
export interface InFlightCall {
  /** Records the call as cancelled at the tracer's shutdown, with what streamed in. */
  endAtShutdown(): void;
}

/**
 * Keeps `call` among the trace's calls in flight until {@link callEnded}; the first call of a
 * trace registers the shutdown hook that ends those left.
 */
export function callStarted(state: TracerState, tracer: Tracer, call: InFlightCall): void {
  let inFlight = state.inFlight;
  if (inFlight === null) return;
  if (inFlight === undefined) {
    const calls = new Set<InFlightCall>();
    if (!onTracerShutdown(tracer, () => endInFlight(calls))) {
      state.inFlight = null;
      return;
    }
    inFlight = state.inFlight = calls;
  }
  inFlight.add(call);
}

/** The call ended (it is recorded). */
export function callEnded(state: TracerState, call: InFlightCall): void {
  state.inFlight?.delete(call);
}

function endInFlight(calls: Set<InFlightCall>): void {
  for (const call of [...calls]) call.endAtShutdown();
  calls.clear();
}

/** The calls of a recorded answer, as {@link TracerState.answers} keeps them. */
export interface AnswerCalls {
  /** The calls as the model proposed them (only their `id`s are read), in order. */
  calls: readonly { readonly id: string }[];
  /** The ids they are recorded under (`call_0_2` when the model reused an id). */
  callIds: readonly string[];
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
      aliases: undefined,
      turnCalls: new PairMap(),
      warnedAmbiguous: false,
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
 * The call a tool result answers. An explicit id the model used for one call is kept as it is;
 * one it used for several ({@link TracerState.aliases}) answers the first unanswered of them in
 * the latest response that has one (parallel calls sharing an id are answered in their order, an
 * agent-as-tool's call before the call whose tool runs it), preferring calls of `toolName` when
 * the result names its tool, else the latest of them. An absent id ({@link isAbsentCallId}) is
 * linked by decision 002's order rule over the calls recorded in this trace: the first
 * unanswered call of the latest message that has one (parallel calls are answered in their
 * order), else the most recent call, else none.
 * @param toolName - the tool that produced the result, when the caller knows it
 *   (`metadata.tool_name` of a guard or a tool executor)
 * @param args - the arguments the tool ran with, when the caller knows them
 * @returns the call id, or `undefined` when the trace has no call to link to
 */
export function answeredCallId(
  tracer: Tracer,
  state: TracerState,
  callId: unknown,
  toolName?: unknown,
  args?: unknown,
): string | undefined {
  if (isAbsentCallId(callId))
    return firstUnansweredCall(state.unanswered, state.isAnswered) ?? state.lastCall;
  const aliases = state.aliases?.get(callId as string);
  if (aliases === undefined) return callId as string;
  const name = typeof toolName === 'string' ? toolName : undefined;
  const given = args === undefined ? undefined : canonicalJson(args);
  // the calls of that tool with those arguments, else of that tool, else any
  if (given !== undefined) {
    const exact = waitingAlias(tracer, state, callId as string, aliases, name, given);
    if (exact !== undefined) return exact;
  }
  if (name !== undefined) {
    const named = waitingAlias(tracer, state, callId as string, aliases, name, undefined);
    if (named !== undefined) return named;
  }
  return (
    waitingAlias(tracer, state, callId as string, aliases, undefined, undefined) ??
    (aliases[aliases.length - 1] as string)
  );
}

/**
 * The first unanswered call (of `toolName` with canonical arguments `args`, when given) of the
 * latest response that has one, among the calls recorded for one model id; warns once per trace
 * when another response also has one waiting: nothing tells them apart (two conversations
 * sharing the trace, both waiting on the same tool).
 */
function waitingAlias(
  tracer: Tracer,
  state: TracerState,
  modelId: string,
  aliases: readonly string[],
  toolName: string | undefined,
  args: string | undefined,
): string | undefined {
  let chosen: string | undefined;
  let chosenParent: string | undefined;
  let otherTurn: string | undefined;
  // newest first: the calls of one response are contiguous, so the latest response's first
  // unanswered call is the last one met before another response's
  for (let i = aliases.length - 1; i >= 0; i--) {
    const id = aliases[i] as string;
    if (state.results.has(id)) continue;
    const call = tracer.findToolCall(id);
    if (call === undefined || (toolName !== undefined && call.payload.name !== toolName)) continue;
    if (args !== undefined && canonicalJson(call.payload.arguments) !== args) continue;
    const parent = call.parent_block_id ?? '';
    if (chosen === undefined || parent === chosenParent) {
      chosen = id;
      chosenParent = parent;
    } else {
      // another response waits too: nothing further can change the choice
      otherTurn = id;
      break;
    }
  }
  if (chosen !== undefined && otherTurn !== undefined)
    warnAmbiguous(tracer, state, modelId, chosen);
  return chosen;
}

/**
 * One process warning per trace (code `TRACEWARDEN_AMBIGUOUS_CALL_ID`): a result named a call id
 * that calls of two model calls still wait on, so it may be recorded under the other's call.
 * Both results are still recorded (each call takes one).
 */
function warnAmbiguous(tracer: Tracer, state: TracerState, modelId: string, chosen: string): void {
  if (state.warnedAmbiguous) return;
  state.warnedAmbiguous = true;
  process.emitWarning(
    `tracewarden: a tool result names call id "${modelId}", which unanswered calls of several model calls in trace ${tracer.traceId} share; it was recorded under the latest ("${chosen}") and may belong to the other. Record concurrent conversations in traces of their own (withTrace), or use a model that gives calls unique ids.`,
    { code: 'TRACEWARDEN_AMBIGUOUS_CALL_ID' },
  );
}

/** Notes that model id `callId` is also recorded under `id` (see {@link TracerState.aliases}). */
function addAlias(state: TracerState, callId: string, id: string): void {
  const aliases = state.aliases ?? new Map<string, string[]>();
  state.aliases = aliases;
  const ids = aliases.get(callId);
  if (ids === undefined) aliases.set(callId, [callId, id]);
  else ids.push(id);
}

/** Whether a message is a tool output (`tool`, or the legacy `function` role). @internal */
export function isToolOutput(message: NeutralMessage): boolean {
  return message.role === 'tool' || message.role === 'function';
}

/**
 * Whether a request waits on a call with id `callId`: its latest message naming the id is an
 * assistant turn proposing it, not a tool output answering it.
 */
function awaitsCall(messages: readonly NeutralMessage[], callId: string): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as NeutralMessage;
    if (isToolOutput(message) && message.tool_call_id === callId) return false;
    const calls = message.tool_calls;
    if (calls !== undefined) for (const call of calls) if (call.id === callId) return true;
  }
  return false;
}

/**
 * The id a model's call with id `callId` is recorded under. Seed 002 allows one TOOL_CALL per
 * call id in a trace, but some providers number calls per answer (`call_0` every turn): a call
 * whose id is already answered in this trace is a new call, recorded as `call_0_2` (then `_3`,
 * ...: `eventsToBlocks`' rule for a repeated id), and results the model's tool messages send
 * under `call_0` land under it ({@link answeredCallId}).
 * An id whose call is not answered yet is the same call when it comes from a re-sent history
 * (`prompt` undefined). A model's own answer (`prompt`: the request it answers) proposes a new
 * call unless that request itself waits on the recorded one: a call of the trace its prompt does
 * not hold is another conversation's (two conversations sharing the trace, an agent run inside a
 * tool), and taking it for the same call lost the new call and put its result under the other.
 * The common case (an id the trace has no call of) is one set lookup, and one map lookup for an
 * answer.
 */
export function reusedCallId(
  tracer: Tracer,
  state: TracerState,
  callId: string,
  taken?: ReadonlySet<string>,
  prompt?: readonly NeutralMessage[],
): string {
  const aliases = state.aliases?.get(callId);
  const current = aliases === undefined ? callId : (aliases[aliases.length - 1] as string);
  if (
    !state.results.has(current) &&
    (prompt === undefined ||
      tracer.findToolCall(current) === undefined ||
      awaitsCall(prompt, callId))
  )
    return current;
  const id = freshCallId(tracer, callId, 1, taken);
  addAlias(state, callId, id);
  return id;
}

/**
 * `<callId>_<n>` for the first `n` above `after` that no TOOL_CALL of the trace has and `taken`
 * (ids of the response being recorded) does not hold: `eventsToBlocks`' rule for a repeated id.
 */
export function freshCallId(
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
 * @param prompt - for a model's answer, the request it answers (see {@link reusedCallId});
 *   `undefined` for an assistant turn of a re-sent history
 */
export function responseCallIds(
  tracer: Tracer,
  state: TracerState,
  calls: readonly { id?: unknown }[],
  prompt?: readonly NeutralMessage[],
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
      id = reusedCallId(tracer, state, original, taken, prompt);
      byModelId?.set(original, [id]);
    } else {
      // a parallel call with the same id: a call of its own
      id = freshCallId(tracer, original, earlier.length, taken);
      earlier.push(id);
      addAlias(state, original, id);
    }
    taken?.add(id);
    ids[i] = id;
  }
  return ids;
}
