import { BudgetExceededError } from '../guards/budget-exceeded-error.js';
import { GuardTimeoutError } from '../guards/guard-timeout-error.js';
import type { GuardDecision } from '../guards/types.js';
import type { PolicyViolation } from '../policy/policy-types.js';
import { PolicyViolationError } from '../policy/policy-violation-error.js';
import type { Tracer } from '../tracing/types.js';
import { type AdmittedCall, admitCall, type CallAdmission } from './call-admission.js';
import { isAbort, isSdkTimeout, isTimeout } from './call-ending.js';
import { recordRequest } from './conversation-history.js';
import type { ChainKey } from './message-fingerprint.js';
import { normalizeFinishReason } from './normalize-finish-reason.js';
import { recordAnswer } from './record-answer.js';
import { guardStatusOf, type RecorderCore } from './recorder-core.js';
import { errorSummary, lastRequestId, responseMetadata, roundMs } from './response-metadata.js';
import { type AggregatedOutput, StreamedOutput } from './streamed-output.js';
import {
  recheckToolCall,
  reviewReadMessages,
  reviewToolCalls,
  violationSummary,
} from './tool-call-review.js';
import { callEnded, callStarted, stateOf, type TracerState } from './tracer-state.js';
import type {
  ModelCallAttempt,
  ModelCallCost,
  ModelCallDelta,
  ModelCallGuardTicket,
  ModelCallHandle,
  ModelCallOutcome,
  ModelCallResponse,
  ModelCallStartInput,
  ModelCallStatus,
  ReviewedCalls,
  ToolCallReview,
} from './types.js';

/*
 * The call lifecycle: one model call from its guards' admission through the streamed pieces to
 * exactly one end (finished, failed, cancelled, timed out): its guards settled and its metadata
 * built here, then its answer recorded (record-answer.ts).
 */

const noTickets: readonly ModelCallGuardTicket[] = Object.freeze([]);

/**
 * Gives back what admission holds for a call that never ran: every ticket, even when one throws
 * (a custom guard's; reported as a recording error).
 */
function releaseTickets(tickets: readonly ModelCallGuardTicket[], core: RecorderCore): void {
  for (const ticket of tickets) {
    try {
      if (ticket.release !== undefined) ticket.release();
      else ticket.settle?.({ status: 'cancelled', costMicroUsd: 0 });
    } catch (error) {
      core.onRecordingError(error);
    }
  }
}
const ignore = (): void => {};

/**
 * One model call in flight. A class (not closures) so that starting a call allocates one object:
 * this is on every model call's path.
 */
export class ModelCall implements ModelCallHandle, AdmittedCall {
  readonly tracer: Tracer;
  /** What the recorder remembers of this tracer (looked up once per call). */
  private readonly state: TracerState;
  private readonly core: RecorderCore;
  private readonly input: ModelCallStartInput;
  private readonly startedAt: number;
  private readonly prefixKey: ChainKey;
  private controller: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private onUserAbort: (() => void) | undefined;
  private stopReason: Error | undefined;
  private tickets: readonly ModelCallGuardTicket[] = noTickets;
  /** Set when a guard decides asynchronously (see {@link ModelCallHandle.admission}). */
  admission: Promise<void> | undefined = undefined;
  /** Guard decisions; only guards make them, so there is no array without guards. */
  private decisions: GuardDecision[] | undefined;
  /**
   * The HTTP attempts, made on the first one as a one-element array: the trace keeps it, and an
   * array grown from empty by `push` carries room for 17.
   */
  private attempts: ModelCallAttempt[] | undefined;
  private done = false;
  /** With a policy: the violations of what the model read in this request (set at finish). */
  private read: PolicyViolation[] | undefined = undefined;
  /** The response as it streams in. */
  private readonly streamed = new StreamedOutput();
  private firstTokenAt: number | undefined;
  // live budget cut-off: a linear price per output character, fixed at the start
  private liveChecks: ModelCallGuardTicket[] | undefined;
  private inputCostMicro = 0;
  private outputMicroPerChar = 0;
  /** Output characters of the largest chunk so far: the expected size of the next one. */
  private largestChunkChars = 0;

  constructor(core: RecorderCore, tracer: Tracer, input: ModelCallStartInput) {
    this.core = core;
    this.tracer = tracer;
    this.state = stateOf(tracer);
    this.input = input;
    this.startedAt = core.clock();
    const pending = core.guards.length > 0 ? this.admit() : undefined;
    core.pricer?.prepare?.();
    const userSignal = input.signal;
    if (userSignal) {
      const controller = this.abortController();
      if (userSignal.aborted) controller.abort(userSignal.reason);
      else {
        this.onUserAbort = () => controller.abort(userSignal.reason);
        userSignal.addEventListener('abort', this.onUserAbort, { once: true });
      }
    }
    const timeoutMs = core.timeoutMs;
    if (timeoutMs !== undefined) {
      this.abortController();
      this.timer = setTimeout(() => {
        this.stop(
          new GuardTimeoutError({
            message: `model call to ${input.model} did not finish within ${timeoutMs / 1000} s (timeoutSeconds); raise it or shorten the request`,
            toolName: input.model,
          }),
        );
      }, timeoutMs);
    }
    this.prefixKey = recordRequest(core, tracer, this.state, input.messages);
    callStarted(this.state, tracer, this);
    if (this.controller !== undefined) this.endWhenUnread(this.controller.signal);
    // watched once the call is whole (its request recorded, its signal linked to the caller's,
    // which may have aborted already)
    if (pending !== undefined) {
      const admission = this.admittedUnlessStopped(pending);
      // an adapter awaits it and gets the refusal; unawaited, it is no unhandled rejection
      admission.catch(ignore);
      this.admission = admission;
    }
  }

  /**
   * After the deadline or the caller's abort, a call that no adapter ended by the next macrotask
   * is ended here: a stream handed to the caller but never read (nothing reads it, so nothing
   * reports its end) would otherwise stay unrecorded, its budget reservation held for good.
   * Adapters that read have their turn first, and record the end with what they hold.
   */
  /** Why {@link endWhenUnread} ended the call (the stop, or the caller's abort reason). */
  private endedUnread: unknown = undefined;

  private endWhenUnread(signal: AbortSignal): void {
    const endLater = () => {
      setTimeout(() => {
        if (this.done) return;
        this.endedUnread = this.stopReason ?? signal.reason;
        try {
          this.end(this.endedUnread, this.input.signal);
        } catch (error) {
          this.core.onRecordingError(error);
        }
      }, 0);
    };
    if (signal.aborted) endLater();
    else signal.addEventListener('abort', endLater, { once: true });
  }

  /**
   * Asks the guards to admit the call ({@link admitCall}); a refusal is recorded (with the
   * request) and thrown. A guard that answers with a promise (a shared store) makes the rest of
   * admission asynchronous: that promise is returned, for {@link admission}.
   */
  private admit(): Promise<CallAdmission> | undefined {
    const admitted = admitCall(this.core, this.input, this);
    if (admitted instanceof Promise) return admitted;
    this.admitted(admitted);
    return undefined;
  }

  /** The call ended or its signal aborted: guards still to answer need not be asked. @internal */
  get ended(): boolean {
    return this.done || this.controller?.signal.aborted === true;
  }

  /**
   * An asynchronous admission that also ends when the call's signal aborts first (its timeout,
   * the caller's signal): a stalled store never holds a call past its deadline. The call is then
   * recorded as ended (timed out, cancelled) here, whatever the adapter does with the rejection,
   * and the store's late answer is given back ({@link admitted}).
   */
  private admittedUnlessStopped(admitted: Promise<CallAdmission>): Promise<void> {
    const signal = this.abortController().signal;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        // a refusal ended the call already; a deadline (ours or the caller's: timed out) or the
        // caller (cancelled) ends it now, as `end` decides for any adapter
        try {
          if (!this.done) this.end(signal.reason, this.input.signal);
        } catch (error) {
          this.core.onRecordingError(error);
        }
        reject(signal.reason);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      admitted.then(
        (admission) => {
          signal.removeEventListener('abort', onAbort);
          this.admitted(admission);
          resolve();
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /** Every guard admitted the call: keeps their tickets, decisions and live cost checks. */
  private admitted(admission: CallAdmission): void {
    if (this.ended) {
      // ended or aborted (cancelled, timed out) while a shared store was still answering:
      // nothing was sent, so what the guards hold for it is given back at once
      releaseTickets(admission.tickets, this.core);
      return;
    }
    this.tickets = admission.tickets;
    if (admission.decisions !== undefined) this.decisions = admission.decisions;
    this.liveChecks = admission.liveChecks;
    this.inputCostMicro = admission.inputCostMicro;
    this.outputMicroPerChar = admission.outputMicroPerChar;
  }

  /**
   * Records a refused call (the request and an empty assistant MESSAGE) and throws `error`
   * ({@link admitCall} calls it).
   * @internal
   */
  refuse(
    admitted: readonly ModelCallGuardTicket[],
    decisions: GuardDecision[] | undefined,
    guardName: string,
    error: unknown,
  ): never {
    const { core, input, tracer } = this;
    releaseTickets(admitted, this.core);
    // refused after the call ended (a shared store answered late): it is recorded already
    if (this.done) throw error;
    this.done = true;
    callEnded(this.state, this);
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.onUserAbort !== undefined)
      this.input.signal?.removeEventListener('abort', this.onUserAbort);
    // refused after the call started (an asynchronous guard): the adapter may already hold the
    // signal, which now aborts with the refusal, and ending the call returns it
    if (this.admission !== undefined && error instanceof Error) this.stop(error);
    const status = guardStatusOf(error, 'failure');
    recordRequest(core, tracer, this.state, input.messages);
    core.safely(() =>
      tracer.logMessage({
        role: 'assistant',
        content: null,
        metadata: {
          provider: input.provider,
          ...(input.api === undefined ? {} : { api: input.api }),
          model: input.model,
          status,
          error: errorSummary(error),
          decisions: [
            ...(decisions ?? []),
            { guard: guardName, event: 'refused', action: 'block' },
          ],
          attempts: [],
        },
      }),
    );
    throw error;
  }

  private abortController(): AbortController {
    this.controller ??= new AbortController();
    return this.controller;
  }

  get signal(): AbortSignal {
    return this.abortController().signal;
  }

  get stopped(): boolean {
    return this.stopReason !== undefined;
  }

  private stop(reason: Error): void {
    if (this.stopReason !== undefined) return;
    this.stopReason = reason;
    this.abortController().abort(reason);
  }

  attempt(attempt: Omit<ModelCallAttempt, 'attempt'> & { attempt?: number }): void {
    const attempts = this.attempts;
    const number = attempt.attempt ?? (attempts === undefined ? 0 : attempts.length) + 1;
    let entry: ModelCallAttempt;
    if (
      attempt.http_status !== undefined &&
      attempt.error === undefined &&
      attempt.request_id !== undefined
    ) {
      // The usual attempt (a response with a request id) as one literal: the trace keeps it, and
      // fields added one by one would also keep a separate property store.
      entry = {
        attempt: number,
        http_status: attempt.http_status,
        outcome: attempt.outcome,
        duration_ms: attempt.duration_ms,
        request_id: attempt.request_id,
      };
    } else {
      // Field by field (a spread after a literal field, or Object.assign, is several times slower).
      entry = { attempt: number } as ModelCallAttempt;
      if (attempt.http_status !== undefined) entry.http_status = attempt.http_status;
      entry.outcome = attempt.outcome;
      entry.duration_ms = attempt.duration_ms;
      if (attempt.error !== undefined) entry.error = attempt.error;
      if (attempt.request_id !== undefined) entry.request_id = attempt.request_id;
    }
    if (attempts === undefined) this.attempts = [entry];
    else attempts.push(entry);
  }

  chunk(delta: ModelCallDelta): Error | undefined {
    if (this.done) return undefined;
    if (this.firstTokenAt === undefined && (delta.text || delta.reasoning || delta.toolCalls))
      this.firstTokenAt = this.core.clock();
    // Under a live budget the output is measured in quarter tokens (wide scripts count a token a
    // character); otherwise its length is all anyone reads.
    const chunkChars = this.streamed.add(delta, this.liveChecks !== undefined);
    const liveChecks = this.liveChecks;
    if (liveChecks !== undefined) {
      if (chunkChars > this.largestChunkChars) this.largestChunkChars = chunkChars;
      const estimate = this.runningEstimate();
      // The next chunk is assumed as large as the largest so far: stop before it would pass.
      const nextIncrement = Math.ceil(this.largestChunkChars * this.outputMicroPerChar);
      for (const ticket of liveChecks) {
        if (ticket.allowsRunningCost?.(estimate, nextIncrement) === false) {
          (this.decisions ??= []).push({
            guard: 'budget',
            event: 'cut_off',
            action: 'block',
            estimated_cost_micro_usd: estimate,
            next_chunk_micro_usd: nextIncrement,
          });
          const reason = new BudgetExceededError({
            message: `streamed response of ${this.input.model} was cut off at ~${estimate} micro-USD: one more chunk (~${nextIncrement} micro-USD) would exceed the budget; raise the budget or cap max tokens`,
            toolName: this.input.model,
          });
          this.stop(reason);
          return reason;
        }
      }
    }
    return undefined;
  }

  /** The running cost of a budget-watched stream, in micro-USD: input plus output so far. */
  private runningEstimate(): number {
    return Math.ceil(this.inputCostMicro + this.streamed.chars * this.outputMicroPerChar);
  }

  finish(response?: ModelCallResponse): ModelCallOutcome {
    if (this.done) {
      // stopped (a deadline, a budget) and recorded so already, say while nobody read its
      // stream: an answer that arrives after all is refused as the stop refused it
      if (this.stopReason !== undefined) throw this.stopReason;
      // ended after the caller's abort while nobody waited for it: an answer the provider sent
      // anyway is never handed on unreviewed
      if (this.endedUnread !== undefined) throw this.endedUnread;
      return { status: 'success', toolCalls: [], refused: false };
    }
    if (this.stopReason !== undefined) {
      const reason = this.stopReason;
      this.fail(reason, response);
      throw reason;
    }
    const output = this.streamed.aggregated(response);
    const reviews = reviewToolCalls(
      this.core,
      this.input.messages,
      output.text,
      output.calls,
      output.providerCalls,
    );
    let answerViolations: PolicyViolation[] = [];
    if (this.core.policy !== undefined) {
      const found = reviewReadMessages(this.core, this.input.messages, output.text);
      answerViolations = found.answer;
      this.read = found.answer.length > 0 ? [...found.read, ...found.answer] : found.read;
    }
    const failure = response?.failure;
    const outcome = this.record(
      failure === undefined ? 'success' : 'failure',
      response,
      output,
      failure,
      reviews,
    );
    if (reviews.length > 0 && this.core.policy !== undefined) {
      const { core, tracer, input } = this;
      outcome.recheck = (call) => recheckToolCall(core, tracer, input.messages, output.text, call);
      // after record(): it marks the calls the framework's tool refuses (`refusedAtTool`)
      if (input.onReviewed !== undefined) {
        const reviewed: ReviewedCalls = { mode: core.mode, reviews };
        // a rejected answer goes with its verdicts: the other recorder records it as this one
        // does (a call that succeeded, its calls blocked), not as the failure it sees
        if (core.mode === 'throw' && reviews.some((review) => !review.allowed))
          reviewed.answer = this.streamed.answer(response, output);
        core.safely(() => input.onReviewed?.(reviewed));
      }
    }
    if (this.core.mode === 'throw' && reviews.length > 0) {
      const blocked = reviews.filter((review) => !review.allowed);
      if (blocked.length > 0)
        throw new PolicyViolationError({
          violations: blocked.flatMap((review) => review.violations),
        });
    }
    // an answer a `block` rule forbids (a link only an injected output gave): recorded above
    // with its violations; in `throw` mode the call rejects, so the answer never reaches the
    // caller unstreamed (a stream ends with the error after its text)
    if (this.core.mode === 'throw' && answerViolations.some((v) => v.action === 'block'))
      throw new PolicyViolationError({ violations: answerViolations });
    return outcome;
  }

  fail(error: unknown, partial?: ModelCallResponse): unknown {
    if (this.done) return this.stopReason ?? error;
    const reason = this.stopReason;
    // The guard's error that stopped the call is what the caller sees; the SDK's abort error is
    // its cause.
    if (
      reason !== undefined &&
      error !== reason &&
      (reason as { cause?: unknown }).cause === undefined
    ) {
      Object.defineProperty(reason, 'cause', { value: error, configurable: true, writable: true });
    }
    // a guard's error from inside the call (an enforcing middleware within the AI SDK's
    // telemetry integration) stopped it too: recorded with that guard's status
    const ended = reason ?? error;
    this.record(
      guardStatusOf(ended, 'failure'),
      partial,
      this.streamed.aggregated(partial),
      ended,
      undefined,
    );
    return ended;
  }

  end(error: unknown, signal?: AbortSignal | null, partial?: ModelCallResponse): unknown {
    const callerSignal = signal ?? this.input.signal;
    // the SDK's own request deadline (openai's `timeout` option) is a timeout too
    if (this.stopReason === undefined && !this.done && isSdkTimeout(error)) {
      this.record('timeout', partial, this.streamed.aggregated(partial), error, undefined);
      return error;
    }
    if (this.stopReason === undefined && isAbort(error, callerSignal)) {
      // the framework's own deadline (the AI SDK's `timeout`, `AbortSignal.timeout()`) is a
      // timeout, not the caller changing their mind
      if (!this.done && isTimeout(error, callerSignal)) {
        this.record('timeout', partial, this.streamed.aggregated(partial), error, undefined);
        return error;
      }
      this.cancel(partial);
      return error;
    }
    return this.fail(error, partial);
  }

  /** The tracer shuts down while the call is in flight: recorded as cancelled, as it streamed. */
  endAtShutdown(): void {
    if (this.done) return;
    try {
      this.cancel({ metadata: { ended_by: 'tracer_shutdown' } });
    } catch (error) {
      this.core.onRecordingError(error);
    }
  }

  cancel(partial?: ModelCallResponse): void {
    if (this.done) return;
    const reason = this.stopReason;
    this.record(
      guardStatusOf(reason, 'cancelled'),
      partial,
      this.streamed.aggregated(partial),
      reason,
      undefined,
    );
  }

  /** Ends the call: settles the guards, records the response's blocks, returns the outcome. */
  private record(
    status: ModelCallStatus,
    response: ModelCallResponse | undefined,
    output: AggregatedOutput,
    error: unknown,
    reviews: ToolCallReview[] | undefined,
  ): ModelCallOutcome {
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.onUserAbort !== undefined)
      this.input.signal?.removeEventListener('abort', this.onUserAbort);
    const { core, input, tracer } = this;
    const endedAt = core.clock();
    const streamed = this.streamed;
    const usage = response?.usage ?? streamed.usage;
    const model = response?.model ?? streamed.model ?? input.model;
    const pricer = core.pricer;
    let cost: ModelCallCost | undefined;
    // try/catch in place of `safely(() => ...)`: no closure per call on this path
    if (usage !== undefined && pricer !== undefined) {
      try {
        cost = pricer(model, usage, input.provider);
      } catch (pricingError) {
        core.onRecordingError(pricingError);
      }
    }
    for (const ticket of this.tickets) {
      const settled = ticket.settle?.({ status, costMicroUsd: cost?.cost_micro_usd });
      if (settled !== undefined && settled.length > 0) (this.decisions ??= []).push(...settled);
    }
    if (
      cost === undefined &&
      usage === undefined &&
      this.liveChecks !== undefined &&
      streamed.chars > 0
    ) {
      // a stream that streamed output but ended without its usage (cut off by the budget,
      // cancelled): the running estimate the budget settled at (its decision says `estimated`),
      // so the trace shows what was charged. A request refused before any output costs nothing.
      const estimate = this.runningEstimate();
      cost = { cost_usd: estimate / 1e6, cost_micro_usd: estimate, pricing_source: 'estimate' };
    }
    // the array the trace keeps: later attempts (if any) still land in it
    this.attempts ??= [];
    const attempts = this.attempts;
    // the response's own reason over the stream's (the provider's kept only beside its own)
    const finishReason = response?.finishReason ?? streamed.finishReason;
    const providerFinishReason =
      (response?.finishReason === undefined
        ? streamed.providerFinishReason
        : response.providerFinishReason) ?? finishReason;
    const metadata = responseMetadata(
      {
        provider: input.provider,
        api: input.api,
        model,
        requestModel: input.model,
        status,
        stream: input.stream === true,
        latencyMs: roundMs(endedAt - this.startedAt),
        timeToFirstTokenMs:
          this.firstTokenAt === undefined ? null : roundMs(this.firstTokenAt - this.startedAt),
        requestId: response?.requestId ?? streamed.requestId ?? lastRequestId(attempts),
        attempts,
        responseId: response?.responseId ?? streamed.responseId,
        finishReason: normalizeFinishReason(finishReason, output.calls.length > 0),
        providerFinishReason,
        usage,
        cost,
      },
      response?.metadata,
    );
    const decisions = this.decisions;
    if (decisions !== undefined && decisions.length > 0) metadata.decisions = decisions;
    // rules on what the model read (a warn on an injected tool output): recorded on its answer
    const read = this.read;
    if (read !== undefined && read.length > 0) metadata.violations = violationSummary(read);
    if (error !== undefined) metadata.error = errorSummary(error);
    if (input.tools !== undefined && input.tools.length > 0)
      metadata.tools = input.tools.map((tool) => tool.name);
    return recordAnswer(
      core,
      tracer,
      this.state,
      input,
      this.prefixKey,
      status,
      response,
      output,
      reviews,
      metadata,
    );
  }
}
