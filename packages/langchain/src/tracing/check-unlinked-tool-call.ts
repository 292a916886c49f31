import {
  type Block,
  blocksToEvents,
  PolicyViolationError,
  recordToolResult,
  reviewToolCall,
  type ToolCallPolicy,
  type ToolCallReview,
  type Trace,
  type Tracer,
  violationSummary,
} from '@tracewarden/core';

/**
 * How a tool run no model call proposed is judged: a plain `tool.invoke(args)`, or a run whose
 * call id no recorded TOOL_CALL has. A model's calls are reviewed by core's recorder when the
 * model call ends; these never pass through a model call, so the adapter reviews them itself,
 * before the tool body runs, against the trace so far. @internal
 */
export interface UnlinkedCallPolicy {
  readonly policy: ToolCallPolicy;
  readonly mode: 'throw' | 'refuse';
  readonly refusalMessage: ((review: ToolCallReview) => string) | undefined;
}

/** The call being judged. @internal */
export interface UnlinkedCall {
  readonly callId: string;
  readonly name: string;
  /** The tool's arguments (parsed). */
  readonly arguments: Record<string, unknown>;
}

/** The trace's chat events without the judged call's own TOOL_CALL and results. */
function eventsWithout(tracer: Tracer | undefined, callId: string): Trace {
  if (tracer === undefined) return [];
  const blocks = tracer.blocks();
  if (blocks.length === 0) return [];
  const others = blocks.filter(
    (block: Block) =>
      (block.sub_type !== 'TOOL_CALL' && block.sub_type !== 'TOOL_RESULT') ||
      (block.payload as { call_id?: unknown }).call_id !== callId,
  );
  return blocksToEvents(others, { fidelity: 'chat' });
}

/**
 * Checks a tool run no model call proposed against the policy, on the trace it records into.
 * @returns the review (a refusal text when blocked in `refuse` mode)
 * @internal
 */
export function reviewUnlinkedToolCall(
  tracer: Tracer | undefined,
  settings: UnlinkedCallPolicy,
  call: UnlinkedCall,
): ToolCallReview {
  return reviewToolCall(
    settings.policy,
    eventsWithout(tracer, call.callId),
    { id: call.callId, name: call.name, arguments: call.arguments },
    { onPolicyViolation: settings.mode, refusalMessage: settings.refusalMessage },
  );
}

/**
 * The TOOL_CALL metadata of a reviewed call, as core's recorder writes it for a model's calls
 * (`policy` decision and `violations`), or nothing when no rule matched.
 * @internal
 */
export function reviewMetadata(review: ToolCallReview): Record<string, unknown> | undefined {
  if (review.violations.length === 0) return undefined;
  return { policy: review.decision, violations: violationSummary(review.violations) };
}

/**
 * The error that stops a blocked call: its refusal as the message in `refuse` mode (an agent's
 * tool node hands it to the model), else the blocking violations.
 * @internal
 */
export function blockingError(review: ToolCallReview): PolicyViolationError {
  if (review.refusal !== undefined)
    return new PolicyViolationError({ violations: review.violations, message: review.refusal });
  return new PolicyViolationError({
    violations: review.violations.filter((violation) => violation.action === 'block'),
  });
}

/**
 * Records a blocked call's TOOL_RESULT (the tool never ran): `failure`, `refused`, the policy's
 * decision and violations, as core records a refused model call.
 * @internal
 */
export function recordBlockedResult(
  tracer: Tracer,
  review: ToolCallReview,
  error: PolicyViolationError,
  toolName: string,
): void {
  recordToolResult(tracer, {
    callId: review.call.id,
    output: review.refusal ?? error.message,
    metadata: {
      status: 'failure',
      refused: true,
      policy: 'block',
      tool_name: toolName,
      violations: violationSummary(review.violations),
    },
  });
}
