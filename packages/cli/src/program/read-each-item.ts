import { CliError } from '../errors/index.js';
import type { Input, InputFormat, InputItem } from '../formats/index.js';
import { openInput } from '../formats/index.js';
import type { CommandContext } from './command-context.js';

/** Options of {@link readEachItem}. */
export interface ReadEachItemOptions {
  format?: InputFormat | undefined;
  maxLineBytes?: number | undefined;
  /** Each line of a file that held bytes that are not UTF-8 (read as U+FFFD). */
  onInvalidUtf8?: ((file: string, line: number) => void) | undefined;
}

/** Outcome of {@link readEachItem}. */
export interface ReadEachItemResult {
  input: Input;
  /** Items handled. */
  items: number;
  /** True when Ctrl-C stopped the reading. */
  interrupted: boolean;
}

const abortedMarker: unique symbol = Symbol('aborted');

/** A system error while reading (EIO, EISDIR, a file gone) names the file instead of crashing. */
function readFailure(file: string, error: unknown): unknown {
  if (CliError.isInstance(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const syscall = (error as { syscall?: unknown } | null)?.syscall;
  if (typeof code !== 'string' || typeof syscall !== 'string') return error;
  return new CliError({
    code: 'CLI_FILE_UNREADABLE',
    file,
    message: `${file}: reading it failed (${error instanceof Error ? error.message : code}); nothing after that point was read`,
    cause: error,
  });
}

/**
 * Races promises against the signal, one at a time. A single abort listener wakes whichever
 * race is pending (racing against one long-lived promise would add a reaction to it per item
 * and keep every item alive).
 */
function createAbortRace(
  signal: AbortSignal,
): <T>(promise: Promise<T>) => Promise<T | typeof abortedMarker> {
  let wake: ((value: typeof abortedMarker) => void) | undefined;
  signal.addEventListener('abort', () => wake?.(abortedMarker), { once: true });
  return <T>(promise: Promise<T>) => {
    if (signal.aborted) {
      promise.catch(() => undefined);
      return Promise.resolve(abortedMarker);
    }
    return new Promise<T | typeof abortedMarker>((resolve, reject) => {
      wake = resolve;
      promise.then(resolve, (error: unknown) =>
        signal.aborted ? resolve(abortedMarker) : reject(error),
      );
    });
  };
}

/**
 * Opens a file and hands each of its items to `onItem`, with a progress bar on a terminal and
 * a clean stop on Ctrl-C: the context's signal ends the reading at once, even while a read is
 * pending (a slow pipe or FIFO), and the read stream is destroyed.
 *
 * @param context - the command context
 * @param file - the file
 * @param options - format and line limit
 * @param onItem - called per item, in order (may be async)
 * @returns the opened input, the number of items, and whether it was interrupted
 */
export async function readEachItem(
  context: CommandContext,
  file: string,
  options: ReadEachItemOptions,
  onItem: (item: InputItem, input: Input) => void | Promise<void>,
): Promise<ReadEachItemResult> {
  const race = createAbortRace(context.signal);
  let bytes = 0;
  const opened = await race(
    openInput(file, {
      format: options.format,
      maxLineBytes: options.maxLineBytes,
      onInvalidUtf8:
        options.onInvalidUtf8 === undefined
          ? undefined
          : (line) => options.onInvalidUtf8?.(file, line),
      signal: context.signal,
      onBytes: (read) => {
        bytes = read;
      },
    }),
  ).catch((error: unknown): typeof abortedMarker => {
    if (!context.signal.aborted) throw readFailure(file, error);
    return abortedMarker;
  });
  if (opened === abortedMarker) {
    const input: Input = {
      file,
      size: 0,
      container: 'jsonl',
      format: options.format ?? 'events',
      items: (async function* () {})(),
    };
    return { input, items: 0, interrupted: true };
  }
  const input = opened;
  const bar = context.progress(file, input.size);
  const iterator = input.items[Symbol.asyncIterator]();
  let items = 0;
  let interrupted = false;
  try {
    for (;;) {
      // only the reading is the file's fault: a failing callback keeps its own error
      const next = await race(iterator.next()).catch((error: unknown) => {
        throw context.signal.aborted ? error : readFailure(file, error);
      });
      if (next === abortedMarker) {
        interrupted = true;
        // not awaited: a read may still be pending; the stream is destroyed by the signal
        iterator.return?.().catch(() => undefined);
        break;
      }
      if (next.done === true) break;
      items++;
      const done = onItem(next.value, input);
      if (done !== undefined) await done;
      bar.update(bytes, items);
    }
  } catch (error) {
    // Ctrl-C destroys the read stream: a pending read may fail with an AbortError
    if (!context.signal.aborted) throw error;
    interrupted = true;
  } finally {
    bar.clear();
  }
  return { input, items, interrupted };
}
