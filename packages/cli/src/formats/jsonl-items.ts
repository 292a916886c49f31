import { isTranscriptMetaLine, isWrappedMessage } from '@tracewarden/core';
import { classifyValue, formatOfKind, type InputFormat, type ValueKind } from './classify-value.js';
import { explorerEventList } from './explorer-event-list.js';
import { foreignEventList } from './foreign-event-list.js';
import type { InputItem, TraceItem } from './input-items.js';
import { isObject } from './is-object.js';
import { parseJson } from './parse-json.js';
import type { TextLine } from './read-lines.js';
import { traceLabel } from './trace-label.js';

const formatDescriptions: Record<InputFormat, string> = {
  events: 'chat-event traces',
  dataset: 'a dataset of chat-event traces',
  blocks: 'trace blocks',
  entries: 'trace entries (tool call records)',
};

const kindDescriptions: Record<ValueKind, string> = {
  trace: 'a chat-event trace',
  traces: 'a list of chat-event traces',
  dataset: 'a dataset',
  'dataset-header': "a dataset's metadata",
  event: 'a chat event',
  block: 'a block',
  blocks: 'a list of blocks',
  entry: 'a trace entry',
  entries: 'a list of trace entries',
};

/**
 * The kind of a line among the lines of a Claude Code session file or Agent SDK output: a line
 * with a `type` and neither `role` nor `message` is one of its lines about the session, of a
 * type this reader does not know (a newer Claude Code's), which `unwrapAgentTranscript` keeps as
 * such; read alone it would be no format, or a dataset's metadata, and end the session's trace.
 */
function transcriptKind(value: unknown, kind: ValueKind | undefined): ValueKind | undefined {
  if (kind !== undefined && kind !== 'dataset-header') return kind;
  return isObject(value) &&
    value.role === undefined &&
    value.message === undefined &&
    typeof value.type === 'string'
    ? 'event'
    : kind;
}

/** A dataset is a collection of event traces: a line of either may stand in the other's file. */
function sameFamily(a: InputFormat, b: InputFormat): boolean {
  const family = (f: InputFormat) => (f === 'dataset' ? 'events' : f);
  return family(a) === family(b);
}

/**
 * @internal The items of a JSONL file, one line at a time: consecutive chat-event lines make one
 * trace; a line that is not JSON, over the line limit or of another format than the file's is a
 * problem item, and reading goes on.
 * @param peeked - the lines already read to tell the format, read again first
 * @param rest - the lines after them (closed when reading ends, early or not)
 * @param format - the file's format
 * @param forced - whether `--format` gave it (problems then do not say where it was detected)
 * @param maxLineBytes - the line limit, for the message of a line over it
 * @param onInvalidUtf8 - each line that held bytes that are not UTF-8
 */
export async function* jsonlItems(
  peeked: TextLine[],
  rest: AsyncIterator<TextLine>,
  format: InputFormat,
  forced: boolean,
  maxLineBytes: number,
  onInvalidUtf8?: ((line: number) => void) | undefined,
): AsyncGenerator<InputItem> {
  let traceIndex = 0;
  let formatLine: number | undefined;
  let pendingEvents: unknown[] = [];
  let pendingLines: number[] = [];
  // whether the pending events are the lines of a Claude Code session file or Agent SDK output
  let pendingTranscript = false;

  const traceItem = (read: unknown, line: number, lines?: number[]): TraceItem => {
    const index = traceIndex++;
    // a run in another API's shape is read as chat events; lines stay those of the file
    const { trace: value, sourceOf } = foreignEventList(explorerEventList(read).trace);
    return {
      type: 'trace',
      value,
      index,
      label: traceLabel(value, index),
      line,
      lineOfEvent:
        lines === undefined
          ? () => line
          : (event) => {
              const source = sourceOf === undefined ? event : sourceOf(event);
              return source === undefined ? line : lines[source];
            },
    };
  };
  function* flushEvents(): Generator<InputItem> {
    if (pendingEvents.length === 0) return;
    const lines = pendingLines;
    const item = traceItem(pendingEvents, lines[0] ?? 0, lines);
    pendingEvents = [];
    pendingLines = [];
    pendingTranscript = false;
    yield item;
  }

  function* itemsOf(text: string, line: number): Generator<InputItem> {
    const parsed = parseJson(text);
    if (!parsed.ok) {
      yield {
        type: 'problem',
        line,
        column: parsed.column,
        code: 'VALIDATION',
        message: `invalid JSON at column ${parsed.column}: ${parsed.reason}; each line of a JSONL file must be one complete JSON value`,
      };
      return;
    }
    const value = parsed.value;
    // a line of a session file of a type not known here does not end its trace: all of a
    // session file's lines are one run, its tool calls and their results together
    const classified = classifyValue(value);
    const kind = pendingTranscript ? transcriptKind(value, classified) : classified;
    if (kind !== 'event') yield* flushEvents();
    if (kind !== undefined && !sameFamily(formatOfKind(kind), format)) {
      yield {
        type: 'problem',
        line,
        code: 'VALIDATION',
        message: `line holds ${kindDescriptions[kind]}, but this file holds ${formatDescriptions[format]}${formatLine === undefined || forced ? '' : ` (detected from line ${formatLine})`}; keep one format per file`,
      };
      return;
    }
    formatLine ??= line;
    if (format === 'blocks' || format === 'entries') {
      const type = format === 'blocks' ? 'block' : 'entry';
      if (Array.isArray(value))
        for (let i = 0; i < value.length; i++)
          yield { type, value: value[i], line, path: String(i) };
      else yield { type, value, line, path: '' };
      return;
    }
    switch (kind) {
      case 'event':
        pendingEvents.push(value);
        pendingLines.push(line);
        if (!pendingTranscript)
          pendingTranscript = isWrappedMessage(value) || isTranscriptMetaLine(value);
        return;
      case 'dataset': {
        const { traces, ...metadata } = value as Record<string, unknown>;
        yield { type: 'dataset-metadata', value: metadata, line };
        for (const trace of Array.isArray(traces) ? traces : []) yield traceItem(trace, line);
        return;
      }
      case 'dataset-header': {
        // a dataset's metadata line is its first record, and holds nothing but metadata: any
        // other line with a `name` or a `metadata` (a misspelt `mesages`, a LangSmith run) is
        // a record that cannot be read, never a header swallowed in silence
        const unread = headerProblem(value as Record<string, unknown>, formatLine === line);
        if (unread !== undefined) {
          yield { type: 'problem', line, code: 'VALIDATION', message: unread };
          return;
        }
        yield { type: 'dataset-metadata', value, line };
        return;
      }
      case 'traces':
        for (const trace of value as unknown[]) yield traceItem(trace, line);
        return;
      default:
        yield traceItem(value, line);
    }
  }

  function* handle(line: TextLine): Generator<InputItem> {
    if (line.tooLong !== undefined) {
      yield {
        type: 'problem',
        line: line.line,
        code: 'PAYLOAD_TOO_LARGE',
        message: `line is ${line.tooLong.bytes} bytes, over the ${maxLineBytes}-byte line limit; it was skipped (raise the limit with --max-line-bytes if the record is legitimate)`,
      };
      return;
    }
    if (line.invalidUtf8 === true) onInvalidUtf8?.(line.line);
    if (line.text.trim() === '') return;
    yield* itemsOf(line.text, line.line);
  }

  try {
    for (const line of peeked) yield* handle(line);
    for (;;) {
      const next = await rest.next();
      if (next.done === true) break;
      yield* handle(next.value);
    }
    yield* flushEvents();
  } finally {
    await rest.return?.();
  }
}

/** The keys a dataset's metadata line is known to hold (others are kept, not read). */
const headerKeys = new Set([
  'name',
  'description',
  'metadata',
  'version',
  'id',
  'created_at',
  'updated_at',
  'tags',
  'annotations',
]);

/**
 * Why a line read as a dataset's metadata is not one: it is not the file's first record, or it
 * holds keys no header has (its events under a misspelt key, a run export); else `undefined`.
 */
function headerProblem(value: Record<string, unknown>, first: boolean): string | undefined {
  const others = Object.keys(value).filter((key) => !headerKeys.has(key));
  const listed = others.find((key) => {
    const list = value[key];
    return Array.isArray(list) && typeof list[0] === 'object' && list[0] !== null;
  });
  // a LangSmith-style run: its messages are inside `inputs` / `outputs`
  const run = 'run_type' in value || ('inputs' in value && 'outputs' in value);
  const hint = run
    ? '; it looks like a run export (inputs, outputs), which is not read: export its messages as a trace ({"messages": [...]})'
    : listed === undefined
      ? others.length > 0
        ? `; its keys (${others.slice(0, 5).join(', ')}) hold no events this reader knows`
        : ''
      : `; its records look to be under "${listed}", which is not read: put events under "messages"`;
  if (!first)
    return `line holds a name or metadata but no events: a dataset's metadata belongs on the file's first line, and a trace needs "messages" or "events"${hint}`;
  // a header keeps any other field of its own (an owner, a split); a list of records is none
  if (listed !== undefined || run)
    return `line is no dataset metadata line and holds no events${hint}`;
  return undefined;
}
