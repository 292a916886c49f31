import {
  createTracer,
  currentTracer,
  type ModelCallHandle,
  type ModelCallStartInput,
  type Tracer,
} from '@tracewarden/core';
import { KeptTracers } from '../tracing/kept-tracers.js';
import type { RunInfo } from '../tracing/run-metadata.js';
import type { TraceRunInfo } from './tracewarden-callback-handler.js';

/** One LangChain run the handler has seen, by `runId`. @internal */
export interface Run extends RunInfo {
  readonly parent: Run | undefined;
  /** Root runs: the trace of the whole run, once something was recorded. */
  tracer: Tracer | undefined;
  /** Root runs: the enclosing `withTrace` when the run started. */
  readonly ambient: Tracer | undefined;
  /** Model runs. */
  handle?: ModelCallHandle | undefined;
  input?: ModelCallStartInput | undefined;
  /** Tool runs: the call id its TOOL_RESULT answers, and where. */
  callId?: string | undefined;
  toolTracer?: Tracer | undefined;
  toolInput?: string | undefined;
  /** Tool runs for a call the model sent without an id (`""`). */
  absentCallId?: boolean | undefined;
  /** Tool runs: the run's abort signal, when LangChain's context gives the run's config. */
  signal?: AbortSignal | undefined;
  startedAt?: number | undefined;
}

/** Most runs open at once; past it the oldest (an abandoned stream, say) is dropped. */
const maxOpenRuns = 10_000;

/**
 * The runs a handler has open, by `runId`, and the traces they record into. As LangChain's
 * `BaseTracer` does, every run is keyed by its id and finds its parent by `parentRunId`; a whole
 * run tree records into its root's trace, resolved on first use (decision 011).
 * @internal
 */
export class RunRegistry {
  readonly #runs = new Map<string, Run>();
  readonly #kept = new KeptTracers();
  /**
   * Every trace this handler recorded into (given, `withTrace`'s, continued or made): the only
   * traces its runs may continue, so one handler never records into another's conversation.
   */
  readonly own = new WeakSet<Tracer>();
  readonly #tracer: Tracer | undefined;
  readonly #tracerFactory: ((run: TraceRunInfo) => Tracer) | undefined;
  readonly #onRecordingError: (error: unknown) => void;

  /**
   * @param tracer - the handler's `tracer`: every run records there
   * @param tracerFactory - makes the trace of a root run that continues nothing
   * @param onRecordingError - where a failure to record an evicted run goes
   */
  constructor(
    tracer: Tracer | undefined,
    tracerFactory: ((run: TraceRunInfo) => Tracer) | undefined,
    onRecordingError: (error: unknown) => void,
  ) {
    this.#tracer = tracer;
    this.#tracerFactory = tracerFactory;
    this.#onRecordingError = onRecordingError;
  }

  /** The traces recorded into, oldest first (the given one, or the last 100 made). */
  get tracers(): readonly Tracer[] {
    return this.#kept.list;
  }

  /** Opens a run under its parent (if the parent is open). */
  open(
    runId: string,
    parentRunId: string | undefined,
    name: string | undefined,
    tags: string[] | undefined,
    metadata: Record<string, unknown> | undefined,
  ): Run {
    const parent = parentRunId === undefined ? undefined : this.#runs.get(parentRunId);
    const run: Run = {
      runId,
      parent,
      name,
      tags,
      metadata,
      tracer: undefined,
      // the enclosing withTrace matters only when no tracer was given (an AsyncLocalStorage read)
      ambient: parent === undefined && this.#tracer === undefined ? currentTracer() : undefined,
    };
    this.#runs.set(runId, run);
    if (this.#runs.size > maxOpenRuns) this.#evictOldest();
    return run;
  }

  /** The open run `runId`, if any. */
  get(runId: string): Run | undefined {
    return this.#runs.get(runId);
  }

  /** Closes the run `runId` and returns it, if it was open. */
  close(runId: string): Run | undefined {
    const run = this.#runs.get(runId);
    if (run !== undefined) this.#runs.delete(runId);
    return run;
  }

  /**
   * The trace of a run: its root's, resolved on first use: the handler's `tracer`, else the
   * `withTrace` enclosing the root, else the trace of the conversation it continues
   * (`continued`), else a new trace.
   */
  tracerOf(run: Run, continued: () => Tracer | undefined): Tracer {
    let root = run;
    while (root.parent !== undefined) root = root.parent;
    if (root.tracer !== undefined) return root.tracer;
    const tracer = this.#tracer ?? root.ambient ?? continued() ?? this.#newTrace(root);
    root.tracer = tracer;
    this.own.add(tracer);
    return this.#kept.remember(tracer);
  }

  #newTrace(root: Run): Tracer {
    const factory = this.#tracerFactory;
    if (factory === undefined) return createTracer();
    return factory({
      runId: root.runId,
      name: root.name,
      tags: root.tags ?? [],
      metadata: root.metadata ?? {},
    });
  }

  /**
   * Ends the oldest open run. LangChain sends no end callback for a stream the caller abandoned
   * (`break` out of `.stream()`), so such a run would stay open forever: past
   * {@link maxOpenRuns} the oldest is dropped, its model call recorded as cancelled.
   */
  #evictOldest(): void {
    const oldest = this.#runs.keys().next();
    if (oldest.done === true) return;
    const run = this.close(oldest.value);
    try {
      run?.handle?.cancel();
    } catch (error) {
      this.#onRecordingError(error);
    }
  }
}
