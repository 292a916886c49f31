import type { ToolResultRecord, TraceEntry, ValidationResult } from '../model/tool-records.js';
import {
  type GuardedCallTracer,
  ownsDirectPath,
  recordGuardedCall,
} from '../tracing/record-guarded-call.js';
import { type CallState, type Ending, isoAt } from './call-state.js';
import { DirectRecord } from './direct-record.js';
import { errorMessage } from './error-message.js';
import { errorType } from './error-type.js';
import { GuardError } from './guard-error.js';
import type { GuardRuntime } from './guard-runtime.js';
import { isThenable } from './is-thenable.js';
import { recordResultUnderCall } from './record-result-under-call.js';

// the blocks are immutable: one frozen empty list serves every call without validators
const noValidations: ValidationResult[] = Object.freeze([]) as unknown as ValidationResult[];

/**
 * Ends a call: counts it, records it, runs the listeners, returns its value or throws.
 * @param refused - the call never got past the refusal checks (circuit breaker, rate limit,
 *   budget, input validation, a caller's abort): `beforeCall` was not called for it, so neither
 *   is `afterCall` (the pair runs for a call or not at all); `onEntry` gets its record
 */
export function finishCall(
  rt: GuardRuntime,
  s: CallState,
  ending: Ending,
  refused = false,
): unknown {
  rt.stats.byStatus[ending.status]++;
  const thrown = ending.thrown;
  const guardError =
    thrown !== undefined &&
    GuardError.isGuardError(thrown.error) &&
    thrown.error.entry === undefined
      ? thrown.error
      : undefined;
  if (thrown === undefined && s.track && rt.tracerOnly && s.tracer !== undefined) {
    const tracer = s.tracer as Partial<GuardedCallTracer>;
    if (
      // not past a recordEntry of a wrapper's own: it must see every call
      ownsDirectPath(tracer[recordGuardedCall], tracer.recordEntry) &&
      !s.externalCallId &&
      s.onEntry === undefined &&
      rt.metadata === undefined &&
      s.metadata === undefined
    ) {
      recordDirectly(rt, s, ending, tracer as GuardedCallTracer);
      return ending.value;
    }
  }
  if (s.track || guardError !== undefined) {
    const entry = buildEntry(rt, s, ending);
    // errors are built before the entry exists; attach it now (the field is readonly to users)
    if (guardError !== undefined) (guardError as { entry: TraceEntry | undefined }).entry = entry;
    if (s.track) emit(rt, s, entry, thrown, refused);
  }
  if (thrown !== undefined) throw thrown.error;
  return ending.value;
}

function measureEnd(rt: GuardRuntime, s: CallState): void {
  if (Number.isNaN(s.startTick)) {
    rt.endMs = rt.clock();
    rt.elapsedMs = rt.endMs - s.startMs;
    return;
  }
  // one reading: the quiet path's attempt end when it finished the call, else now
  const endTick = s.endTick;
  const end = Number.isNaN(endTick) ? rt.tick() : endTick;
  rt.elapsedMs = end - s.startTick;
  // an injected clock is also the duration clock: its reading is the end time itself
  rt.endMs = rt.realClock ? s.startMs + rt.elapsedMs : end;
}

function guardRecord(rt: GuardRuntime, s: CallState): Record<string, unknown> {
  s.expand();
  const guard: Record<string, unknown> = {
    attempts: s.attempts ?? [],
    decisions: s.decisions ?? [],
  };
  if (rt.sideEffect !== undefined) guard.side_effect = rt.sideEffect;
  if (s.costRecord !== undefined) guard.cost_record = s.costRecord;
  return guard;
}

/**
 * Only a `createTracer` tracer listens and the call threw nothing and has no metadata: the
 * tracer builds the TOOL_CALL and TOOL_RESULT blocks straight from the call's fields, the same
 * blocks `recordEntry(buildEntry(rt, s, ending))` would make, without the entry's objects.
 */
function recordDirectly(
  rt: GuardRuntime,
  s: CallState,
  ending: Ending,
  tracer: GuardedCallTracer,
): void {
  measureEnd(rt, s);
  try {
    const facts = s.onlyFacts;
    tracer[recordGuardedCall](
      new DirectRecord(
        rt.recordInfo,
        s.recordedCallId,
        s.recordedArgs(),
        s.keywords(),
        isoAt(s.startMs),
        s.sessionId ?? null,
        ending.status,
        ending.value === undefined ? null : ending.value,
        rt.elapsedMs,
        s.retries,
        // the blocks are immutable: one frozen empty list serves every call without validators
        s.validations ?? noValidations,
        s.hallucination,
        s.costMicroUsd,
        isoAt(rt.endMs),
        rt.ownCallIds && !s.callIdShared,
        facts === undefined ? guardRecord(rt, s) : undefined,
        facts,
      ),
      // Date.now() at the end (see measureEnd) only with the real clock, not replaced since
      // (fake timers): the tracer may then draw the ids at it
      rt.realClock && Date.now === rt.clock ? rt.endMs : undefined,
    );
  } catch (error) {
    warnNotRecorded(rt, s, error);
  }
}

function buildEntry(rt: GuardRuntime, s: CallState, ending: Ending): TraceEntry {
  measureEnd(rt, s);
  const thrown = ending.thrown;
  const result: ToolResultRecord = {
    call_id: s.recordedCallId,
    tool_name: rt.name,
    status: ending.status,
    return_value: ending.value === undefined ? null : ending.value,
    // a thrown `undefined` is a failure too: its exception reads "undefined"
    exception: thrown === undefined ? null : errorMessage(thrown.error),
    exception_type: thrown === undefined ? null : errorType(thrown.error),
    execution_time_ms: rt.elapsedMs,
    retry_count: s.retries,
    validations: s.validations ?? [],
    hallucination: s.hallucination,
    cost: s.costMicroUsd === null ? null : s.costMicroUsd / 1e6,
    timestamp: isoAt(rt.endMs),
    metadata: { guard: guardRecord(rt, s) },
  };
  return { call: s.call(), result };
}

/** The entry under another call id (its call's and its result's). */
function withCallId(entry: TraceEntry, callId: string): TraceEntry {
  return {
    call: { ...entry.call, call_id: callId },
    result: { ...entry.result, call_id: callId },
  };
}

/**
 * The entry as the trace records it: a failed call's result carries what the model reads
 * ({@link GuardInvokeOptions.errorOutput}) as its output, when the adapter said what that is.
 */
function asRead(
  rt: GuardRuntime,
  s: CallState,
  entry: TraceEntry,
  thrown: Ending['thrown'],
): TraceEntry {
  const errorOutput = s.errorOutput;
  if (errorOutput === undefined || thrown === undefined || entry.result.return_value !== null)
    return entry;
  let output: unknown;
  try {
    output = errorOutput(thrown.error);
  } catch (error) {
    rt.logger.warn(`errorOutput of a call of tool "${rt.name}" threw: ${errorMessage(error)}`, {
      tool: rt.name,
    });
    return entry;
  }
  return output === undefined || output === null
    ? entry
    : { call: entry.call, result: { ...entry.result, return_value: output } };
}

function emit(
  rt: GuardRuntime,
  s: CallState,
  entry: TraceEntry,
  thrown: Ending['thrown'],
  refused: boolean,
): void {
  if (s.tracer !== undefined) {
    const recorded = asRead(rt, s, entry, thrown);
    try {
      // a model's tool call already in the trace gets its result; otherwise call and result
      // (under an id of the guard's own when the model's was absent: `""`, decision 030)
      if (!(s.externalCallId && recordResultUnderCall(s.tracer, recorded)))
        s.tracer.recordEntry(
          recorded.call.call_id === '' ? withCallId(recorded, rt.createCallId()) : recorded,
        );
    } catch (error) {
      warnNotRecorded(rt, s, error);
    }
  }
  if (s.onEntry !== undefined) {
    try {
      s.onEntry(entry);
    } catch (error) {
      rt.logger.warn(`onEntry of a call of tool "${rt.name}" threw: ${errorMessage(error)}`, {
        tool: rt.name,
      });
    }
  }
  const { onEntry, afterCall } = rt.options;
  if (onEntry !== undefined) {
    try {
      onEntry(entry);
    } catch (error) {
      rt.warnOnce('onEntry', error, `onEntry of tool "${rt.name}" threw: ${errorMessage(error)}`, {
        tool: rt.name,
      });
    }
  }
  if (afterCall !== undefined && !refused) {
    try {
      const done = afterCall(entry.call, entry.result);
      if (isThenable(done)) {
        done.then(undefined, (error: unknown) =>
          rt.warnOnce(
            'afterCall',
            error,
            `afterCall of tool "${rt.name}" failed: ${errorMessage(error)}`,
            { tool: rt.name },
          ),
        );
      }
    } catch (error) {
      rt.warnOnce(
        'afterCall',
        error,
        `afterCall of tool "${rt.name}" threw: ${errorMessage(error)}`,
        { tool: rt.name },
      );
    }
  }
}

/** A tracer refused or failed to record the call: reported once per cause, never thrown. */
function warnNotRecorded(rt: GuardRuntime, s: CallState, error: unknown): void {
  rt.warnOnce(
    'record',
    error,
    `Could not record the call of tool "${rt.name}" in the trace: ${errorMessage(error)}`,
    { tool: rt.name, call_id: s.recordedCallId },
  );
}
