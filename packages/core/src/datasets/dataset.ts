import type { Trace } from '../model/index.js';

/**
 * One trace of a dataset (seed 001): its events and optional metadata of its own (task id,
 * score, model, ...).
 */
export interface DatasetTrace {
  /** The trace's events, normalised by `parseTrace`. */
  messages: Trace;
  /** Metadata of this trace. */
  metadata?: Record<string, unknown>;
  /**
   * Annotations of this trace, as Invariant Explorer's annotated event lists carry them (e.g.
   * `{ content, address: 'messages.4.content:0-20', extra_metadata }`), kept as given.
   */
  annotations?: unknown[];
}

/**
 * A dataset (seed 001): a named collection of traces from running an agent on related tasks,
 * with metadata of its own (e.g. the agent's accuracy on the dataset).
 */
export interface Dataset {
  /** The dataset's name. */
  name: string;
  /** Metadata of the whole dataset. */
  metadata: Record<string, unknown>;
  /** The traces, in order. */
  traces: DatasetTrace[];
}
