import type { Tracer } from '@tracewarden/core';
import type { LooseMessage } from '../messages/messages-to-neutral.js';

/**
 * Which trace a conversation continues. A LangChain conversation is often driven as separate
 * top-level runs (a manual tool loop: `model.invoke`, then `tool.invoke` per call, then
 * `model.invoke` again with the history): each continues the trace that recorded the
 * assistant message it re-sends or the tool call it answers, so one conversation stays one
 * trace. Shared by the handler, the agent middleware and guarded tools.
 */

/** Assistant messages recorded as a response, by object: the message the caller re-sends. */
const byMessage = new WeakMap<object, Tracer>();

/** Tool call ids recorded as TOOL_CALL blocks (bounded: the oldest go first). */
const byCallId = new Map<string, Tracer>();

/** Most call ids remembered at once. */
const maxCallIds = 10_000;

/** Remembers that `tracer` recorded `message` (a model's answer) and its tool calls. @internal */
export function linkResponse(
  tracer: Tracer,
  message: unknown,
  calls: readonly { readonly id: string }[] | undefined,
): void {
  if (typeof message === 'object' && message !== null) byMessage.set(message, tracer);
  if (calls !== undefined) for (const call of calls) linkCall(tracer, call.id);
}

/** Remembers that `tracer` holds the TOOL_CALL `callId`. @internal */
export function linkCall(tracer: Tracer, callId: string): void {
  byCallId.delete(callId);
  byCallId.set(callId, tracer);
  if (byCallId.size > maxCallIds) {
    const oldest = byCallId.keys().next();
    if (oldest.done !== true) byCallId.delete(oldest.value);
  }
}

/** The tracer holding the TOOL_CALL `callId`, if one was recorded here. @internal */
export function tracerOfCall(callId: string | undefined): Tracer | undefined {
  if (callId === undefined) return undefined;
  const tracer = byCallId.get(callId);
  if (tracer === undefined || tracer.findToolCall(callId) === undefined) return undefined;
  return tracer;
}

/**
 * The tracer of the conversation these request messages continue: the latest message that was
 * recorded (an assistant answer re-sent by object, or a tool result answering a known call).
 * @internal
 */
export function tracerOfMessages(messages: readonly LooseMessage[]): Tracer | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (typeof message !== 'object' || message === null) continue;
    const linked = byMessage.get(message);
    if (linked !== undefined) return linked;
    const callId = message.tool_call_id;
    if (typeof callId === 'string') {
      const tracer = tracerOfCall(callId);
      if (tracer !== undefined) return tracer;
    }
    for (const call of message.tool_calls ?? []) {
      const tracer = tracerOfCall(call.id);
      if (tracer !== undefined) return tracer;
    }
  }
  return undefined;
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
