import type { GuardDecision } from '../guards/types.js';
import type { RecorderCore } from './recorder-core.js';
import { estimateTokens } from './token-estimate.js';
import type {
  ModelCallCost,
  ModelCallGuard,
  ModelCallGuardContext,
  ModelCallGuardTicket,
  ModelCallStartInput,
} from './types.js';

/*
 * A model call's admission: its guards asked in order before the request goes out, each keeping
 * a ticket to settle at the end; a budget prices the model first. A guard backed by a shared
 * store answers with a promise, and admission goes on from there asynchronously.
 */

/** What the guards decided when they admitted a call. */
export interface CallAdmission {
  /** One per guard that keeps something to settle when the call ends. */
  tickets: ModelCallGuardTicket[];
  /** The guards' decisions so far (undefined: none). */
  decisions: GuardDecision[] | undefined;
  /** Tickets that check the running cost while the answer streams (a live budget cut-off). */
  liveChecks: ModelCallGuardTicket[] | undefined;
  /** The request's estimated input cost, micro-USD (for the live checks). */
  inputCostMicro: number;
  /** The model's output price per character (a quarter token), micro-USD. */
  outputMicroPerChar: number;
}

/** The call being admitted: it records a refusal (it knows the trace). */
export interface AdmittedCall {
  /** The call ended (or was aborted) while its guards decided: ask no more of them. */
  readonly ended: boolean;
  /**
   * Records the refused call and throws `error`.
   * @param admitted - the tickets of the guards that admitted the call before the refusal
   * @param decisions - their decisions
   */
  refuse(
    admitted: readonly ModelCallGuardTicket[],
    decisions: GuardDecision[] | undefined,
    guardName: string,
    error: unknown,
  ): never;
}

/**
 * Asks `core`'s guards, in order, to admit a call. A refusal (a guard that throws, or a budget
 * that cannot price the model) goes to `call.refuse`, which throws. Synchronous while every guard
 * answers at once; from the first guard that answers with a promise on, a promise.
 */
export function admitCall(
  core: RecorderCore,
  input: ModelCallStartInput,
  call: AdmittedCall,
): CallAdmission | Promise<CallAdmission> {
  const admission: CallAdmission = {
    tickets: [],
    decisions: undefined,
    liveChecks: undefined,
    inputCostMicro: 0,
    outputMicroPerChar: 0,
  };
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
      call.refuse(admission.tickets, admission.decisions, guard.name, error);
    }
    if (ticket instanceof Promise)
      return admitLater(core, input, call, admission, context, i, ticket);
    keep(admission, ticket);
  }
  price(core, input, call, admission, context);
  return admission;
}

/** {@link admitCall} from the guard at `index` on, once its promise settles. */
async function admitLater(
  core: RecorderCore,
  input: ModelCallStartInput,
  call: AdmittedCall,
  admission: CallAdmission,
  context: ModelCallGuardContext,
  index: number,
  pending: Promise<ModelCallGuardTicket | undefined>,
): Promise<CallAdmission> {
  const guards = core.guards;
  for (let i = index; i < guards.length; i++) {
    // a call that ended meanwhile takes nothing more (a rate limit's token cannot be given back);
    // the call gives back what it was granted so far
    if (i > index && call.ended) return admission;
    const guard = guards[i] as ModelCallGuard;
    let ticket: ModelCallGuardTicket | undefined;
    try {
      ticket = await (i === index ? pending : guard.admit(context));
    } catch (error) {
      call.refuse(admission.tickets, admission.decisions, guard.name, error);
    }
    keep(admission, ticket);
  }
  price(core, input, call, admission, context);
  return admission;
}

function keep(admission: CallAdmission, ticket: ModelCallGuardTicket | undefined): void {
  if (ticket === undefined) return;
  admission.tickets.push(ticket);
  if (ticket.decisions) (admission.decisions ??= []).push(...ticket.decisions);
}

/** Every guard admitted the call: prices it for a budget and the live checks. */
function price(
  core: RecorderCore,
  input: ModelCallStartInput,
  call: AdmittedCall,
  admission: CallAdmission,
  context: ModelCallGuardContext,
): void {
  let budgeted = false;
  for (const guard of core.guards) if (guard.name === 'budget') budgeted = true;
  const live = admission.tickets.filter((ticket) => ticket.allowsRunningCost !== undefined);
  const pricer = core.pricer;
  if (pricer === undefined || (!budgeted && live.length === 0)) return;
  // A budget needs the model's price before the call: a model the table cannot price is
  // refused here (when the pricing says so) rather than counted as free afterwards.
  let perMillionIn: ModelCallCost | undefined;
  let perMillionOut: ModelCallCost | undefined;
  try {
    perMillionIn = pricer(input.model, { inputTokens: 1_000_000, outputTokens: 0 }, input.provider);
    perMillionOut = pricer(
      input.model,
      { inputTokens: 0, outputTokens: 1_000_000 },
      input.provider,
    );
  } catch (error) {
    call.refuse(admission.tickets, admission.decisions, 'budget', error);
  }
  if (live.length > 0) {
    admission.liveChecks = live;
    admission.inputCostMicro =
      ((perMillionIn?.cost_micro_usd ?? 0) / 1_000_000) * context.estimatedInputTokens;
    admission.outputMicroPerChar = (perMillionOut?.cost_micro_usd ?? 0) / 1_000_000 / 4;
  }
}
