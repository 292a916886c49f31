import {
  canonicalJson,
  type ModelCallOutcome,
  parseToolArguments,
  type Tracer,
} from '@tracewarden/core';

/**
 * The tracer that recorded a response object handed to the caller (a `ChatCompletion`, its
 * choices' messages, a Responses-API `Response`, a stream's final `Response`). Weak: the link
 * lives as long as the object.
 */
const byObject = new WeakMap<object, Tracer>();

/**
 * The tracers that recorded each proposed tool call, by call id, newest last: for objects we never
 * see (the SDK's stream helpers build their final completion themselves, users aggregate raw
 * chunks). Several, because ids repeat across conversations (local servers number calls per
 * response: `call_0`). Bounded, oldest ids first out; tracers are held weakly.
 */
const byCallId = new Map<string, WeakRef<Tracer>[]>();
const maxCallIds = 4096;
/** Tracers remembered per call id: the newest conversations that used it. */
const maxTracersPerId = 16;

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
    const id = review.call.id;
    const known = byCallId.get(id) ?? [];
    byCallId.delete(id);
    const others = known.filter((other) => {
      const held = other.deref();
      return held !== undefined && held !== tracer;
    });
    others.push(reference);
    byCallId.set(id, others.slice(-maxTracersPerId));
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

/** A tool call as `executeToolCalls` runs it: its id, tool name and JSON arguments. */
export interface LinkedCall {
  id: string;
  name: string;
  arguments: string;
  /** A custom tool call's input (recorded as the arguments `{ input }`). */
  input?: string | undefined;
}

/** Whether `tracer` holds a TOOL_RESULT under the TOOL_CALL block `callBlockId` (after it). */
function answered(tracer: Tracer, callBlockId: string): boolean {
  const blocks = tracer.blocks();
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i];
    if (block === undefined || block.id === callBlockId) return false;
    if (block.sub_type === 'TOOL_RESULT' && block.parent_block_id === callBlockId) return true;
  }
  return false;
}

let ambiguityWarned = false;

/**
 * A call's arguments as its TOOL_CALL records them (canonical JSON text, to compare), with the
 * text kept as `invalid_arguments` when it is no JSON object; a custom tool call's input as
 * `{ input }`.
 */
function recordedArguments(call: LinkedCall): { args: string | undefined; invalid?: string } {
  if (call.input !== undefined) return { args: canonicalJson({ input: call.input }) };
  const parsed = parseToolArguments(call.arguments);
  const args = canonicalJson(parsed.value);
  return parsed.valid ? { args } : { args, invalid: call.arguments };
}

/**
 * The tracer that recorded these tool calls, if a wrapped client did: among the traces that
 * recorded the first call's id, the one whose TOOL_CALL under that id has the same tool and
 * arguments and still waits for its result. Ids repeat across conversations (`call_0`): the id
 * alone filed one user's tool output in another user's trace. When two traces wait for the very
 * same call, nothing tells them apart: neither is chosen (said once), and the result is recorded
 * only where the caller names the trace (`tracer`, `withTrace`).
 * @internal
 */
export function tracerOfCalls(calls: readonly LinkedCall[]): Tracer | undefined {
  for (const call of calls) {
    const candidates = byCallId.get(call.id);
    if (candidates === undefined) continue;
    const { args, invalid } = recordedArguments(call);
    let newest: Tracer | undefined;
    const waiting: Tracer[] = [];
    for (const reference of candidates) {
      const tracer = reference.deref();
      const recorded = tracer?.findToolCall(call.id);
      if (tracer === undefined || recorded === undefined || recorded.payload.name !== call.name)
        continue;
      if (canonicalJson(recorded.payload.arguments) !== args) continue;
      if (invalid !== undefined && recorded.payload.invalid_arguments !== invalid) continue;
      newest = tracer;
      if (!answered(tracer, recorded.id)) waiting.push(tracer);
    }
    if (waiting.length === 1) return waiting[0];
    if (waiting.length > 1) {
      if (!ambiguityWarned) {
        ambiguityWarned = true;
        process.emitWarning(
          `tracewarden: executeToolCalls could not tell which trace a result of tool call ${call.id} (${call.name}) belongs to: ${waiting.length} conversations wait for that very call, so it was filed in neither. Pass { tracer } (or run the conversation in withTrace) so each result lands in its own trace.`,
          { code: 'TRACEWARDEN_AMBIGUOUS_CALL_ID' },
        );
      }
      return undefined;
    }
    if (newest !== undefined) return newest;
  }
  return undefined;
}
