import type { CallState } from './call-state.js';
import { GuardTimeoutError } from './guard-timeout-error.js';
import type { GuardCallContext } from './types.js';

/**
 * The abort reason of an attempt that passed its deadline. Preallocated: a bare `abort()` builds
 * a DOMException with a stack (~3 µs); a shared reason costs nothing.
 */
export const deadlineReason = new GuardTimeoutError({
  message: 'The guarded call passed its timeout deadline; its attempt was aborted.',
});
/** The signal of an attempt with neither a timeout nor a caller's signal. */
export const neverAborted: AbortSignal = new AbortController().signal;
const notAborted: unique symbol = Symbol('not aborted');

/**
 * The context handed to each attempt. The call id and, with a timeout, the attempt's own
 * AbortController are made only when read: a tool that never looks at its signal pays nothing.
 */
export class AttemptContext implements GuardCallContext {
  // Fields are set in the constructor, not declared with initializers or as parameter properties:
  // with initializers, a subclass's constructor (the fast path's FirstAttemptRace, made per timed
  // call) cost twice as much (decision 080, timeout path).
  /** @internal the call this attempt belongs to */
  declare readonly call: CallState;
  declare readonly attempt: number;
  declare private controller: AbortController | undefined;
  declare private abortReason: unknown;

  constructor(call: CallState, attempt: number) {
    this.call = call;
    this.attempt = attempt;
    this.controller = undefined;
    this.abortReason = notAborted;
  }

  get signal(): AbortSignal {
    // owned with a timeout; otherwise the caller's signal is the attempt's signal
    if (this.call.runtime.timeoutMs === undefined) return this.call.callerSignal ?? neverAborted;
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortReason !== notAborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  get callId(): string {
    // the tool may record something under it: a tracer must then check it like any other id
    this.call.callIdShared = true;
    return this.call.recordedCallId;
  }

  /** Aborts the attempt's signal now, or as soon as it is first read. */
  abort(reason: unknown): void {
    if (this.abortReason !== notAborted) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }
}
