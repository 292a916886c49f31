import type { ModelCallOutcome, Tracer } from '@tracewarden/core';

/**
 * The tracer that recorded a response object handed to the caller (a `ChatCompletion`, its
 * choices' messages, a Responses-API `Response`, a stream's final `Response`). Weak: the link
 * lives as long as the object.
 */
const byObject = new WeakMap<object, Tracer>();

/**
 * The tracer that recorded each proposed tool call, by call id: for objects we never see (the
 * SDK's stream helpers build their final completion themselves, users aggregate raw chunks).
 * Bounded, oldest first out; tracers are held weakly.
 */
const byCallId = new Map<string, WeakRef<Tracer>>();
const maxCallIds = 4096;

/**
 * Remembers that `tracer` recorded `data` (and, for a chat completion, each choice's message)
 * and the outcome's tool calls, so that `executeToolCalls` records their results in the same
 * trace without being told which. Only a response that proposed tool calls is linked: without
 * any there is nothing for `executeToolCalls` to record, and a WeakMap entry per call would
 * cost every garbage collection for as long as the response lives (the trace keeps it as `raw`).
 * @internal
 */
export function linkRecorded(
  tracer: Tracer,
  data: unknown,
  outcome: ModelCallOutcome | undefined,
): void {
  if (outcome === undefined || outcome.toolCalls.length === 0) return;
  if (typeof data === 'object' && data !== null) {
    byObject.set(data, tracer);
    const choices = (data as { choices?: unknown }).choices;
    if (Array.isArray(choices)) {
      for (const choice of choices as { message?: unknown }[]) {
        const message = choice?.message;
        if (typeof message === 'object' && message !== null) byObject.set(message, tracer);
      }
    }
  }
  const reference = new WeakRef(tracer);
  for (const review of outcome.toolCalls) {
    byCallId.delete(review.call.id);
    byCallId.set(review.call.id, reference);
  }
  if (byCallId.size > maxCallIds) {
    let excess = byCallId.size - maxCallIds;
    for (const key of byCallId.keys()) {
      if (excess-- <= 0) break;
      byCallId.delete(key);
    }
  }
}

/**
 * The tracer linked to a response object by {@link linkRecorded}. @internal
 */
export function tracerOfObject(source: object): Tracer | undefined {
  return byObject.get(source);
}

/**
 * The tracer that recorded the first of these tool calls, if a wrapped client did. @internal
 */
export function tracerOfCalls(callIds: readonly string[]): Tracer | undefined {
  for (const id of callIds) {
    const tracer = byCallId.get(id)?.deref();
    if (tracer !== undefined) return tracer;
  }
  return undefined;
}
