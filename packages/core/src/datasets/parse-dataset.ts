import { TraceError } from '../errors/index.js';
import { type LoneSurrogatesFound, parseTrace } from '../model/index.js';
import { leadingTraceMetadata } from '../model/parse-trace.js';
import type { Dataset, DatasetTrace } from './dataset.js';

/** Options of {@link parseDataset}. */
export interface ParseDatasetOptions {
  /** Name used when the input has none. @default 'dataset' */
  name?: string;
  /**
   * Called once per event in which `parseTrace` replaced lone UTF-16 surrogates (half of a
   * character, as a truncated export leaves it) by U+FFFD; `path` is the event's address in the
   * dataset (`traces.3.messages.2`).
   */
  onLoneSurrogates?: ((found: LoneSurrogatesFound) => void) | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function at(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Re-throws a trace error found under `path`: the path is prefixed to its `details.path`,
 * `label` to its message, and `extra` merged into its details.
 * @internal
 */
export function prefixTraceError(
  error: unknown,
  path: string,
  label: string = path,
  extra: Record<string, unknown> = {},
): unknown {
  if (!(error instanceof TraceError)) return error;
  const inner = typeof error.details.path === 'string' ? error.details.path : '';
  return new TraceError({
    code: error.code,
    message: label === '' ? error.message : `${label}: ${error.message}`,
    details: { ...error.details, ...extra, path: inner === '' ? path : at(path, inner) },
    cause: error,
  });
}

/**
 * Parses one dataset trace: an array of events, or an object `{ messages, metadata?,
 * annotations? }` (`events` is accepted for `messages`; `annotations: null` is absent). Other keys
 * of the object are not kept. A first event
 * `{ metadata }` (Invariant Explorer's raw event lists) is the trace's metadata (under the
 * object's own `metadata`, whose keys win).
 * @internal
 */
export function parseDatasetTrace(
  value: unknown,
  path: string,
  onLoneSurrogates?: (found: LoneSurrogatesFound) => void,
): DatasetTrace {
  const where = path === '' ? 'trace' : path;
  if (!Array.isArray(value) && !isObject(value)) {
    throw new TraceError({
      code: 'VALIDATION',
      message: `${where}: a dataset trace must be an array of events or an object with a "messages" array; got ${describe(value)}`,
      details: { path },
    });
  }
  const events = Array.isArray(value)
    ? value
    : Object.hasOwn(value, 'messages')
      ? value.messages
      : value.events;
  const eventsPath = Array.isArray(value) ? path : at(path, 'messages');
  if (!Array.isArray(events)) {
    throw new TraceError({
      code: 'VALIDATION',
      message: `${eventsPath}: a dataset trace needs a "messages" array of events; got ${describe(events)}`,
      details: { path: eventsPath },
    });
  }
  let messages: DatasetTrace['messages'];
  try {
    messages = parseTrace(
      events,
      onLoneSurrogates === undefined
        ? {}
        : {
            onLoneSurrogates: (found) =>
              onLoneSurrogates({ path: at(eventsPath, found.path), count: found.count }),
          },
    );
  } catch (error) {
    throw prefixTraceError(error, eventsPath);
  }
  // Invariant Explorer's raw event lists carry the trace's metadata as a first `{ metadata }`
  const leading = leadingTraceMetadata(events);
  if (Array.isArray(value)) {
    return leading === undefined ? { messages } : { messages, metadata: leading };
  }
  const trace: DatasetTrace = { messages };
  if (value.metadata !== undefined) {
    if (!isObject(value.metadata)) {
      throw new TraceError({
        code: 'VALIDATION',
        message: `${at(path, 'metadata')}: trace metadata must be an object; got ${describe(value.metadata)}`,
        details: { path: at(path, 'metadata') },
      });
    }
    trace.metadata = leading === undefined ? value.metadata : { ...leading, ...value.metadata };
  } else if (leading !== undefined) {
    trace.metadata = leading;
  }
  // Explorer's annotated event lists: `{ messages, annotations, metadata }`
  if (value.annotations !== undefined && value.annotations !== null) {
    if (!Array.isArray(value.annotations)) {
      throw new TraceError({
        code: 'VALIDATION',
        message: `${at(path, 'annotations')}: trace annotations must be an array; got ${describe(value.annotations)}`,
        details: { path: at(path, 'annotations') },
      });
    }
    trace.annotations = value.annotations;
  }
  return trace;
}

/**
 * Parses a dataset (seed 001) from its JSON form `{ name?, metadata?, traces: [...] }`, where
 * each trace is an array of events (a first `{ metadata }` element is its metadata, as in
 * Invariant Explorer's raw event lists) or `{ messages, metadata?, annotations? }` (Explorer's
 * annotated event lists; the annotations are kept as given); a bare array of traces is
 * accepted too. Each trace is normalised with `parseTrace` (JSON-string arguments become
 * objects, tool calls get ids, tool outputs are linked to their calls).
 *
 * @param json - the parsed JSON value
 * @param options - the name to use when the input has none, a callback for replaced lone
 *   surrogates
 * @returns the normalised {@link Dataset}
 * @throws TraceError `VALIDATION` naming the path of the first problem (e.g. `traces.3.messages.2.content`)
 * @example
 * ```ts
 * const dataset = parseDataset({ name: 'swe-bench', metadata: { accuracy: 0.42 }, traces: [[{ role: 'user', content: 'fix the bug' }]] });
 * dataset.traces[0]?.messages[0]?.role; // 'user'
 * ```
 */
export function parseDataset(json: unknown, options: ParseDatasetOptions = {}): Dataset {
  let traces: unknown;
  let name: unknown = options.name ?? 'dataset';
  let metadata: unknown = {};
  let prefix = 'traces';
  if (Array.isArray(json)) {
    traces = json;
    prefix = '';
  } else if (isObject(json)) {
    traces = json.traces;
    if (json.name !== undefined) name = json.name;
    if (json.metadata !== undefined) metadata = json.metadata;
  } else {
    throw new TraceError({
      code: 'VALIDATION',
      message: `a dataset must be an object { name, metadata, traces } or an array of traces; got ${describe(json)}`,
      details: { path: '' },
    });
  }
  if (typeof name !== 'string') {
    throw new TraceError({
      code: 'VALIDATION',
      message: `name: the dataset name must be a string; got ${describe(name)}`,
      details: { path: 'name' },
    });
  }
  if (!isObject(metadata)) {
    throw new TraceError({
      code: 'VALIDATION',
      message: `metadata: the dataset metadata must be an object; got ${describe(metadata)}`,
      details: { path: 'metadata' },
    });
  }
  if (!Array.isArray(traces)) {
    throw new TraceError({
      code: 'VALIDATION',
      message: `traces: a dataset needs a "traces" array; got ${describe(traces)}`,
      details: { path: 'traces' },
    });
  }
  const parsed: DatasetTrace[] = new Array(traces.length);
  for (let i = 0; i < traces.length; i++) {
    parsed[i] = parseDatasetTrace(traces[i], at(prefix, String(i)), options.onLoneSurrogates);
  }
  return { name, metadata, traces: parsed };
}
