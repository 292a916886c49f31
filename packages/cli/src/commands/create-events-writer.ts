import { blocksToEvents } from '@tracewarden/core';
import { isObject } from '../formats/is-object.js';
import { writeText } from '../output/index.js';
import type { CliOutput } from '../program/cli-io.js';
import { type GroupedTrace, liftTraceFields } from '../traces/index.js';

type JsonObject = Record<string, unknown>;

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
  /** Writes what is still held; call once, after the last trace. */
  finish(): Promise<void>;
}

/** A trace as one JSONL line: its events, its own fields, and its id in its metadata. */
function traceLine(trace: ConvertedTrace): string {
  const metadata = isObject(trace.fields?.metadata) ? trace.fields.metadata : {};
  // a trace whose own fields give its id (as `traceLabel` reads them) is already named
  const named = [metadata.id, metadata.trace_id, trace.fields?.id, trace.fields?.trace_id].includes(
    trace.traceId,
  );
  const record = {
    messages: trace.messages,
    ...trace.fields,
    metadata: named ? metadata : { ...metadata, trace_id: trace.traceId },
  };
  return `${JSON.stringify(record)}\n`;
}

/**
 * The writer of `convert --to events`: one trace is a JSON array of events (a JSON object
 * `{ messages, metadata, annotations, ... }` when the trace object had fields besides its events);
 * several are JSONL, one `{ messages, ...fields, metadata: { ..., trace_id } }` per line. When
 * the blocks carry a dataset's fields (`metadata.chat_dataset`, decision 003), the output is
 * that dataset as JSONL: its `{ name, metadata }` header line, then a line per trace. Blocks
 * converted from events give the events back, with each trace's and the dataset's fields.
 *
 * @param output - where to write
 * @returns the writer
 * @example
 * ```ts
 * const writer = createEventsWriter(context.io.stdout);
 * await forEachTrace(context, [file], {}, (trace) => writer.write(trace));
 * await writer.finish();
 * ```
 */
export function createEventsWriter(output: CliOutput): EventsWriter {
  let first: ConvertedTrace | undefined;
  let written = 0;
  let header = false;
  const writeLine = async (trace: ConvertedTrace) => {
    if (!header && trace.dataset !== undefined) {
      header = true;
      await writeText(output, `${JSON.stringify(trace.dataset)}\n`);
    }
    header = true;
    await writeText(output, traceLine(trace));
  };
  return {
    async write(grouped) {
      const lifted = liftTraceFields(grouped.blocks);
      const trace: ConvertedTrace = {
        traceId: grouped.traceId,
        messages: blocksToEvents(lifted.blocks, { traceId: grouped.traceId }),
        fields: lifted.trace,
        dataset: lifted.dataset,
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
      if (first === undefined) return;
      const trace = first;
      first = undefined;
      if (trace.dataset !== undefined) return writeLine(trace);
      const value =
        trace.fields === undefined ? trace.messages : { messages: trace.messages, ...trace.fields };
      await writeText(output, `${JSON.stringify(value, null, 2)}\n`);
    },
  };
}
