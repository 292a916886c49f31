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
 */

/** Assistant messages recorded as a response, by object: the message the caller re-sends. */
const byMessage = new WeakMap<object, Tracer>();

/** One TOOL_CALL a trace holds, as a call id lookup weighs it. */
interface CallLink {
  readonly callId: string;
  readonly tracer: Tracer;
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
const ring: CallLink[] = [];
let ringHead = 0;

/** Most calls the ring holds. */
const maxRing = 1_000;

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
  if (typeof message === 'object' && message !== null) byMessage.set(message, tracer);
  for (const call of calls) linkCall(tracer, call.id, call.name, call.arguments);
}

/**
 * Remembers that `tracer` holds a TOOL_CALL `callId` (`""`: a call without an id, answered by
 * decision 002's order rule) for the tool `name` with `args`.
 * @internal
 */
export function linkCall(tracer: Tracer, callId: string, name?: string, args?: unknown): void {
  const link: CallLink = { callId, tracer, name, arguments: args, answered: false };
  if (ring.length < maxRing) ring.push(link);
  else {
    ring[ringHead] = link;
    ringHead = (ringHead + 1) % maxRing;
  }
  const known = byCallId.get(callId);
  // one link per trace and id: its latest call (an id used again in one trace is a new call)
  if (known === undefined || (!Array.isArray(known) && known.tracer === tracer)) {
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
  const index = links.findIndex((each) => each.tracer === tracer);
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
 * the run's trace is known.
 * @internal
 */
export function waitingCallOf(
  tracer: Tracer | undefined,
  name: string | undefined,
  args: unknown,
): { callId: string; tracer: Tracer } | undefined {
  const link = linkOf(tracer, name, args, false);
  return link === undefined ? undefined : { callId: link.callId, tracer: link.tracer };
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
): CallLink | undefined {
  if (name === undefined || ring.length === 0) return undefined;
  const canonical = canonicalJson(args);
  if (canonical === undefined) return undefined;
  for (let i = 0; i < ring.length; i++) {
    const link = ring[(ringHead + i) % ring.length];
    if (
      link === undefined ||
      link.answered !== answered ||
      link.callId === '' ||
      link.name !== name ||
      (tracer !== undefined && link.tracer !== tracer)
    )
      continue;
    if (canonicalJson(link.arguments) === canonical) return link;
  }
  return undefined;
}

/**
 * Notes that the result of the call `callId` of `tracer` is recorded: a later run with the
 * same id (another conversation's `call_0`) is then not taken for it.
 * @internal
 */
export function noteCallAnswered(tracer: Tracer, callId: string): void {
  const known = byCallId.get(callId);
  if (known === undefined) return;
  if (!Array.isArray(known)) {
    if (known.tracer === tracer) known.answered = true;
    return;
  }
  for (const link of known)
    if (link.tracer === tracer && !link.answered) {
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
 * @internal
 */
export function tracerOfCall(
  callId: string | undefined,
  name?: string,
  args?: unknown,
  pending = true,
): Tracer | undefined {
  const known = byCallId.get(callId ?? '');
  if (known === undefined) return undefined;
  const absent = isAbsent(callId);
  // the common case for a tool run: one trace ever held this id
  if (pending && !Array.isArray(known))
    return absent || known.tracer.findToolCall(callId) !== undefined ? known.tracer : undefined;
  const links = Array.isArray(known) ? known : [known];
  let held = links.filter((link) => absent || link.tracer.findToolCall(callId) !== undefined);
  if (pending) {
    // a tool run answers a call still waiting for its result, when one is
    if (held.some((link) => !link.answered)) held = held.filter((link) => !link.answered);
    if (oneTracer(held)) return held[0]?.tracer;
  }
  // a re-sent answer is always matched on its tool and arguments too
  const canonical = args === undefined ? undefined : canonicalJson(args);
  const fitting = held.filter((link) => sameCall(link, name, canonical));
  if (oneTracer(fitting)) return fitting[0]?.tracer;
  // several conversations fit alike: a tool run takes the latest call, a re-sent answer none
  return pending ? (fitting.at(-1) ?? held.at(-1))?.tracer : undefined;
}

/** Whether the links are all of one trace (and there is at least one). */
function oneTracer(links: readonly CallLink[]): boolean {
  const first = links[0];
  return first !== undefined && links.every((link) => link.tracer === first.tracer);
}

/**
 * The tracer of the conversation these request messages continue: the latest model answer
 * recorded here that the request re-sends (by object). `undefined` when none is.
 * @internal
 */
export function tracerOfAnswers(messages: readonly LooseMessage[]): Tracer | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (typeof message !== 'object' || message === null) continue;
    const linked = byMessage.get(message);
    if (linked !== undefined) return linked;
  }
  return undefined;
}

/**
 * The last resort for a request whose answers are not the objects recorded (a history rebuilt
 * from storage): the trace holding the tool calls of its latest assistant message that has
 * some, when exactly one trace holds them with the same tools and arguments.
 * @internal
 */
export function tracerOfCallsIn(messages: readonly LooseMessage[]): Tracer | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const calls = messages[i]?.tool_calls;
    if (calls === undefined || calls.length === 0) continue;
    let found: Tracer | undefined;
    for (const call of calls) {
      if (isAbsent(call.id)) continue;
      const tracer = tracerOfCall(call.id, call.name, call.args ?? {}, false);
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
export function tracerOfMessages(messages: readonly LooseMessage[]): Tracer | undefined {
  return tracerOfAnswers(messages) ?? tracerOfCallsIn(messages);
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
