import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { configurationError, validateOptions } from '../errors/validate-options.js';
import type { Block } from '../model/index.js';
import { nodeFs, nodeFsPromises } from '../platform/node-builtins.js';
import type { Sink } from './sink.js';
import { SinkError } from './sink-error.js';
import { jsonlFileSinkOptionsSchema } from './sink-options-schema.js';
import { forgetUnwritten, trackUnwritten, type UnwrittenBlocks } from './unwritten-at-exit.js';

/** Options of {@link createJsonlFileSink}. */
export interface JsonlFileSinkOptions {
  /**
   * Buffered size (in UTF-16 code units of the serialized lines, close to bytes for ASCII) past
   * which a background append starts. Nothing is written synchronously from `write()`.
   * @default 65536
   */
  bufferBytes?: number;
  /** Called on every failed append (background or from `flush`), with the {@link SinkError}. */
  onError?: (error: SinkError) => void;
  /** Call `datasync()` after each append, so a flushed block survives a power loss. @default false */
  sync?: boolean;
  /**
   * Write blocks still buffered when the process exits (`process.exit()`, the end of the event
   * loop) synchronously, instead of only warning that they were not written. Blocks of an append
   * in flight at that moment may still be lost (and are reported). A tracer created with
   * `flushOnExit: true` turns this on for its file sinks.
   * @default false: buffered blocks at exit are reported in one warning on stderr
   */
  flushOnExit?: boolean;
}

/** A {@link Sink} appending one JSON block per line to a file. */
export interface JsonlFileSink extends Sink {
  /** The file appended to. */
  readonly path: string;
  /** Blocks accepted by `write()` and not yet on disk. */
  readonly pendingBlocks: number;
}

/**
 * The exit-check state of a JSONL file sink: a tracer with `flushOnExit` turns its
 * `writeAtExit` on.
 * @internal
 */
export const exitStateKey: unique symbol = Symbol('tracewarden.jsonlSinkExitState');

/** @internal Default size of the write buffer. */
const defaultJsonlBufferBytes = 64 * 1024;

const newline = 10;
const empty = new Uint8Array(0);

function pendingBlocksOf(this: { [exitStateKey]?: UnwrittenBlocks }): number {
  return this[exitStateKey]?.pendingBlocks?.() ?? 0;
}

// One getter shared by every JSONL file sink: a getter written in the object literal gives each
// sink a hidden class of its own, which (in old space) keeps the sink's state alive across
// scavenges until a full GC, as in create-memory-sink.ts (decision 080).
const pendingBlocksProperty: PropertyDescriptor = {
  get: pendingBlocksOf,
  enumerable: true,
  configurable: true,
};

function countNewlines(buffer: Uint8Array): number {
  let count = 0;
  for (let i = buffer.indexOf(newline); i !== -1; i = buffer.indexOf(newline, i + 1)) count++;
  return count;
}

/**
 * Creates a sink that appends each block as one JSON line to `path` (JSONL, the seed's block
 * fields exactly). `write()` serialises the block and keeps the line, so a value inside it that
 * the caller changes afterwards (the tracer freezes a block, not the arguments or output it
 * holds) is written as it was at `write()`; lines are appended together, in the background once
 * the buffer passes `bufferBytes`, and on `flush()` / `close()`, which resolve only when every
 * block written before the call is on disk. Parent directories are created.
 *
 * A failed append is never silent: the error goes to `onError`, the next `flush()` rejects
 * with a {@link SinkError} `SINK_WRITE_FAILED` naming the path and cause, and the unwritten
 * bytes stay buffered, so a later `flush()` writes them exactly once when the cause is fixed.
 * After a background failure no further background appends are attempted until a `flush()`.
 * Blocks still buffered when the process exits without `flush()` are not written: call
 * `tracer.shutdown()` (or `flush()`) before exiting, or set `flushOnExit` (here, or on the
 * tracer, which also flushes on `beforeExit`, SIGINT and SIGTERM). They are never lost
 * silently: at exit, one warning on stderr says how many blocks were not written, and where.
 *
 * @param path - the file to append to (created, with its directories, on the first append)
 * @param options - buffer size, error callback and durability
 * @returns a {@link JsonlFileSink}
 * @example
 * ```ts
 * const tracer = createTracer({ sinks: [createJsonlFileSink('traces/run.jsonl')] });
 * tracer.logMessage({ role: 'user', content: 'hi' });
 * await tracer.shutdown(); // every block is in traces/run.jsonl
 * ```
 */
export function createJsonlFileSink(
  path: string,
  options: JsonlFileSinkOptions = {},
): JsonlFileSink {
  if (typeof path !== 'string' || path === '')
    throw configurationError('createJsonlFileSink', 'path', 'a non-empty file path', path);
  validateOptions(jsonlFileSinkOptionsSchema, options, { entryPoint: 'createJsonlFileSink' });
  const bufferBytes = options.bufferBytes ?? defaultJsonlBufferBytes;
  const onError = options.onError;
  const sync = options.sync ?? false;

  // Lines written and not yet handed to an append. A block is serialised in write(), so its text
  // is what it held then: serialising at append wrote a value the caller changed after write()
  // as changed (the tracer freezes a block, not the arguments or output it holds). Decision 080.
  let lines: string[] = [];
  // UTF-16 code units of `lines`, newlines included
  let bufferedUnits = 0;
  // Unwritten tail of a failed append; written before anything newer.
  let head: Uint8Array | undefined;
  let headBlocks = 0;
  let tail: Promise<SinkError | undefined> = Promise.resolve(undefined);
  let backgroundScheduled = false;
  let backgroundFailed = false;
  let closed = false;
  let closing: Promise<void> | undefined;
  // Blocks of the append in flight (taken out of `lines`, not yet known to be on disk).
  let inFlightBlocks = 0;
  // Registered with the exit check while anything is unwritten (see unwritten-at-exit.ts).
  let tracked = false;
  const exitState: UnwrittenBlocks = {
    path,
    writeAtExit: options.flushOnExit === true,
    unwrittenBlocks: () => headBlocks + lines.length + inFlightBlocks,
    pendingBlocks: () => headBlocks + lines.length,
    writeNow,
  };
  // Blocks write() could not serialise: they are lost, so every later flush() says so.
  let unwritable: SinkError | undefined;
  let unwritableCount = 0;
  const unwritableIds: string[] = [];

  /**
   * Appends `data`; on failure reports how many bytes did reach the file. The file is opened
   * per append (one per `bufferBytes` of blocks), so no descriptor stays open between flushes
   * and a fixed path is picked up by the next attempt.
   */
  async function appendAll(data: Uint8Array): Promise<{ written: number; cause?: unknown }> {
    let written = 0;
    let handle: FileHandle | undefined;
    try {
      const { mkdir, open } = nodeFsPromises();
      // the directory is made only when missing: a mkdir per append was one more round trip
      // through the thread pool for every bufferBytes of blocks
      try {
        handle = await open(path, 'a');
      } catch (cause) {
        if ((cause as { code?: unknown } | null)?.code !== 'ENOENT') throw cause;
        await mkdir(dirname(path), { recursive: true });
        handle = await open(path, 'a');
      }
      while (written < data.length) {
        const result = await handle.write(data, written, data.length - written);
        written += result.bytesWritten;
      }
      if (sync) await handle.datasync();
      const opened = handle;
      handle = undefined;
      await opened.close();
      return { written };
    } catch (cause) {
      if (handle !== undefined) await handle.close().catch(() => undefined);
      return { written, cause: cause ?? 'unknown error' };
    }
  }

  /** How many lines the last {@link encodeBuffered} took. */
  let serializedLines = 0;

  /**
   * The buffered lines as JSONL (every line ends with a newline), UTF-8 encoded; empties the
   * buffer, setting {@link serializedLines}.
   */
  function encodeBuffered(): Uint8Array {
    const texts = lines;
    const units = bufferedUnits;
    lines = [];
    bufferedUnits = 0;
    serializedLines = texts.length;
    if (serializedLines === 0) return empty;
    // Each line encoded straight into one buffer (a UTF-16 unit is at most 3 UTF-8 bytes): a
    // join of the lines and a Buffer.from of the result cost ~2.5 µs more per guarded call
    // (two blocks) in bench/guards.bench.ts's JSONL rows.
    const data = Buffer.allocUnsafe(units * 3);
    let at = 0;
    for (let i = 0; i < texts.length; i++) {
      at += data.write(texts[i] as string, at);
      data[at++] = newline;
    }
    return data.subarray(0, at);
  }

  /** Keeps one block's line; starts a background append once `bufferBytes` are buffered. */
  function keep(line: string): void {
    lines.push(line);
    bufferedUnits += line.length + 1;
    if (!tracked) {
      tracked = true;
      trackUnwritten(exitState);
    }
    if (bufferedUnits >= bufferBytes && !backgroundScheduled && !backgroundFailed) {
      backgroundScheduled = true;
      void enqueue().then((error) => {
        backgroundScheduled = false;
        if (error !== undefined) backgroundFailed = true;
      });
    }
  }

  async function appendFlight(
    data: Uint8Array,
    count: number,
  ): Promise<{ written: number; cause?: unknown }> {
    inFlightBlocks = count;
    const outcome = await appendAll(data);
    inFlightBlocks = 0;
    return outcome;
  }

  async function drain(): Promise<SinkError | undefined> {
    if (lines.length === 0 && head === undefined) return undefined;
    const encoded = encodeBuffered();
    const data = head === undefined ? encoded : Buffer.concat([head, encoded]);
    const count = headBlocks + serializedLines;
    head = undefined;
    headBlocks = 0;
    const { written, cause } = data.length === 0 ? { written: 0 } : await appendFlight(data, count);
    if (cause === undefined) {
      if (tracked && lines.length === 0 && head === undefined) {
        tracked = false;
        forgetUnwritten(exitState);
      }
      return undefined;
    }
    if (written < data.length) {
      head = data.subarray(written);
      headBlocks = written === 0 ? count : countNewlines(head);
    }
    return report(cause);
  }

  /**
   * The process is exiting: appends what is buffered synchronously (no event loop is left).
   * Returns the blocks still unwritten: those of an append in flight, or all when this fails.
   */
  function writeNow(): number {
    if (headBlocks + lines.length === 0) return inFlightBlocks;
    // encoded once: a failed write keeps the bytes as the head, to be counted as unwritten
    const fresh = encodeBuffered();
    if (fresh.length > 0) {
      head = head === undefined ? fresh : Buffer.concat([head, fresh]);
      headBlocks += serializedLines;
    }
    if (head === undefined) return inFlightBlocks;
    try {
      const { appendFileSync, mkdirSync } = nodeFs();
      mkdirSync(dirname(path), { recursive: true });
      appendFileSync(path, head);
      head = undefined;
      headBlocks = 0;
      return inFlightBlocks;
    } catch {
      return headBlocks + inFlightBlocks;
    }
  }

  function report(cause: unknown): SinkError {
    const pending = headBlocks + lines.length;
    const reason = cause instanceof Error ? cause.message : String(cause);
    const error = new SinkError({
      code: 'SINK_WRITE_FAILED',
      message: `jsonl file sink: could not append to ${path} (${reason}); ${pending} block${pending === 1 ? ' is' : 's are'} kept in memory and retried by the next flush(). Check that the path is a writable file.`,
      path,
      pendingBlocks: pending,
      cause,
    });
    onError?.(error);
    return error;
  }

  function enqueue(): Promise<SinkError | undefined> {
    tail = tail.then(drain);
    return tail;
  }

  async function flush(): Promise<void> {
    const error = await enqueue();
    if (error !== undefined) throw error;
    backgroundFailed = false;
    if (unwritable !== undefined) throw unwritable;
  }

  /** A block with no JSON form (a cycle, a BigInt, extreme nesting): lost, and never silently. */
  function dropUnwritable(block: Block, cause: unknown): void {
    unwritableCount++;
    if (unwritableIds.length < 5) unwritableIds.push(String(block?.id));
    let reason: string;
    try {
      reason = cause instanceof Error ? cause.message : String(cause);
    } catch {
      reason = 'an unreadable error';
    }
    const more = unwritableCount > unwritableIds.length ? ', ...' : '';
    unwritable = new SinkError({
      code: 'SINK_WRITE_FAILED',
      message: `jsonl file sink: ${unwritableCount} block${unwritableCount === 1 ? '' : 's'} (${unwritableIds.join(', ')}${more}) could not be serialised as JSON (${reason}) and ${unwritableCount === 1 ? 'was' : 'were'} not written to ${path}. Validate blocks before writing them (createTracer and validateBlocks reject such blocks); every later flush() reports this, so create a new sink to start clean.`,
      path,
      pendingBlocks: headBlocks + lines.length,
      droppedBlocks: unwritableCount,
      cause,
    });
    onError?.(unwritable);
  }

  const sink = {
    path,

    write(block: Block) {
      if (closed) {
        throw new SinkError({
          code: 'SINK_CLOSED',
          message: `jsonl file sink: write() of block ${String((block as { id?: unknown } | null | undefined)?.id)} after close() of ${path}; create a new sink`,
          path,
        });
      }
      let line: string | undefined;
      try {
        line = JSON.stringify(block);
      } catch (cause) {
        dropUnwritable(block, cause);
        return;
      }
      // `undefined` (a function, a symbol): no JSON text at all
      if (typeof line !== 'string') dropUnwritable(block, 'it has no JSON form');
      else keep(line);
    },

    flush,

    close() {
      closed = true;
      if (closing === undefined) {
        closing = flush();
        // a failed close may be retried (the blocks are still buffered)
        closing.catch(() => {
          closing = undefined;
        });
      }
      return closing;
    },
  };
  (sink as { [exitStateKey]?: UnwrittenBlocks })[exitStateKey] = exitState;
  Object.defineProperty(sink, 'pendingBlocks', pendingBlocksProperty);
  return sink as typeof sink & Pick<JsonlFileSink, 'pendingBlocks'>;
}
