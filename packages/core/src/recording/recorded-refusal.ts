import type { Tracer } from '../tracing/types.js';
import { canonicalJson } from './refusals.js';
import { refusalWording } from './tool-call-review.js';

/**
 * The refusal a trace holds for a tool call its policy blocked, for a tool about to run that
 * call again: a retry (LangChain's `toolRetryMiddleware`, `tool.withRetry()`), the same tool call
 * invoked twice. The verdict a model call hands to the tools (`refusalFor`) is taken by the
 * first run; the trace is where the call stays blocked. Returns the refusal the trace recorded
 * as the call's TOOL_RESULT (`refuse` mode), else the default wording from the TOOL_CALL's
 * violations (`throw` mode).
 *
 * A run with other arguments than the blocked call's is not that call run again: `undefined`
 * (it is judged as any other run is).
 * @param tracer - the trace the call belongs to
 * @param callId - the model's tool call id
 * @param toolName - the tool about to run
 * @param args - the arguments it is about to run with (an object or JSON text)
 * @returns the refusal to answer instead of running, or `undefined` when the trace holds no
 *   blocked call of this tool under this id with these arguments
 * @example
 * ```ts
 * const refusal = refusalFor(callId, 'send_email', input) ?? recordedRefusal(tracer, callId, 'send_email', input);
 * if (refusal !== undefined) throw new PolicyViolationError({ violations: [], message: refusal });
 * ```
 */
export function recordedRefusal(
  tracer: Tracer,
  callId: string,
  toolName: string,
  args: unknown,
): string | undefined {
  if (callId === '') return undefined;
  const call = tracer.findToolCall(callId);
  if (call === undefined || call.metadata.policy !== 'block' || call.payload.name !== toolName)
    return undefined;
  const blocked = canonicalJson(call.payload.arguments);
  if (blocked !== undefined && blocked !== canonicalJson(args)) return undefined;
  // a blocked call is rare: its refusal is searched for, newest first
  const blocks = tracer.blocks();
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i];
    if (
      block?.sub_type === 'TOOL_RESULT' &&
      block.parent_block_id === call.id &&
      block.metadata.refused === true &&
      typeof block.payload.output === 'string'
    )
      return block.payload.output;
  }
  const violations = call.metadata.violations;
  return refusalWording(
    toolName,
    Array.isArray(violations) ? (violations as { message?: unknown; action?: unknown }[]) : [],
  );
}
