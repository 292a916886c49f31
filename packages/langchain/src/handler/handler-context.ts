import { type AdapterRuntime, type Tracer, TracewardenError } from '@tracewarden/core';
import type { UnlinkedCallPolicy } from '../tracing/check-unlinked-tool-call.js';
import { ReviewedCalls } from '../tracing/reviewed-calls.js';
import { RefusedCalls } from './refused-calls.js';
import type { RunRegistry } from './run-registry.js';

/**
 * What a handler's model runs and tool runs share: the adapter runtime, the open runs, the
 * handler's settings, and how a failure is dealt with.
 * @internal
 */
export class HandlerContext {
  /** With a policy: the calls this handler's model calls proposed, for runs without a call id. */
  readonly reviewed = new ReviewedCalls();
  /** Whether a refused call stays in the answer and its tool run is refused (`refuse` mode). */
  readonly refuse: boolean;
  /** `refuse` mode: the refused calls, until the next request re-sends what the model read. */
  readonly refused = new RefusedCalls();
  /**
   * Set while core words the refusals of calls whose tool run the handler will stop inside an
   * agent's tool node: they are recorded as that node answers the model (`refusal-wording.ts`).
   */
  toolNodeRefusals = false;

  /**
   * @param runtime - core's recorder and the resolved options
   * @param runs - the open runs and their traces
   * @param givenTracer - the handler's `tracer` option
   * @param blocking - whether the handler raises errors (guards, timeout or policy)
   * @param unlinkedPolicy - with a policy: how tool runs no model call proposed are judged
   * @param report - where a recording failure goes (`onRecordingError`)
   */
  constructor(
    readonly runtime: AdapterRuntime,
    readonly runs: RunRegistry,
    readonly givenTracer: Tracer | undefined,
    readonly blocking: boolean,
    readonly unlinkedPolicy: UnlinkedCallPolicy | undefined,
    readonly report: (error: unknown) => void,
  ) {
    this.refuse = runtime.recorder.onPolicyViolation === 'refuse' && runtime.recorder.hasPolicy;
  }

  /** Rethrows our typed errors (a guard's or the policy's decision) when blocking; reports others. */
  fail(error: unknown): void {
    if (this.blocking && TracewardenError.isInstance(error)) throw error;
    this.report(error);
  }
}
