import {
  type Block,
  blocksToEvents,
  type PolicyViolation,
  PolicyViolationError,
  recordToolResult,
  type ToolCallPolicy,
  type ToolCallReview,
  type Tracer,
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

/** Core's default refusal text (`createModelCallRecorder`'s), so both paths read alike. */
function defaultRefusal(review: ToolCallReview): string {
  const first =
    review.violations.find((violation) => violation.action === 'block') ?? review.violations[0];
  return `Tool call ${review.call.name} was blocked by policy: ${first?.message ?? 'not allowed'}. It was not executed.`;
}

/** The trace's chat events without the judged call's own TOOL_CALL and results. */
function eventsWithout(tracer: Tracer | undefined, callId: string): unknown[] {
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
  const verdict = settings.policy.checkToolCall(eventsWithout(tracer, call.callId) as never, {
    id: call.callId,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  });
  const violations = verdict.violations;
  let decision: ToolCallReview['decision'] = 'allow';
  if (!verdict.allowed) decision = 'block';
  else if (violations.some((violation) => violation.action === 'warn')) decision = 'warn';
  else if (violations.length > 0) decision = 'log';
  const review: ToolCallReview = {
    call: { id: call.callId, name: call.name, arguments: call.arguments },
    allowed: verdict.allowed,
    decision,
    violations,
  };
  if (!verdict.allowed && settings.mode === 'refuse')
    review.refusal = (settings.refusalMessage ?? defaultRefusal)(review);
  return review;
}

function violationSummary(violations: readonly PolicyViolation[]): Record<string, unknown>[] {
  return violations.map((violation) => ({
    message: violation.message,
    action: violation.action,
    key: violation.key,
    rule: violation.rule.name ?? violation.rule.index,
    addresses: violation.addresses,
  }));
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
