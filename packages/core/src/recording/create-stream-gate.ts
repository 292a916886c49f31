import type {
  ModelCallDelta,
  ModelCallHandle,
  ModelCallOutcome,
  ModelCallResponse,
} from './types.js';

/**
 * What a streamed part is, as far as the gate is concerned:
 * - `content`: text, reasoning, metadata, anything that is not a tool call or the end;
 * - `tool-call`: a piece of a tool call (its start, an arguments delta);
 * - `tool-call-end`: the part that completes a tool call (after it, a framework may run it);
 * - `finish`: the part that ends the response (finish reason, usage).
 */
export type StreamPartKind = 'content' | 'tool-call' | 'tool-call-end' | 'finish';

/**
 * What to do with a part the gate has seen:
 * - `deliver`: hand it to the caller now;
 * - `hold`: keep it, and every part after it, until {@link StreamGate.end} (a policy decides);
 * - `drop`: never deliver it (refuse mode: tool calls come back at the end, if allowed);
 * - `deliver-then-stop`: hand it over (it is paid for), then stop: abort the request, and the
 *   next read throws {@link StreamGate.stopError};
 * - `stop`: stop now and throw {@link StreamGate.stopError}.
 */
export type StreamDecision = 'deliver' | 'hold' | 'drop' | 'deliver-then-stop' | 'stop';

/** How the stream ended, from {@link StreamGate.end}. */
export type StreamEnd =
  /** The response is recorded; render `outcome` (refused calls, refusal text) and the held parts. */
  | { kind: 'finished'; outcome: ModelCallOutcome }
  /** A guard stopped the call (timeout, budget cut-off): throw `error`. */
  | { kind: 'failed'; error: unknown }
  /** The caller stopped reading or aborted: deliver nothing more. */
  | { kind: 'cancelled' };

/** Options of {@link createStreamGate}. */
export interface StreamGateOptions {
  /**
   * Hold a tool call's completing part and the finish while the policy decides (set when a
   * policy is configured): nothing that lets the framework run a tool passes before the verdict.
   */
  holdToolCalls: boolean;
  /**
   * Drop tool-call parts as they pass (refuse mode where the adapter removes refused calls from
   * the response): the adapter re-emits the allowed calls at the end from `outcome.toolCalls`.
   */
  dropToolCalls: boolean;
}

/**
 * The one stream lifecycle every adapter shares: aggregate each part into the call's handle,
 * apply the live budget cut-off (deliver the part that was paid for, then stop), hold the end
 * while a policy decides, drop refused tool calls, and end as finished, failed or cancelled.
 * Adapters translate their chunk shape to a {@link ModelCallDelta} and a {@link StreamPartKind},
 * and render the decisions in their own shapes.
 */
export interface StreamGate {
  /**
   * Sees one part: aggregates `delta` into the call and decides what happens to the part.
   * @returns the decision; with `stop` or `deliver-then-stop`, {@link stopError} is set
   */
  push(delta: ModelCallDelta | undefined, kind: StreamPartKind): StreamDecision;
  /** The typed error to throw after `stop` / `deliver-then-stop` (the call is recorded). */
  readonly stopError: unknown;
  /** Whether a tool-call part was seen. */
  readonly sawToolCalls: boolean;
  /** Whether assistant text was seen (a refusal appended to text starts on a new paragraph). */
  readonly sawText: boolean;
  /**
   * The source ended: records the response (`response` overrides what was aggregated) and checks
   * the proposed tool calls against the policy.
   * @param aborted - the request was aborted by the caller (their signal or an early stop)
   * @param response - what the adapter knows of the response (its request id, metadata); kept
   *   also when the call ends cancelled or stopped
   * @throws PolicyViolationError in `throw` mode when a call is blocked (after recording)
   */
  end(aborted: boolean, response?: ModelCallResponse): StreamEnd;
  /**
   * Reading failed: records the call as failed, or cancelled when the caller aborted.
   * @param partial - what the adapter knows of the response (its request id), kept in the record
   * @returns the error to throw
   */
  error(error: unknown, signal?: AbortSignal | null, partial?: ModelCallResponse): unknown;
  /**
   * The caller stopped reading early (`break`, `return()`, `cancel()`).
   * @param partial - what the adapter knows of the response (its request id), kept in the record
   */
  cancel(partial?: ModelCallResponse): void;
}

class Gate implements StreamGate {
  stopError: unknown = undefined;
  sawToolCalls = false;
  sawText = false;
  private holding = false;

  constructor(
    private readonly handle: ModelCallHandle,
    private readonly holdToolCalls: boolean,
    private readonly dropToolCalls: boolean,
  ) {}

  push(delta: ModelCallDelta | undefined, kind: StreamPartKind): StreamDecision {
    const stop = delta === undefined ? undefined : this.handle.chunk(delta);
    if (delta?.text !== undefined && delta.text !== '') this.sawText = true;
    let decision: StreamDecision;
    if (this.holding) decision = 'hold';
    else if (kind === 'content') decision = 'deliver';
    else if (kind === 'tool-call') {
      this.sawToolCalls = true;
      decision = this.dropToolCalls ? 'drop' : 'deliver';
    } else if (kind === 'tool-call-end') {
      this.sawToolCalls = true;
      decision = this.dropToolCalls ? 'drop' : this.holdToolCalls ? 'hold' : 'deliver';
    } else decision = this.holdToolCalls && this.sawToolCalls ? 'hold' : 'deliver';
    if (decision === 'hold') this.holding = true;
    if (stop === undefined) return decision;
    // Live budget cut-off: this part is within the budget (and paid for), so it is delivered;
    // the request is aborted now and the next read throws.
    this.stopError = this.handle.fail(stop);
    return decision === 'deliver' ? 'deliver-then-stop' : 'stop';
  }

  end(aborted: boolean, response?: ModelCallResponse): StreamEnd {
    const handle = this.handle;
    if (handle.stopped)
      return { kind: 'failed', error: handle.fail(handle.signal.reason, response) };
    if (aborted) {
      handle.cancel(response);
      return { kind: 'cancelled' };
    }
    return { kind: 'finished', outcome: handle.finish(response) };
  }

  error(error: unknown, signal?: AbortSignal | null, partial?: ModelCallResponse): unknown {
    return this.handle.end(error, signal, partial);
  }

  cancel(partial?: ModelCallResponse): void {
    this.handle.cancel(partial);
  }
}

/**
 * Creates the stream lifecycle of one streamed model call (see {@link StreamGate}).
 * @param handle - the call, from `recorder.start()`
 * @param options - hold tool calls for a policy verdict, drop them in refuse mode
 * @returns the gate to push every part through
 * @example
 * ```ts
 * const gate = createStreamGate(handle, { holdToolCalls: recorder.hasPolicy, dropToolCalls: false });
 * const decision = gate.push({ text: 'Hel' }, 'content'); // 'deliver'
 * const end = gate.end(false); // { kind: 'finished', outcome }
 * ```
 */
export function createStreamGate(handle: ModelCallHandle, options: StreamGateOptions): StreamGate {
  return new Gate(handle, options.holdToolCalls, options.dropToolCalls);
}
