import { AsyncLocalStorage } from 'node:async_hooks';
import { canonicalJson, type Tracer } from '@tracewarden/core';
import type { LooseMessage } from '../messages/messages-to-neutral.js';

/**
 * Which trace a conversation continues. A LangChain conversation is often driven as separate
 * top-level runs (a manual tool loop: `model.invoke`, then `tool.invoke` per call, then
 * `model.invoke` again with the history): each continues the trace that recorded the
 * assistant message it re-sends or the tool call it answers, so one conversation stays one
 * trace. Shared by the handler, the agent middleware and guarded tools.
 *
 * What is unique to a conversation comes first: the model's answers, by object (an answer is
 * made for one model call). A tool call id is a last resort: providers that number calls per
 * answer (`call_0` in every conversation) give concurrent conversations the same ids, so a call
 * id only picks among the traces holding it the one whose call has the same tool and
 * arguments and still waits for its result, and picks none when that leaves several.
 *
 * The index is the process's (a guarded tool run under no tracewarden recorder has no one to
 * ask), but it keeps no trace alive: links and answers hold their tracer through a `WeakRef`, so
 * a tracer let go by its handler (past the 100 in `handler.tracers`) or by its owner is
 * collected, even while the app keeps the messages. A handler or middleware looks only among
 * the traces it recorded into (`own`), so it never continues another's conversation; a guarded
 * tool run under one or more of them looks only among theirs.
 */

/** The traces a handler or middleware recorded into: what its look-ups are limited to. @internal */
export type OwnTracers = WeakSet<Tracer>;

/**
 * What a look-up is limited to: one recorder's own traces, or the union of several recorders'
 * (a tool run under two handlers, or under a handler and the agent middleware).
 * @internal
 */
export type OwnScope = OwnTracers | readonly OwnTracers[];

/** Whether `tracer` is among `own` (any tracer when `own` is absent). */
function isOwn(own: OwnScope | undefined, tracer: Tracer): boolean {
  if (own === undefined) return true;
  if (own instanceof WeakSet) return own.has(tracer);
  return own.some((each) => each.has(tracer));
}

/** The agent middleware's own traces, while a tool call it wraps runs. */
const middlewareScope = new AsyncLocalStorage<OwnTracers>();

/**
 * Runs `run` (a tool call the agent middleware wraps) so that a guarded tool given no tracer,
 * run inside it, looks only among the middleware's traces `own` (see {@link ownTracersAmong}).
 * @internal
 */
export function runWithOwnTracers<T>(own: OwnTracers, run: () => T): T {
  return middlewareScope.run(own, run);
}

/** Each handler's own traces, by handler: what a guarded tool run under it may record into. */
const ownersOf = new WeakMap<object, OwnTracers>();

/**
 * Says whose traces `own` are, so that a guarded tool given no tracer, run under that handler,
 * looks only among them (see {@link ownTracersAmong}).
 * @internal
 */
export function registerOwnTracers(owner: object, own: OwnTracers): void {
  ownersOf.set(owner, own);
}

/**
 * The traces a tool run may record into: the own traces of every tracewarden recorder it runs
 * under (the callback handlers among `handlers`, and the agent middleware wrapping the call),
 * together; `undefined` (the process's index) only when it runs under none.
 * @internal
 */
export function ownTracersAmong(
  handlers: readonly unknown[] | undefined,
): readonly OwnTracers[] | undefined {
  const found: OwnTracers[] = [];
  const middleware = middlewareScope.getStore();
  if (middleware !== undefined) found.push(middleware);
  for (const handler of handlers ?? []) {
    const own = typeof handler === 'object' && handler !== null ? ownersOf.get(handler) : undefined;
    if (own !== undefined && !found.includes(own)) found.push(own);
  }
  return found.length === 0 ? undefined : found;
}

/**
 * Assistant messages recorded as a response, by object: the message the caller re-sends. The
 * tracer is held weakly: a WeakMap holds its values strongly while the key lives, and an app
 * keeps its messages.
 */
const byMessage = new WeakMap<object, WeakRef<Tracer>>();

/** One `WeakRef` per tracer, so links of one trace compare by reference and share it. */
const refs = new WeakMap<Tracer, WeakRef<Tracer>>();

/** The one `WeakRef` to `tracer`. @internal */
export function refOf(tracer: Tracer): WeakRef<Tracer> {
  let ref = refs.get(tracer);
  if (ref === undefined) {
    ref = new WeakRef(tracer);
    refs.set(tracer, ref);
    collected.register(tracer, undefined);
  }
  return ref;
}

/**
 * Sweeps the index soon after a trace it links is collected: the links' arguments go with it,
 * even when no call is linked afterwards (a handler let go at the end of a batch job).
 */
let sweepScheduled = false;
const collected = new FinalizationRegistry<undefined>(() => {
  if (sweepScheduled) return;
  sweepScheduled = true;
  const timer: unknown = setTimeout(() => {
    sweepScheduled = false;
    sweepDeadLinks();
  }, 0);
  // (a timer of Node's: never what keeps a process alive)
  (timer as { unref?: () => void }).unref?.();
});

/** The link's tracer, if it is still alive and (when `own` is given) one of `own`. */
function tracerOfLink(link: CallLink, own: OwnScope | undefined): Tracer | undefined {
  const tracer = link.ref.deref();
  return tracer === undefined || !isOwn(own, tracer) ? undefined : tracer;
}

/** One TOOL_CALL a trace holds, as a call id lookup weighs it. */
interface CallLink {
  readonly callId: string;
  /** Weak: the index must not keep a trace its handler or owner let go. */
  readonly ref: WeakRef<Tracer>;
  readonly name: string | undefined;
  /** The call's arguments as given (made canonical only when two traces must be told apart). */
  readonly arguments: unknown;
  /** Whether this package recorded its result (a result recorded elsewhere is not seen). */
  answered: boolean;
}

/**
 * The traces holding each tool call id: its link, or its links oldest first when several traces
 * hold it (bounded: the oldest ids go first). One link, not a list, is the common case: a list
 * per id cost a manual-loop turn an allocation more (the handler's callbacks A/B, session 10).
 */
const byCallId = new Map<string, CallLink | CallLink[]>();

/** Most call ids remembered at once. */
const maxCallIds = 10_000;

/** Most traces remembered per call id (ids every conversation uses, like `call_0`). */
const maxLinksPerId = 16;

/**
 * The latest calls linked, in a ring (the oldest at `ringHead` once full): what a run without a
 * call id is matched against, so that lookup scans a bounded list, not every id remembered.
 */
const ring: (CallLink | undefined)[] = [];
let ringHead = 0;

/** Most calls the ring holds. */
const maxRing = 1_000;

/**
 * Drops the links whose trace was collected, their arguments with them. A link holds its call's
 * arguments (compared when two traces hold one id): once the trace is collected they would
 * otherwise stay alive in the index (a file-writing agent's 100 KB arguments, thousands of
 * them). Run once after each collection of traced tracers (`collected`).
 */
function sweepDeadLinks(): void {
  for (const [callId, known] of byCallId) {
    if (!Array.isArray(known)) {
      if (known.ref.deref() === undefined) byCallId.delete(callId);
      continue;
    }
    const alive = known.filter((link) => link.ref.deref() !== undefined);
    if (alive.length === 0) byCallId.delete(callId);
    else if (alive.length !== known.length)
      byCallId.set(callId, alive.length === 1 ? (alive[0] as CallLink) : alive);
  }
  for (let i = 0; i < ring.length; i++) if (ring[i]?.ref.deref() === undefined) ring[i] = undefined;
}

/** Whether a tool call id is absent (`""`, as Gemini-backed agents send, decision 030). */
function isAbsent(callId: string | undefined): callId is '' | undefined {
  return callId === undefined || callId === '';
}

/**
 * Remembers that `tracer` recorded `message` (a model's answer) and its tool calls.
 * @internal
 */
export function linkResponse(
  tracer: Tracer,
  message: unknown,
  calls: readonly { readonly id: string; readonly name?: string; readonly arguments?: unknown }[],
): void {
  if (typeof message === 'object' && message !== null) byMessage.set(message, refOf(tracer));
  for (const call of calls) linkCall(tracer, call.id, call.name, call.arguments);
}

/**
 * Remembers that `tracer` holds a TOOL_CALL `callId` (`""`: a call without an id, answered by
 * decision 002's order rule) for the tool `name` with `args`.
 * @internal
 */
export function linkCall(tracer: Tracer, callId: string, name?: string, args?: unknown): void {
  const ref = refOf(tracer);
  const link: CallLink = { callId, ref, name, arguments: args, answered: false };
  if (ring.length < maxRing) ring.push(link);
  else {
    ring[ringHead] = link;
    ringHead = (ringHead + 1) % maxRing;
  }
  const known = byCallId.get(callId);
  // one link per trace and id: its latest call (an id used again in one trace is a new call)
  if (known === undefined || (!Array.isArray(known) && known.ref === ref)) {
    // re-inserted, so the map's order stays the order calls were linked in
    byCallId.delete(callId);
    byCallId.set(callId, link);
    if (byCallId.size > maxCallIds) {
      const oldest = byCallId.keys().next();
      if (oldest.done !== true) byCallId.delete(oldest.value);
    }
    return;
  }
  const links = Array.isArray(known) ? known : [known];
  const index = links.findIndex((each) => each.ref === ref);
  if (index !== -1) links.splice(index, 1);
  links.push(link);
  if (links.length > maxLinksPerId) links.shift();
  byCallId.delete(callId);
  byCallId.set(callId, links);
}

/**
 * The call a tool run answers when LangChain gives the run no call id (`@langchain/core` 1.0.0
 * starts a tool run with its arguments only, and a tool that throws returns no `ToolMessage`):
 * the oldest call still waiting for its result for the tool `name` with `args`, in `tracer` when
 * the run's trace is known (else among `own`).
 * @param unique - take a call only when it is the one waiting call that fits: a run whose
 *   result names no id must not take a call whose own result, naming its id, is still to come
 *   (parallel identical calls on core 1.0.0, where a tool that throws returns no `ToolMessage`)
 * @internal
 */
export function waitingCallOf(
  tracer: Tracer | undefined,
  name: string | undefined,
  args: unknown,
  own?: OwnScope,
  unique = false,
): { callId: string; tracer: Tracer } | undefined {
  return linkOf(tracer, name, args, false, own, unique);
}

/**
 * The oldest link of a call with an id (a call without one is found by the id its TOOL_CALL was
 * recorded under, `linkRecordedIds`) for the tool `name` with `args`, answered or waiting as
 * asked, in `tracer` when given.
 */
function linkOf(
  tracer: Tracer | undefined,
  name: string | undefined,
  args: unknown,
  answered: boolean,
  own?: OwnScope,
  unique = false,
): { callId: string; tracer: Tracer } | undefined {
  if (name === undefined || ring.length === 0) return undefined;
  const canonical = canonicalJson(args);
  if (canonical === undefined) return undefined;
  const wanted = tracer === undefined ? undefined : refOf(tracer);
  let found: { callId: string; tracer: Tracer } | undefined;
  for (let i = 0; i < ring.length; i++) {
    const link = ring[(ringHead + i) % ring.length];
    if (
      link === undefined ||
      link.answered !== answered ||
      link.callId === '' ||
      link.name !== name ||
      (wanted !== undefined && link.ref !== wanted)
    )
      continue;
    // a dead or foreign trace's link is skipped before its arguments are serialised
    const held = tracerOfLink(link, own);
    if (held === undefined || canonicalJson(link.arguments) !== canonical) continue;
    if (!unique) return { callId: link.callId, tracer: held };
    // a second call that fits alike: which one the run answers cannot be told
    if (found !== undefined) return undefined;
    found = { callId: link.callId, tracer: held };
  }
  return found;
}

/**
 * Notes that the result of the call `callId` of `tracer` is recorded: a later run with the
 * same id (another conversation's `call_0`) is then not taken for it.
 * @internal
 */
export function noteCallAnswered(tracer: Tracer, callId: string): void {
  const known = byCallId.get(callId);
  if (known === undefined) return;
  const ref = refOf(tracer);
  if (!Array.isArray(known)) {
    if (known.ref === ref) known.answered = true;
    return;
  }
  for (const link of known)
    if (link.ref === ref && !link.answered) {
      link.answered = true;
      return;
    }
}

/** Whether a link's call is for `name` with `args` (unknown parts are not held against it). */
function sameCall(link: CallLink, name: string | undefined, args: string | undefined): boolean {
  if (name !== undefined && link.name !== undefined && link.name !== name) return false;
  return args === undefined || canonicalJson(link.arguments) === args;
}

/**
 * The tracer holding the TOOL_CALL `callId`, for a tool run (`pending`) or a re-sent answer.
 * A tool run takes, among the traces holding the id, the one whose call still waits for its
 * result, and when several do (or none) the one whose call is for `name` with `args`; when
 * several still fit alike (concurrent conversations with the same id, tool and arguments), the
 * one whose call came last. A re-sent answer takes the one trace whose call has the same tool
 * and arguments, and none when several do, so no conversation is moved into another's trace.
 * @param callId - the call id (`""` or `undefined`: calls without one, matched by tool and arguments)
 * @param name - the tool's name, if known
 * @param args - the call's arguments (an object or JSON text), if known
 * @param pending - whether the call is about to be answered (a tool run)
 * @param own - the traces the caller may continue (a handler's or middleware's own); any when absent
 * @internal
 */
export function tracerOfCall(
  callId: string | undefined,
  name?: string,
  args?: unknown,
  pending = true,
  own?: OwnScope,
): Tracer | undefined {
  const known = byCallId.get(callId ?? '');
  if (known === undefined) return undefined;
  const absent = isAbsent(callId);
  // the common case for a tool run: one trace ever held this id
  if (pending && !Array.isArray(known)) {
    const tracer = tracerOfLink(known, own);
    return tracer !== undefined && (absent || tracer.findToolCall(callId) !== undefined)
      ? tracer
      : undefined;
  }
  const links = Array.isArray(known) ? known : [known];
  let held: HeldLink[] = [];
  for (const link of links) {
    const tracer = tracerOfLink(link, own);
    if (tracer !== undefined && (absent || tracer.findToolCall(callId) !== undefined))
      held.push({ link, tracer });
  }
  if (pending) {
    // a tool run answers a call still waiting for its result, when one is
    if (held.some((each) => !each.link.answered)) held = held.filter((each) => !each.link.answered);
    if (oneTracer(held)) return held[0]?.tracer;
  }
  // a re-sent answer is always matched on its tool and arguments too
  const canonical = args === undefined ? undefined : canonicalJson(args);
  const fitting = held.filter((each) => sameCall(each.link, name, canonical));
  if (oneTracer(fitting)) return fitting[0]?.tracer;
  // several conversations fit alike: a tool run takes the latest call, a re-sent answer none
  return pending ? (fitting.at(-1) ?? held.at(-1))?.tracer : undefined;
}

/** A link whose tracer is alive, with that tracer. */
interface HeldLink {
  readonly link: CallLink;
  readonly tracer: Tracer;
}

/** Whether the links are all of one trace (and there is at least one). */
function oneTracer(links: readonly HeldLink[]): boolean {
  const first = links[0];
  return first !== undefined && links.every((each) => each.tracer === first.tracer);
}

/**
 * The tracer of the conversation these request messages continue: the latest model answer
 * recorded here that the request re-sends (by object), among `own` when given. `undefined`
 * when none is.
 * @internal
 */
export function tracerOfAnswers(
  messages: readonly LooseMessage[],
  own?: OwnScope,
): Tracer | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (typeof message !== 'object' || message === null) continue;
    const linked = byMessage.get(message)?.deref();
    if (linked !== undefined && isOwn(own, linked)) return linked;
  }
  return undefined;
}

/**
 * The last resort for a request whose answers are not the objects recorded (a history rebuilt
 * from storage): the trace holding the tool calls of its latest assistant message that has
 * some, when exactly one trace holds them with the same tools and arguments.
 * @internal
 */
export function tracerOfCallsIn(
  messages: readonly LooseMessage[],
  own?: OwnScope,
): Tracer | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const calls = messages[i]?.tool_calls;
    if (calls === undefined || calls.length === 0) continue;
    let found: Tracer | undefined;
    for (const call of calls) {
      if (isAbsent(call.id)) continue;
      const tracer = tracerOfCall(call.id, call.name, call.args ?? {}, false, own);
      if (tracer === undefined || (found !== undefined && tracer !== found)) return undefined;
      found = tracer;
    }
    return found;
  }
  return undefined;
}

/**
 * The tracer of the conversation these request messages continue: a re-sent answer first, the
 * tool calls of the latest assistant message as a last resort.
 * @internal
 */
export function tracerOfMessages(
  messages: readonly LooseMessage[],
  own?: OwnScope,
): Tracer | undefined {
  return tracerOfAnswers(messages, own) ?? tracerOfCallsIn(messages, own);
}

/** The latest assistant MESSAGE this package recorded per trace (so no scan of the trace). */
const lastAnswers = new WeakMap<Tracer, string>();

/** Remembers the latest assistant MESSAGE recorded into `tracer`. @internal */
export function noteAnswer(tracer: Tracer, blockId: string | undefined): void {
  if (blockId !== undefined) lastAnswers.set(tracer, blockId);
}

/** The latest assistant MESSAGE this package recorded into `tracer`, if any. @internal */
export function lastAnswerOf(tracer: Tracer): string | undefined {
  return lastAnswers.get(tracer);
}

/**
 * Links the calls without ids (`""`) of an answer to the ids their TOOL_CALLs were recorded
 * under, so a tool run for one of them finds its own call by tool and arguments
 * ({@link waitingCallOf}) rather than the trace's next unanswered call: parallel calls of an
 * agent's tool node finish in any order.
 * @param tracer - the trace the answer was recorded in
 * @param messageBlockId - the answer's MESSAGE block
 * @param calls - the answer's proposed calls, in order
 * @internal
 */
export function linkRecordedIds(
  tracer: Tracer,
  messageBlockId: string | undefined,
  calls: readonly { readonly id: string; readonly name?: string; readonly arguments?: unknown }[],
): void {
  if (messageBlockId === undefined || !calls.some((call) => call.id === '')) return;
  const recorded = tracer
    .blocks()
    .filter((block) => block.sub_type === 'TOOL_CALL' && block.parent_block_id === messageBlockId);
  calls.forEach((call, index) => {
    const block = recorded[index];
    if (call.id !== '' || block === undefined || block.sub_type !== 'TOOL_CALL') return;
    if (block.payload.name !== call.name) return;
    linkCall(tracer, block.payload.call_id, call.name, call.arguments);
  });
}

/**
 * Whether the call without an id (`""`) of the tool `name` with `args` already has its result in
 * `tracer` (a guarded tool recorded it): a second recorder of the same run then records nothing,
 * rather than answering the trace's next unanswered call.
 * @internal
 */
export function answeredAbsentCall(
  tracer: Tracer,
  name: string | undefined,
  args: unknown,
): boolean {
  return linkOf(tracer, name, args, true) !== undefined;
}
