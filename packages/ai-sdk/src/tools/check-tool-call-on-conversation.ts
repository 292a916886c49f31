import {
  type NeutralMessage,
  PolicyViolationError,
  recordToolResult,
  refusalFor,
  reviewToolCall,
  type ToolCallPolicy,
  type Trace,
  type Tracer,
  violationSummary,
  warnRecordingError,
} from '@tracewarden/core';
import { promptToNeutral } from '../model/prompt-to-neutral.js';
import { modelErrorText } from './model-error-text.js';

/**
 * The error a blocked call's tool rejects with: a `PolicyViolationError` whose text, as the AI SDK
 * hands it to the model (`error.toString()`), is the refusal alone, not `PolicyViolationError: …`:
 * the model reads the refusal (a custom `refusalMessage` word for word), as with `wrapOpenAI`, and
 * the trace records that same text.
 */
function refusalError(
  message: string,
  violations: ConstructorParameters<typeof PolicyViolationError>[0]['violations'],
): PolicyViolationError {
  const error = new PolicyViolationError({ violations, message });
  Object.defineProperty(error, 'toString', {
    value: () => message,
    configurable: true,
    writable: true,
  });
  return error;
}

/**
 * The conversation the SDK hands a tool, as chat events, without the call itself (its proposal
 * and any answer to it): the policy judges the call as proposed after what came before.
 */
function eventsBefore(messages: unknown, callId: string): Trace {
  const neutral = promptToNeutral(
    Array.isArray(messages) ? (messages as { role: string; content: unknown }[]) : [],
  );
  const events: NeutralMessage[] = [];
  for (const message of neutral) {
    if (message.role === 'tool' && message.tool_call_id === callId) continue;
    const calls = message.tool_calls;
    if (calls?.some((call) => call.id === callId)) {
      const others = calls.filter((call) => call.id !== callId);
      const { tool_calls: _all, ...rest } = message;
      events.push(others.length > 0 ? { ...rest, tool_calls: others } : rest);
    } else events.push(message);
  }
  return events as unknown as Trace;
}

/**
 * Checks a tool call against the policy on the conversation the AI SDK hands the tool, before
 * the tool runs: a tool approval resumed in another process (a serverless route, `useChat`)
 * runs the approved call before any model call, so the verdict the first process reached is not
 * here. Every call is checked, reviewed here or not: a verdict waiting under the call's id may be
 * another conversation's (ids such as `call_0` repeat), so it cannot vouch for this call. The
 * caller then also takes the model call's verdict (`refusalFor`): the strictest stands.
 * @param policy - the policy
 * @param messages - the conversation the AI SDK hands the tool (`ModelMessage[]`)
 * @param call - the call about to run
 * @param tracer - where the blocked result is recorded, when its TOOL_CALL is there
 * @returns the error to reject with when the policy blocks the call, else `undefined`
 * @internal
 */
export function checkToolCallOnConversation(
  policy: ToolCallPolicy,
  messages: unknown,
  call: { id: string; name: string; input: unknown },
  tracer: Tracer | undefined,
): PolicyViolationError | undefined {
  const args =
    typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input)
      ? (call.input as Record<string, unknown>)
      : { input: call.input };
  const review = reviewToolCall(
    policy,
    eventsBefore(messages, call.id),
    { id: call.id, name: call.name, arguments: args },
    { onPolicyViolation: 'refuse' },
  );
  if (review.allowed) return undefined;
  const message = review.refusal ?? `Tool call ${call.name} was blocked by policy.`;
  const error = refusalError(message, review.violations);
  if (tracer !== undefined && call.id !== '') {
    const violations = violationSummary(review.violations);
    try {
      if (tracer.findToolCall(call.id) !== undefined)
        recordToolResult(tracer, {
          callId: call.id,
          output: message,
          metadata: {
            status: 'failure',
            refused: true,
            policy: 'block',
            tool_name: call.name,
            violations,
          },
        });
      else {
        // no model call recorded it (guardTools without the middleware): the call and its
        // refusal are recorded here, as a guarded run records an allowed one
        const timestamp = new Date().toISOString();
        tracer.recordEntry({
          call: {
            call_id: call.id,
            tool_name: call.name,
            args: [],
            kwargs: args,
            timestamp,
            session_id: null,
            metadata: { policy: 'block', violations },
          },
          result: {
            call_id: call.id,
            tool_name: call.name,
            status: 'failure',
            // what the model reads of the refusal (the AI SDK's error-text)
            return_value: modelErrorText(error),
            exception: null,
            exception_type: null,
            execution_time_ms: 0,
            retry_count: 0,
            validations: [],
            hallucination: null,
            cost: null,
            timestamp,
            metadata: { refused: true, policy: 'block', violations },
          },
        });
      }
    } catch (error) {
      // the refusal stands without its record (a full or closed trace); said, not lost
      warnRecordingError(error);
    }
  }
  return error;
}

/**
 * Why a tool call the AI SDK is about to run must not run, if it must not: the model call's
 * verdict on it, taken first (re-checked when the SDK changed its arguments), then, with a
 * policy, the check on the conversation ({@link checkToolCallOnConversation}). The strictest
 * stands; taking the verdict first keeps a refused one from waiting on for another call.
 * @param policy - the tool's (or integration's) policy, if any
 * @param messages - the conversation the AI SDK hands the tool
 * @param call - the call about to run
 * @param tracer - where a blocked result is recorded
 * @returns the error to reject with, or `undefined` to run
 * @internal
 */
export function toolCallRefusal(
  policy: ToolCallPolicy | undefined,
  messages: unknown,
  call: { id: string; name: string; input: unknown },
  tracer: Tracer | undefined,
): PolicyViolationError | undefined {
  const refusal = refusalFor(call.id, call.name, call.input);
  if (refusal !== undefined) return refusalError(refusal, []);
  return policy === undefined
    ? undefined
    : checkToolCallOnConversation(policy, messages, call, tracer);
}
