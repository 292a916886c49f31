import { TracewardenError } from '../errors/index.js';
import type { Tracer } from '../tracing/types.js';
import { currentTracer } from '../tracing/with-trace.js';
import { ModelCall } from './model-call.js';
import { recordToolResult } from './record-tool-result.js';
import type { RecorderCore } from './recorder-core.js';
import { defaultRefusal } from './tool-call-review.js';
import type {
  ModelCallGuard,
  ModelCallHandle,
  ModelCallPricer,
  ModelCallStartInput,
  ToolCallPolicy,
  ToolCallReview,
} from './types.js';

/*
 * The recorder's public entry point: options resolved once into the context its parts share
 * (conversation-history.ts, tool-call-review.ts, model-call.ts, record-answer.ts,
 * response-metadata.ts, response-blocks.ts).
 */

/** Options of {@link createModelCallRecorder}. */
export interface ModelCallRecorderOptions {
  /**
   * The tracer to record into.
   * @default the tracer of the enclosing `withTrace`, else `defaultTracer()`
   */
  tracer?: Tracer | undefined;
  /**
   * Called when there is neither `tracer` nor an enclosing `withTrace`: with `true` when a model
   * call starts in the tracer it returns (a bounded fallback may start a new trace then), with
   * `false` when a tracer is only looked up (a tool result, `resolveTracer()`).
   */
  defaultTracer?: ((callStarts: boolean) => Tracer) | undefined;
  /**
   * Guards applied around each model call, in order (build them with
   * {@link createModelCallGuards} from rate-limit, circuit-breaker and budget options).
   * @default []
   */
  guards?: readonly ModelCallGuard[] | undefined;
  /**
   * Deadline of a whole call (all the SDK's attempts and the stream), in seconds. On expiry the
   * handle's signal aborts and the call is recorded with status `timeout`.
   * @default none (the SDK's own timeout applies)
   */
  timeoutSeconds?: number | undefined;
  /** Checked against every proposed tool call before anything runs. */
  policy?: ToolCallPolicy | undefined;
  /**
   * What a `block` violation does: `throw` a `PolicyViolationError`, or `refuse` (the call is
   * removed from the response and a refusal text the model sees on the next turn takes its
   * place). `warn` and `log` violations only record.
   * @default 'throw'
   */
  onPolicyViolation?: 'throw' | 'refuse' | undefined;
  /**
   * The refusal text of a blocked call in `refuse` mode.
   * @default `Tool call <name> was blocked by policy: <first violation message>`
   */
  refusalMessage?: ((review: ToolCallReview) => string) | undefined;
  /** Prices a call from its usage (`metadata.cost`); adapters pass the pricing module's `priceUsage`. */
  pricer?: ModelCallPricer | undefined;
  /**
   * Called when recording a block fails (e.g. a message over the byte limit). The model call
   * itself goes on: tracing never breaks the caller.
   * @default a process warning
   */
  onRecordingError?: ((error: unknown) => void) | undefined;
  /** Milliseconds clock (fractions allowed). @default performance.now */
  clock?: (() => number) | undefined;
}

/**
 * Records model calls of any framework as blocks, and guards them. Adapters call
 * {@link ModelCallRecorder.start} per request and feed the returned handle.
 */
export interface ModelCallRecorder {
  /**
   * Starts a call: applies the guards (a refusal is recorded and thrown), records the request's
   * messages not recorded before, and returns the handle to feed.
   */
  start(input: ModelCallStartInput): ModelCallHandle;
  /**
   * Records a tool's result under its TOOL_CALL (once per call id), e.g. after running it.
   * @returns false when the call is unknown to the trace or its result is already recorded
   */
  recordToolResult(input: {
    tracer?: Tracer | undefined;
    callId: string;
    output: unknown;
    metadata?: Record<string, unknown> | undefined;
    /** The arguments the tool ran with: tells apart calls that wait under one id. */
    arguments?: unknown;
  }): boolean;
  /** The tracer a call started now would record into. */
  resolveTracer(): Tracer;
  /** The policy mode. */
  readonly onPolicyViolation: 'throw' | 'refuse';
  /** Whether a policy is configured. */
  readonly hasPolicy: boolean;
  /**
   * Whether a call's response must be read to enforce what is configured: a policy reviews its
   * tool calls, a budget charges its usage. An adapter refuses a way of calling that hands the
   * caller the raw body unread (openai's `asResponse()`) when this is true.
   */
  readonly readsResponses: boolean;
}

/**
 * What a recording error does when the adapter's user gave no `onRecordingError`: one process
 * warning (code `TRACEWARDEN_RECORDING`) with the error's message. Recording never throws into
 * the user's call.
 * @param error - what the tracer or a sink threw
 * @example
 * ```ts
 * try { recordToolResult(tracer, input); } catch (error) { (options.onRecordingError ?? warnRecordingError)(error); }
 * ```
 */
export function warnRecordingError(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.emitWarning(`tracewarden: a block could not be recorded: ${message}`, {
    code: 'TRACEWARDEN_RECORDING',
  });
}

const nowDefault = (): number => performance.now();

/**
 * Creates the framework-neutral recording path every adapter feeds: one model call becomes
 * blocks exactly once (request messages de-duplicated across turns, tool outputs as TOOL_RESULT
 * blocks under their TOOL_CALL, the response as an assistant MESSAGE with THINK and TOOL_CALL
 * blocks), streamed or not; guards run around the call; proposed tool calls are checked
 * against the policy before anything runs.
 *
 * De-duplication: every recorded conversation prefix is kept per tracer as a chain of message
 * fingerprints, so a conversation re-sent on every turn is recorded once, while the same text
 * sent again later (a second "yes") is a new message. Responses and tool results are never
 * recorded twice.
 *
 * @param options - tracer, guards, timeout, policy and its mode, pricer, error callback, clock
 * @returns a {@link ModelCallRecorder}
 * @example
 * ```ts
 * const recorder = createModelCallRecorder({ tracer, policy });
 * const call = recorder.start({ provider: 'acme', model: 'm-1', messages });
 * for await (const piece of stream) call.chunk({ text: piece.text });
 * call.finish({ usage: { inputTokens: 10, outputTokens: 3 } });
 * ```
 */
export function createModelCallRecorder(options: ModelCallRecorderOptions = {}): ModelCallRecorder {
  const onRecordingError = options.onRecordingError ?? warnRecordingError;
  const mode = options.onPolicyViolation ?? 'throw';
  const core: RecorderCore = {
    clock: options.clock ?? nowDefault,
    guards: options.guards ?? [],
    pricer: options.pricer,
    policy: options.policy,
    mode,
    refusalMessage: options.refusalMessage ?? defaultRefusal,
    timeoutMs: options.timeoutSeconds === undefined ? undefined : options.timeoutSeconds * 1000,
    onRecordingError,
    safely<T>(fn: () => T): T | undefined {
      try {
        return fn();
      } catch (error) {
        onRecordingError(error);
        return undefined;
      }
    },
  };

  function resolveTracer(explicit: Tracer | undefined, callStarts: boolean): Tracer {
    const tracer =
      explicit ?? options.tracer ?? currentTracer() ?? options.defaultTracer?.(callStarts);
    if (tracer === undefined) {
      throw new TracewardenError('NO_TRACER', {
        message:
          'no tracer to record the model call into: pass options.tracer, run inside withTrace(tracer, fn), or give the recorder a defaultTracer',
      });
    }
    return tracer;
  }

  return {
    start(input: ModelCallStartInput): ModelCallHandle {
      return new ModelCall(core, resolveTracer(input.tracer, true), input);
    },
    resolveTracer: () => resolveTracer(undefined, false),
    onPolicyViolation: mode,
    hasPolicy: options.policy !== undefined,
    readsResponses:
      options.policy !== undefined ||
      (options.guards ?? []).some((guard) => guard.name === 'budget'),
    recordToolResult(input) {
      const { tracer, ...rest } = input;
      return core.safely(() => recordToolResult(resolveTracer(tracer, false), rest)) ?? false;
    },
  };
}
