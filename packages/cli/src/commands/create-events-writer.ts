import { blocksToEvents } from '@tracewarden/core';
import { isObject } from '../formats/is-object.js';
import { writeText } from '../output/index.js';
import type { CliOutput } from '../program/cli-io.js';
import { contentTraceIdOf } from '../traces/content-trace-id.js';
import { type GroupedTrace, liftTraceFields, namesTrace } from '../traces/index.js';
import { datasetFieldsOf } from '../traces/trace-fields.js';

type JsonObject = Record<string, unknown>;

/** The shape of an id `convert` gives a trace from its content (`contentTraceId`). */
const contentIdPattern = /^tr_[0-9a-f]{26}$/;

interface ConvertedTrace {
  traceId: string;
  messages: ReturnType<typeof blocksToEvents>;
  /** What the trace object held besides its events (`metadata.chat_trace` of its blocks). */
  fields: JsonObject | undefined;
  /** Its dataset's own fields (`metadata.chat_dataset`). */
  dataset: JsonObject | undefined;
}

/** Writes converted traces as chat events, one at a time. */
export interface EventsWriter {
  /** Converts one trace's blocks and writes it (the first waits to know if a second comes). */
  write(trace: GroupedTrace): Promise<void>;
  /**
   * A dataset's own fields as read: written by `finish` when the dataset has no trace to carry
   * them (`{ name, metadata, traces: [] }` stays itself).
   */
  noteDataset(value: unknown): void;
  /** Writes what is still held; call once, after the last trace. */
  finish(): Promise<void>;
}

/**
 * The trace object's fields, with its id as `metadata.trace_id` unless its own fields already
 * give it (as `traceLabel` reads them), or its metadata holds another `trace_id` (never
 * overwritten: a renamed duplicate keeps the id it had, decision 003).
 */
function namedFields(trace: ConvertedTrace): JsonObject {
  const metadata = isObject(trace.fields?.metadata) ? trace.fields.metadata : {};
  if (namesTrace(trace.fields, trace.traceId) || metadata.trace_id !== undefined)
    return { ...trace.fields };
  return { ...trace.fields, metadata: { ...metadata, trace_id: trace.traceId } };
}

/**
 * A file's only trace as `convert --to events` writes it: a trace with metadata gets its id back
 * there (a `metadata.trace_id` that named it is kept as the trace id); one without stays a plain
 * event list, or its own fields, when that reads back under the same id (the id of its content,
 * as `convert` and `push` name a trace without one). Any other id (a block file's
 * `tr_01JD3X4Y5Z`, an id its metadata gave) goes in its metadata, as for several traces, so that
 * it is never lost.
 */
function singleTraceValue(trace: ConvertedTrace): unknown {
  if (isObject(trace.fields?.metadata)) return { messages: trace.messages, ...namedFields(trace) };
  const value =
    trace.fields === undefined ? trace.messages : { messages: trace.messages, ...trace.fields };
  if (namesTrace(trace.fields, trace.traceId)) return value;
  // only an id of that shape can be the content's (the check reads the whole trace again), as a
  // JSON value, as it is read back
  if (
    contentIdPattern.test(trace.traceId) &&
    contentTraceIdOf(JSON.parse(JSON.stringify(value))) === trace.traceId
  )
    return value;
  return { messages: trace.messages, ...namedFields(trace) };
}

/** A trace as one compact JSON value: its events, its own fields, and its id in its metadata. */
function traceText(trace: ConvertedTrace): string {
  return JSON.stringify({ messages: trace.messages, ...namedFields(trace) });
}

/**
 * How `convert --to events` lays traces out: `lines` (a `.jsonl` / `.ndjson` file) one compact
 * line per trace, always; `document` (a `.json` file) one JSON document, always; `auto` (stdout,
 * other names) one trace as a JSON document and several as lines.
 */
export type EventsLayout = 'auto' | 'lines' | 'document';

/**
 * The layout a file name asks for, so that what `convert` writes is read back as it was meant
 * (`validate` reads a `.json` file as one document and a `.jsonl` file line by line).
 * @param path - the output file, or undefined / `-` for stdout
 * @returns the layout
 */
export function eventsLayoutOf(path: string | undefined): EventsLayout {
  const name = path?.toLowerCase() ?? '';
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson')) return 'lines';
  if (name.endsWith('.json')) return 'document';
  return 'auto';
}

/**
 * The writer of `convert --to events`. One trace is a JSON array of events (a JSON object
 * `{ messages, metadata, annotations, ... }` when the trace object had fields besides its events,
 * or an id that a plain list would not be read back under: `{ messages, metadata: { trace_id } }`);
 * several are JSONL, one `{ messages, ...fields, metadata: { ..., trace_id } }` per line, or in a
 * `.json` file a JSON array of such objects. When the blocks carry a dataset's fields
 * (`metadata.chat_dataset`, decision 003), the output is that dataset: its `{ name, metadata }`
 * header line then a line per trace, or in a `.json` file `{ name, metadata, traces: [...] }`.
 * Blocks converted from events give the events back, with each trace's and the dataset's fields.
 *
 * @param output - where to write
 * @param layout - see {@link EventsLayout} @default 'auto'
 * @returns the writer
 * @example
 * ```ts
 * const writer = createEventsWriter(context.io.stdout);
 * await forEachTrace(context, [file], {}, (trace) => writer.write(trace));
 * await writer.finish();
 * ```
 */
export function createEventsWriter(output: CliOutput, layout: EventsLayout = 'auto'): EventsWriter {
  let first: ConvertedTrace | undefined;
  let written = 0;
  let dataset: JsonObject | undefined;
  // what closes the document once every trace is written ('' for lines)
  let closing: string | undefined;
  const open = async (trace: ConvertedTrace) => {
    if (layout === 'document') {
      if (trace.dataset === undefined) {
        closing = '\n]\n';
        return writeText(output, '[\n');
      }
      const head = JSON.stringify(trace.dataset);
      closing = '\n]}\n';
      return writeText(output, `${head.slice(0, -1)},"traces":[\n`);
    }
    closing = '';
    if (trace.dataset !== undefined) await writeText(output, `${JSON.stringify(trace.dataset)}\n`);
  };
  const writeLine = async (trace: ConvertedTrace) => {
    const text = traceText(trace);
    if (closing === undefined) {
      await open(trace);
      await writeText(output, layout === 'document' ? text : `${text}\n`);
      return;
    }
    await writeText(output, layout === 'document' ? `,\n${text}` : `${text}\n`);
  };
  return {
    noteDataset(value) {
      dataset ??= datasetFieldsOf(value);
    },
    async write(grouped) {
      const lifted = liftTraceFields(grouped.blocks);
      const trace: ConvertedTrace = {
        traceId: grouped.traceId,
        messages: blocksToEvents(lifted.blocks, { traceId: grouped.traceId }),
        // a trace with no events has no block to carry its fields: they come with it
        fields: lifted.trace ?? grouped.empty?.trace,
        dataset: lifted.dataset ?? grouped.empty?.dataset,
      };
      written++;
      if (written === 1) {
        first = trace;
        return;
      }
      if (first !== undefined) {
        await writeLine(first);
        first = undefined;
      }
      await writeLine(trace);
    },
    async finish() {
      if (first !== undefined) {
        const trace = first;
        first = undefined;
        if (layout === 'lines' || trace.dataset !== undefined) {
          await writeLine(trace);
        } else {
          await writeText(output, `${JSON.stringify(singleTraceValue(trace), null, 2)}\n`);
          return;
        }
      }
      if (closing !== undefined && closing !== '') await writeText(output, closing);
      else if (written === 0 && dataset !== undefined) {
        // a dataset with no traces is still itself: its name and metadata
        await writeText(
          output,
          layout === 'lines'
            ? `${JSON.stringify(dataset)}\n`
            : `${JSON.stringify({ ...dataset, traces: [] }, null, 2)}\n`,
        );
      } else if (written === 0 && layout === 'document') await writeText(output, '[]\n');
    },
  };
}
