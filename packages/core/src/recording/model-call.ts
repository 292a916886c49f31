import { BudgetExceededError } from '../guards/budget-exceeded-error.js';
import { GuardError } from '../guards/guard-error.js';
import { GuardTimeoutError } from '../guards/guard-timeout-error.js';
import type { GuardDecision } from '../guards/types.js';
import type { PolicyViolation } from '../policy/policy-types.js';
import { PolicyViolationError } from '../policy/policy-violation-error.js';
import type { Tracer } from '../tracing/types.js';
import { isAbort, isTimeout } from './call-ending.js';
import { recordRequest } from './conversation-history.js';
import {
  type ChainKey,
  mixChainKey,
  parseArguments,
  responseHashPair,
} from './message-fingerprint.js';
import { normalizeFinishReason } from './normalize-finish-reason.js';
import { guardStatuses, type RecorderCore } from './recorder-core.js';
import { recordResponseBlocks, traceCallId } from './response-blocks.js';
import { errorSummary, lastRequestId, responseMetadata, roundMs } from './response-metadata.js';
import { scrubRaw } from './scrub-raw.js';
import { estimateTokens, quarterTokens } from './token-estimate.js';
import {
  deliveredResponse,
  recheckToolCall,
  reviewReadMessages,
  reviewToolCalls,
  violationSummary,
} from './tool-call-review.js';
import { stateOf, type TracerState } from './tracer-state.js';
import type {
  ModelCallAttempt,
  ModelCallCost,
  ModelCallDelta,
  ModelCallGuard,
  ModelCallGuardContext,
  ModelCallGuardTicket,
  ModelCallHandle,
  ModelCallOutcome,
  ModelCallResponse,
  ModelCallStartInput,
  ModelCallStatus,
  ModelToolCall,
  ModelUsage,
  ToolCallReview,
} from './types.js';

/*
 * The call lifecycle: one model call from its guards' admission through the streamed pieces to
 * exactly one end (finished, failed, cancelled, timed out), then its response recorded.
 */

interface ToolCallSlot {
  id: string;
  name: string;
  arguments: string;
}

interface AggregatedOutput {
  text: string | null;
  reasoning: string;
  calls: ModelToolCall[];
  /** Indexes (in `calls`) of calls whose streamed arguments are not complete JSON. */
  partialCalls: Set<number> | undefined;
}

const noTickets: readonly ModelCallGuardTicket[] = Object.freeze([]);
const ignore = (): void => {};

/**
 * One model call in flight. A class (not closures) so that starting a call allocates one object:
 * this is on every model call's path.
 */
export class ModelCall implements ModelCallHandle {
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
  // streaming aggregation
  private text = '';
  private reasoning = '';
  private slots: ToolCallSlot[] | undefined;
  private usage: ModelUsage | undefined;
  private finishReason: string | undefined;
  private providerFinishReason: string | undefined;
  private responseModel: string | undefined;
  private responseId: string | undefined;
  private firstTokenAt: number | undefined;
  // live budget cut-off: a linear price per output character, fixed at the start
  private liveChecks: ModelCallGuardTicket[] | undefined;
  private inputCostMicro = 0;
  private outputMicroPerChar = 0;
  private outputChars = 0;
  /** Output characters of the largest chunk so far: the expected size of the next one. */
  private largestChunkChars = 0;

  constructor(core: RecorderCore, tracer: Tracer, input: ModelCallStartInput) {
    this.core = core;
    this.tracer = tracer;
    this.state = stateOf(tracer);
    this.input = input;
    this.startedAt = core.clock();
    if (core.guards.length > 0) this.admit();
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
  }

  /**
   * Runs the guards in order; a refusal is recorded (with the request) and thrown. A guard that
   * answers with a promise (a shared store) makes the rest of admission asynchronous: it goes on
   * in {@link admitLater}, and {@link admission} holds it.
   */
  private admit(): void {
    const { core, input } = this;
    const tickets: ModelCallGuardTicket[] = [];
    const context = {
      provider: input.provider,
      model: input.model,
      estimatedInputTokens: estimateTokens(input.messages),
    };
    const guards = core.guards;
    for (let i = 0; i < guards.length; i++) {
      const guard = guards[i] as ModelCallGuard;
      let ticket: ReturnType<ModelCallGuard['admit']>;
      try {
        ticket = guard.admit(context);
      } catch (error) {
        this.refuse(tickets, guard.name, error);
      }
      if (ticket instanceof Promise) {
        const admission = this.admitLater(ticket, i, tickets, context);
        // an adapter awaits it and gets the refusal; unawaited, it is no unhandled rejection
        admission.catch(ignore);
        this.admission = admission;
        return;
      }
      this.keep(ticket, tickets);
    }
    this.admitted(tickets, context);
  }

  /** {@link admit} from the guard at `index` on, once its promise settles. */
  private async admitLater(
    pending: Promise<ModelCallGuardTicket | undefined>,
    index: number,
    tickets: ModelCallGuardTicket[],
    context: ModelCallGuardContext,
  ): Promise<void> {
    const guards = this.core.guards;
    for (let i = index; i < guards.length; i++) {
      const guard = guards[i] as ModelCallGuard;
      let ticket: ModelCallGuardTicket | undefined;
      try {
        ticket = await (i === index ? pending : guard.admit(context));
      } catch (error) {
        this.refuse(tickets, guard.name, error);
      }
      this.keep(ticket, tickets);
    }
    this.admitted(tickets, context);
  }

  private keep(ticket: ModelCallGuardTicket | undefined, tickets: ModelCallGuardTicket[]): void {
    if (ticket === undefined) return;
    tickets.push(ticket);
    if (ticket.decisions) (this.decisions ??= []).push(...ticket.decisions);
  }

  /** Every guard admitted the call: keeps the tickets, prices the call for a budget. */
  private admitted(tickets: ModelCallGuardTicket[], context: ModelCallGuardContext): void {
    const { core, input } = this;
    this.tickets = tickets;
    let budgeted = false;
    for (const guard of core.guards) if (guard.name === 'budget') budgeted = true;
    const live = tickets.filter((ticket) => ticket.allowsRunningCost !== undefined);
    const pricer = core.pricer;
    if (pricer === undefined || (!budgeted && live.length === 0)) return;
    // A budget needs the model's price before the call: a model the table cannot price is
    // refused here (when the pricing says so) rather than counted as free afterwards.
    let perMillionIn: ModelCallCost | undefined;
    let perMillionOut: ModelCallCost | undefined;
    try {
      perMillionIn = pricer(
        input.model,
        { inputTokens: 1_000_000, outputTokens: 0 },
        input.provider,
      );
      perMillionOut = pricer(
        input.model,
        { inputTokens: 0, outputTokens: 1_000_000 },
        input.provider,
      );
    } catch (error) {
      this.refuse(tickets, 'budget', error);
    }
    if (live.length > 0) {
      this.liveChecks = live;
      this.inputCostMicro =
        ((perMillionIn?.cost_micro_usd ?? 0) / 1_000_000) * context.estimatedInputTokens;
      this.outputMicroPerChar = (perMillionOut?.cost_micro_usd ?? 0) / 1_000_000 / 4;
    }
  }

  /** Records a refused call (the request and an empty assistant MESSAGE) and throws `error`. */
  private refuse(
    admitted: readonly ModelCallGuardTicket[],
    guardName: string,
    error: unknown,
  ): never {
    const { core, input, tracer } = this;
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.onUserAbort !== undefined)
      this.input.signal?.removeEventListener('abort', this.onUserAbort);
    // refused after the call started (an asynchronous guard): the adapter may already hold the
    // signal, which now aborts with the refusal, and ending the call returns it
    if (this.admission !== undefined && error instanceof Error) this.stop(error);
    for (const ticket of admitted) ticket.settle?.({ status: 'cancelled', costMicroUsd: 0 });
    const status = GuardError.isGuardError(error)
      ? (guardStatuses[error.status] ?? 'failure')
      : 'failure';
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
            ...(this.decisions ?? []),
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
    const charsBefore = this.outputChars;
    // Under a live budget the output is measured in quarter tokens (wide scripts count a token a
    // character); otherwise its length is all anyone reads.
    const live = this.liveChecks !== undefined;
    if (delta.text) {
      this.text += delta.text;
      this.outputChars += live ? quarterTokens(delta.text) : delta.text.length;
    }
    if (delta.reasoning) {
      this.reasoning += delta.reasoning;
      this.outputChars += live ? quarterTokens(delta.reasoning) : delta.reasoning.length;
    }
    if (delta.toolCalls) {
      const slots = (this.slots ??= []);
      for (const piece of delta.toolCalls) {
        let slot = slots[piece.index];
        if (slot === undefined) {
          slot = { id: '', name: '', arguments: '' };
          slots[piece.index] = slot;
        }
        if (piece.id) slot.id = piece.id;
        if (piece.name) slot.name = piece.name;
        if (piece.arguments) {
          slot.arguments += piece.arguments;
          this.outputChars += piece.arguments.length;
        }
      }
    }
    if (delta.usage) this.usage = delta.usage;
    if (delta.finishReason) this.finishReason = delta.finishReason;
    if (delta.providerFinishReason) this.providerFinishReason = delta.providerFinishReason;
    if (delta.model) this.responseModel = delta.model;
    if (delta.responseId) this.responseId = delta.responseId;
    const liveChecks = this.liveChecks;
    if (liveChecks !== undefined) {
      const chunkChars = this.outputChars - charsBefore;
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
    return Math.ceil(this.inputCostMicro + this.outputChars * this.outputMicroPerChar);
  }

  finish(response?: ModelCallResponse): ModelCallOutcome {
    if (this.done) return { status: 'success', toolCalls: [], refused: false };
    if (this.stopReason !== undefined) {
      const reason = this.stopReason;
      this.fail(reason, response);
      throw reason;
    }
    const output = this.aggregated(response);
    const reviews = reviewToolCalls(this.core, this.input.messages, output.text, output.calls);
    if (this.core.policy !== undefined)
      this.read = reviewReadMessages(this.core, this.input.messages);
    const outcome = this.record('success', response, output, undefined, reviews);
    if (reviews.length > 0 && this.core.policy !== undefined) {
      const { core, tracer, input } = this;
      outcome.recheck = (call) => recheckToolCall(core, tracer, input.messages, output.text, call);
    }
    if (this.core.mode === 'throw' && reviews.length > 0) {
      const blocked = reviews.filter((review) => !review.allowed);
      if (blocked.length > 0)
        throw new PolicyViolationError({
          violations: blocked.flatMap((review) => review.violations),
        });
    }
    return outcome;
  }

  fail(error: unknown, partial?: ModelCallResponse): unknown {
    if (this.done) return this.stopReason ?? error;
    const reason = this.stopReason;
    if (reason !== undefined) {
      const status: ModelCallStatus = GuardError.isGuardError(reason)
        ? (guardStatuses[reason.status] ?? 'failure')
        : 'failure';
      // The guard's error is what the caller sees; the SDK's abort error is its cause.
      if (error !== reason && (reason as { cause?: unknown }).cause === undefined) {
        Object.defineProperty(reason, 'cause', {
          value: error,
          configurable: true,
          writable: true,
        });
      }
      this.record(status, partial, this.aggregated(partial), reason, undefined);
      return reason;
    }
    this.record('failure', partial, this.aggregated(partial), error, undefined);
    return error;
  }

  end(error: unknown, signal?: AbortSignal | null, partial?: ModelCallResponse): unknown {
    const callerSignal = signal ?? this.input.signal;
    if (this.stopReason === undefined && isAbort(error, callerSignal)) {
      // the framework's own deadline (the AI SDK's `timeout`, `AbortSignal.timeout()`) is a
      // timeout, not the caller changing their mind
      if (!this.done && isTimeout(error, callerSignal)) {
        this.record('timeout', partial, this.aggregated(partial), error, undefined);
        return error;
      }
      this.cancel(partial);
      return error;
    }
    return this.fail(error, partial);
  }

  cancel(partial?: ModelCallResponse): void {
    if (this.done) return;
    const reason = this.stopReason;
    const status: ModelCallStatus =
      reason !== undefined && GuardError.isGuardError(reason)
        ? (guardStatuses[reason.status] ?? 'cancelled')
        : 'cancelled';
    this.record(status, partial, this.aggregated(partial), reason, undefined);
  }

  private aggregated(response: ModelCallResponse | undefined): AggregatedOutput {
    let calls: ModelToolCall[];
    let partialCalls: Set<number> | undefined;
    const slots = this.slots;
    if (response?.toolCalls !== undefined) calls = response.toolCalls;
    else if (slots !== undefined) {
      calls = [];
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i];
        if (slot === undefined) continue;
        // a call streamed without an id keeps `""`: the response is delivered (and re-sent) so,
        // and its TOOL_CALL gets a generated id (traceCallId)
        if (!parseArguments(slot.arguments).valid) (partialCalls ??= new Set()).add(calls.length);
        calls.push({ id: slot.id, name: slot.name, arguments: slot.arguments });
      }
    } else calls = [];
    const finalText = response?.text !== undefined ? response.text : this.text;
    return {
      text: finalText === '' || finalText === null ? null : finalText,
      reasoning: (response?.reasoning ?? this.reasoning) || '',
      calls,
      partialCalls,
    };
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
    const usage = response?.usage ?? this.usage;
    const model = response?.model ?? this.responseModel ?? input.model;
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
      this.outputChars > 0
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
    const finishReason = response?.finishReason ?? this.finishReason;
    const providerFinishReason =
      (response?.finishReason === undefined
        ? this.providerFinishReason
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
        requestId: response?.requestId ?? lastRequestId(attempts),
        attempts,
        responseId: response?.responseId ?? this.responseId,
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
    const state = this.state;
    // the ids the TOOL_CALLs are recorded under (a call without one gets one here)
    const callIds = output.calls.map((call) => traceCallId(tracer, state, call));
    let blocked: ToolCallReview[] = [];
    if (reviews !== undefined && reviews.length > 0) {
      blocked = reviews.filter((review) => !review.allowed);
      const flagged = reviews.filter((review) => review.violations.length > 0);
      if (flagged.length > 0) {
        const idOf = (review: ToolCallReview) => callIds[reviews.indexOf(review)];
        metadata.policy = {
          mode: core.mode,
          blocked: blocked.map(idOf),
          flagged: flagged.map(idOf),
        };
      }
    }
    const raw = scrubRaw(
      response?.raw === undefined
        ? { request: input.raw }
        : { request: input.raw, response: response.raw },
    );
    const blockId = recordResponseBlocks(core, tracer, state, {
      text: output.text,
      reasoning: output.reasoning,
      calls: output.calls,
      callIds,
      partialCalls: output.partialCalls,
      metadata,
      raw,
      reviews,
    });

    // What the caller sees (and re-sends next turn): refused calls removed, refusal appended.
    const delivered = deliveredResponse(output.text, output.calls, blocked, input.keepRefusedCall);
    const [h1, h2] = responseHashPair(delivered.text, delivered.calls);
    state.responses.add(h1, h2);
    const next = mixChainKey(this.prefixKey, h1, h2);
    state.prefixes.add(next.a, next.b);

    const outcome: ModelCallOutcome = {
      status,
      toolCalls: reviews ?? [],
      refused: delivered.refused,
    };
    if (delivered.refusalText !== undefined) outcome.refusalText = delivered.refusalText;
    if (blockId !== undefined) outcome.messageBlockId = blockId;
    return outcome;
  }
}
