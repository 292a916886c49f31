import { createReadStream, constants as fsConstants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { CliError } from '../errors/index.js';
import { classifyValue, formatOfKind, type InputFormat, type ValueKind } from './classify-value.js';
import { parseJson } from './parse-json.js';
import { readLines, type TextLine } from './read-lines.js';
import { scanJson } from './scan-json.js';

/** Whether a file is one JSON document or JSON Lines. */
export type Container = 'json' | 'jsonl';

/** A problem found while reading a file, before any trace validation. */
export interface ReadProblem {
  type: 'problem';
  /** 1-based line, when known. */
  line: number | undefined;
  /** 1-based column, for JSON syntax errors. */
  column?: number;
  /** Where in the document (JSON path), for JSON documents. */
  path?: string;
  /** The seed's `VALIDATION` (not JSON, wrong format) or `PAYLOAD_TOO_LARGE` (line over the limit). */
  code: 'VALIDATION' | 'PAYLOAD_TOO_LARGE';
  message: string;
}

/** One chat-event trace of a file. */
export interface TraceItem {
  type: 'trace';
  /** The trace as read: an array of events or `{ messages | events, metadata? }`. */
  value: unknown;
  /** 0-based position of this trace among the file's traces. */
  index: number;
  /** A name for the trace in reports: its metadata id when it has one, else `#index`. */
  label: string;
  /** Line of the trace's first event (JSONL: its line). */
  line: number | undefined;
  /** Line of event `i`, when it can be known. */
  lineOfEvent(index: number): number | undefined;
}

/** One block of a file. */
export interface BlockItem {
  type: 'block';
  value: unknown;
  line: number | undefined;
  /** JSON path in a JSON document (`'12'`), empty for JSONL. */
  path: string;
}

/** One `TraceEntry` of a file. */
export interface EntryItem {
  type: 'entry';
  value: unknown;
  line: number | undefined;
  path: string;
}

/** A dataset's own metadata. */
export interface DatasetMetadataItem {
  type: 'dataset-metadata';
  value: unknown;
  line: number | undefined;
}

/** What {@link openInput} yields, in file order. */
export type InputItem = TraceItem | BlockItem | EntryItem | DatasetMetadataItem | ReadProblem;

/** Options of {@link openInput}. */
export interface OpenInputOptions {
  /** Skip detection and read the file as this format. */
  format?: InputFormat | undefined;
  /** Longest JSONL line kept, in bytes. @default 67108864 */
  maxLineBytes?: number | undefined;
  /** Called with bytes read so far (JSONL) for progress display. */
  onBytes?: ((bytes: number) => void) | undefined;
  /** Aborting it stops reading at once (the read stream is destroyed with an `AbortError`). */
  signal?: AbortSignal | undefined;
}

/** An opened input file: its detected shape, and its items as a stream. */
export interface Input {
  file: string;
  /** File size in bytes. */
  size: number;
  container: Container;
  /** The format read: given with `--format`, or detected from the first record. */
  format: InputFormat;
  /** The items in file order; JSONL files are read one line at a time. */
  items: AsyncIterable<InputItem>;
}

/** Default longest JSONL line, in bytes (64 MiB). */
export const defaultMaxLineBytes = 64 * 1024 * 1024;

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

const unknownFormatHint =
  'expected chat events ([{"role": ...}]), a dataset ({"traces": [...]}), blocks ({"sub_type": ...}) or trace entries ({"call": ..., "result": ...}); pass --format events|dataset|blocks|entries to choose';

function sameFamily(a: InputFormat, b: InputFormat): boolean {
  const family = (f: InputFormat) => (f === 'dataset' ? 'events' : f);
  return family(a) === family(b);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(base: string, part: string | number): string {
  return base === '' ? String(part) : `${base}.${part}`;
}

/**
 * A report name for a trace: its `metadata.id`, `id` or `trace_id` when it has one.
 */
export function traceLabel(value: unknown, index: number): string {
  if (isObject(value)) {
    const metadata = value.metadata;
    for (const candidate of [
      isObject(metadata) ? metadata.id : undefined,
      value.id,
      value.trace_id,
    ]) {
      if (typeof candidate === 'string' && candidate !== '') return candidate;
      if (typeof candidate === 'number') return String(candidate);
    }
  }
  return `#${index}`;
}

function eventsPath(value: unknown, path: string): string {
  if (isObject(value)) {
    if (Array.isArray(value.messages)) return join(path, 'messages');
    if (Array.isArray(value.events)) return join(path, 'events');
  }
  return path;
}

async function checkFile(file: string): Promise<number> {
  try {
    const info = await stat(file);
    if (info.isDirectory()) {
      throw new CliError({
        code: 'CLI_FILE_UNREADABLE',
        file,
        message: `${file} is a directory; pass the trace files inside it (e.g. ${file}/*.jsonl)`,
      });
    }
    // stat works on a file we may not read (mode 000, another user's file): ask now, so the
    // reader never meets EACCES halfway through a command
    await access(file, fsConstants.R_OK);
    return info.size;
  } catch (error) {
    if (CliError.isInstance(error)) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') {
      throw new CliError({
        code: 'CLI_FILE_NOT_FOUND',
        file,
        message: `${file}: no such file; check the path (relative paths start from the current directory)`,
        cause: error,
      });
    }
    throw new CliError({
      code: 'CLI_FILE_UNREADABLE',
      file,
      message: `${file}: cannot read it (${code ?? String(error)}${code === 'EACCES' ? ': permission denied' : ''}); check its permissions`,
      cause: error,
    });
  }
}

/**
 * Opens a trace file: tells JSON from JSONL (by extension, else by whether the first line is a
 * JSON value on its own), detects the format from the first record unless `format` is given,
 * and streams the file's traces, blocks or entries. JSONL is read one line at a time, so files
 * larger than memory work; a JSON document is read whole.
 *
 * @param file - path of the file
 * @param options - forced format, line limit, progress callback
 * @returns the opened input
 * @throws CliError `CLI_FILE_NOT_FOUND`, `CLI_FILE_UNREADABLE`, or `CLI_UNKNOWN_FORMAT` when the
 *   first record matches no format and none was given
 * @example
 * ```ts
 * const input = await openInput('run.jsonl');
 * for await (const item of input.items) if (item.type === 'block') console.log(item.line);
 * ```
 */
export async function openInput(file: string, options: OpenInputOptions = {}): Promise<Input> {
  const size = await checkFile(file);
  const extension = extname(file).toLowerCase();
  const readLineOptions = {
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    ...(options.onBytes === undefined ? {} : { onBytes: options.onBytes }),
  };
  let container: Container | undefined =
    extension === '.jsonl' || extension === '.ndjson'
      ? 'jsonl'
      : extension === '.json'
        ? 'json'
        : undefined;

  if (container !== 'json') {
    const stream = createReadStream(
      file,
      options.signal === undefined ? {} : { signal: options.signal },
    );
    const lines = readLines(stream, readLineOptions)[Symbol.asyncIterator]();
    // Peek until the first line that tells the format, replaying what was read.
    const peeked: TextLine[] = [];
    let format = options.format;
    let firstParsed: boolean | undefined;
    for (;;) {
      const next = await lines.next();
      if (next.done === true) break;
      peeked.push(next.value);
      const text = next.value.text;
      if (text === undefined || text.trim() === '') continue;
      const parsed = parseJson(text);
      firstParsed ??= parsed.ok;
      if (parsed.ok) {
        const kind = classifyValue(parsed.value);
        if (kind !== undefined) format ??= formatOfKind(kind);
      }
      if (format !== undefined || peeked.length >= 100 || (container === undefined && !parsed.ok))
        break;
    }
    if (container === undefined && firstParsed === false) {
      // The first line alone is not JSON: a pretty-printed JSON document.
      stream.destroy();
    } else {
      container = 'jsonl';
      if (
        format === undefined &&
        peeked.some((line) => line.text !== undefined && line.text.trim() !== '')
      ) {
        const firstGood = peeked.find((line) => line.text !== undefined && parseJson(line.text).ok);
        if (firstGood !== undefined) {
          stream.destroy();
          throw new CliError({
            code: 'CLI_UNKNOWN_FORMAT',
            file,
            line: firstGood.line,
            message: `${file}:${firstGood.line}: cannot tell the format; ${unknownFormatHint}`,
          });
        }
      }
      const resolved = format ?? 'events';
      return {
        file,
        size,
        container,
        format: resolved,
        items: jsonlItems(
          peeked,
          lines,
          resolved,
          options.format !== undefined,
          options.maxLineBytes ?? defaultMaxLineBytes,
        ),
      };
    }
  }

  const text = await readFile(file, {
    encoding: 'utf8',
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  }).catch((error: unknown) => {
    if (options.signal?.aborted === true) throw error;
    throw new CliError({
      code: 'CLI_FILE_UNREADABLE',
      file,
      message: `${file}: cannot read it as one JSON document (${error instanceof Error ? error.message : String(error)}); a file this large should be JSONL, one record per line`,
      cause: error,
    });
  });
  options.onBytes?.(size);
  const parsed = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!parsed.ok) {
    const problem: ReadProblem = {
      type: 'problem',
      line: parsed.line,
      column: parsed.column,
      code: 'VALIDATION',
      message: `invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}; fix the file (or, for JSONL, keep one record per line)`,
    };
    return {
      file,
      size,
      container: 'json',
      format: options.format ?? 'events',
      items: singleItem(problem),
    };
  }
  const kind = classifyValue(parsed.value);
  if (kind === undefined && options.format === undefined) {
    if (text.trim() === '')
      return { file, size, container: 'json', format: 'events', items: singleItem() };
    throw new CliError({
      code: 'CLI_UNKNOWN_FORMAT',
      file,
      message: `${file}: cannot tell the format; ${unknownFormatHint}`,
    });
  }
  const format = options.format ?? formatOfKind(kind ?? 'trace');
  let offsets: Map<string, number> | undefined;
  let newlines: number[] | undefined;
  const lineOf = (path: string): number | undefined => {
    offsets ??= scanJson(text, 4).offsets;
    const offset = offsets.get(path);
    if (offset === undefined) return undefined;
    if (newlines === undefined) {
      newlines = [];
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines.push(i);
    }
    let low = 0;
    let high = newlines.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((newlines[middle] ?? 0) < offset) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  };
  return {
    file,
    size,
    container: 'json',
    format,
    items: documentItems(parsed.value, kind, format, lineOf),
  };
}

async function* singleItem(item?: InputItem): AsyncGenerator<InputItem> {
  if (item !== undefined) yield item;
}

async function* documentItems(
  value: unknown,
  kind: ValueKind | undefined,
  format: InputFormat,
  lineOf: (path: string) => number | undefined,
): AsyncGenerator<InputItem> {
  let traceIndex = 0;
  const trace = (traceValue: unknown, path: string): TraceItem => {
    const index = traceIndex++;
    const base = eventsPath(traceValue, path);
    return {
      type: 'trace',
      value: traceValue,
      index,
      label: traceLabel(traceValue, index),
      get line() {
        return lineOf(join(base, 0)) ?? lineOf(path);
      },
      lineOfEvent: (event) => lineOf(join(base, event)),
    };
  };
  // an object literal's getter: `Object.defineProperty` with a new getter per item would give
  // every item its own hidden class (kept until a full GC, and a young-GC root)
  const located = (type: 'block' | 'entry', item: unknown, path: string): BlockItem | EntryItem =>
    ({
      type,
      value: item,
      path,
      get line() {
        return lineOf(path);
      },
    }) as BlockItem | EntryItem;

  if (format === 'blocks' || format === 'entries') {
    const type = format === 'blocks' ? 'block' : 'entry';
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) yield located(type, value[i], String(i));
    } else {
      yield located(type, value, '');
    }
    return;
  }
  if (kind === 'dataset' && isObject(value)) {
    const { traces, ...metadata } = value;
    yield { type: 'dataset-metadata', value: metadata, line: 1 };
    const list = Array.isArray(traces) ? traces : [];
    for (let i = 0; i < list.length; i++) yield trace(list[i], join('traces', i));
    return;
  }
  if (kind === 'traces' && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield trace(value[i], String(i));
    return;
  }
  if (kind === 'event') {
    yield trace([value], '');
    return;
  }
  yield trace(value, '');
}

async function* jsonlItems(
  peeked: TextLine[],
  rest: AsyncIterator<TextLine>,
  format: InputFormat,
  forced: boolean,
  maxLineBytes: number,
): AsyncGenerator<InputItem> {
  let traceIndex = 0;
  let formatLine: number | undefined;
  let pendingEvents: unknown[] = [];
  let pendingLines: number[] = [];

  const traceItem = (value: unknown, line: number, lines?: number[]): TraceItem => {
    const index = traceIndex++;
    return {
      type: 'trace',
      value,
      index,
      label: traceLabel(value, index),
      line,
      lineOfEvent: lines === undefined ? () => line : (event) => lines[event],
    };
  };
  function* flushEvents(): Generator<InputItem> {
    if (pendingEvents.length === 0) return;
    const lines = pendingLines;
    const item = traceItem(pendingEvents, lines[0] ?? 0, lines);
    pendingEvents = [];
    pendingLines = [];
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
    const kind = classifyValue(value);
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
        return;
      case 'dataset': {
        const { traces, ...metadata } = value as Record<string, unknown>;
        yield { type: 'dataset-metadata', value: metadata, line };
        for (const trace of Array.isArray(traces) ? traces : []) yield traceItem(trace, line);
        return;
      }
      case 'dataset-header':
        yield { type: 'dataset-metadata', value, line };
        return;
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
