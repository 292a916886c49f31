import type { InputFormat, InputItem, Input } from '../formats/index.js';
import { openInput } from '../formats/index.js';
import type { CommandContext } from './command-context.js';

/** Options of {@link readEachItem}. */
export interface ReadEachItemOptions {
  format?: InputFormat | undefined;
  maxLineBytes?: number | undefined;
}

/** Outcome of {@link readEachItem}. */
export interface ReadEachItemResult {
  input: Input;
  /** Items handled. */
  items: number;
  /** True when Ctrl-C stopped the reading. */
  interrupted: boolean;
}

/**
 * Opens a file and hands each of its items to `onItem`, with a progress bar on a terminal and
 * a clean stop on Ctrl-C (the context's signal).
 *
 * @param context - the command context
 * @param file - the file
 * @param options - format and line limit
 * @param onItem - called per item, in order (may be async)
 * @returns the opened input, the number of items, and whether it was interrupted
 * @internal
 */
export async function readEachItem(
  context: CommandContext,
  file: string,
  options: ReadEachItemOptions,
  onItem: (item: InputItem, input: Input) => void | Promise<void>,
): Promise<ReadEachItemResult> {
  let bytes = 0;
  const input = await openInput(file, {
    format: options.format,
    maxLineBytes: options.maxLineBytes,
    onBytes: (read) => {
      bytes = read;
    },
  });
  const bar = context.progress(file, input.size);
  let items = 0;
  let interrupted = false;
  try {
    for await (const item of input.items) {
      if (context.signal.aborted) {
        interrupted = true;
        break;
      }
      items++;
      const done = onItem(item, input);
      if (done !== undefined) await done;
      bar.update(bytes, items);
    }
    if (context.signal.aborted) interrupted = true;
  } finally {
    bar.clear();
  }
  return { input, items, interrupted };
}
