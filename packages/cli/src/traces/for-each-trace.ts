import type { Block } from '@tracewarden/core';
import type { BlockItem, InputFormat, TraceItem } from '../formats/index.js';
import type { CommandContext } from '../program/command-context.js';
import { readEachItem } from '../program/read-each-item.js';
import type { LoneSurrogatesInTrace } from '../warnings/index.js';
import {
  type ConversionSkip,
  createBlockConverter,
  type EmptyTrace,
  type UnknownSubType,
} from './create-block-converter.js';

/** The blocks of one trace, handed over as soon as the trace is finished. */
export interface GroupedTrace {
  traceId: string;
  /** A report name: the trace id, or a chat-event trace's label (`#2`, its metadata id). */
  label: string;
  /** The file the trace was read from. */
  file: string;
  /** Line of the trace's first block (JSONL), when known. */
  line: number | undefined;
  blocks: Block[];
  /**
   * The line each block was read from, index for index with `blocks` (the record a chat event or
   * trace entry was converted from); `undefined` in a JSON document.
   */
  lines: (number | undefined)[];
  /**
   * True when earlier blocks of this trace were already handed over as another part (the file
   * interleaves more traces than `maxOpenTraces`).
   */
  continued: boolean;
  /**
   * With `emptyTraces`, a chat-event trace with no events (so no blocks): its own fields and its
   * dataset's, which otherwise ride on its first block.
   */
  empty?:
    | {
        trace: Record<string, unknown> | undefined;
        dataset: Record<string, unknown> | undefined;
      }
    | undefined;
}

/** Options of {@link forEachTrace}. */
export interface ForEachTraceOptions {
  format?: InputFormat | undefined;
  maxLineBytes?: number | undefined;
  /** Each line of a file that held bytes that are not UTF-8 (read as U+FFFD). */
  onInvalidUtf8?: ((file: string, line: number) => void) | undefined;
  /** Name chat-event traces without an id by their label (`#0`), for display. @default false */
  labelTraceIds?: boolean | undefined;
  /** Ids from each chat-event trace's content (see `createBlockConverter`). @default false */
  contentIds?: boolean | undefined;
  /** With `contentIds`, block ids that run on through each file (see `createBlockConverter`). */
  fileBlockIds?: boolean | undefined;
  /** Blocks handed on as the file gives them (see `createBlockConverter`). */
  blocksAsGiven?: boolean | undefined;
  /**
   * Traces of a JSONL file kept open at once once the file turns out to interleave traces
   * (least recently used is finished first). @default 256
   */
  maxOpenTraces?: number | undefined;
  /**
   * Keep only the traces this accepts, each whole until the end of its file (whatever the
   * interleaving); every other block is dropped as it is read. `position` is the trace's
   * 0-based place among the file's traces (a chat-event trace's index, else the order in which
   * trace ids first appear), so that `#2` names the third trace of any file.
   */
  only?: ((traceId: string, label: string, position: number) => boolean) | undefined;
  /** Items that cannot be read or converted. @default a `skipped` line on stderr */
  onSkip?: ((file: string, skip: ConversionSkip) => void) | undefined;
  /**
   * Blocks left out because their `sub_type` is unknown, instead of `onSkip` (to tally them and
   * say so once per value); they count as skipped either way.
   */
  onUnknownSubType?: ((file: string, found: UnknownSubType) => void) | undefined;
  /** Chat-event traces whose text held lone surrogates, read as U+FFFD (see `createBlockConverter`). */
  onLoneSurrogates?: ((file: string, found: LoneSurrogatesInTrace) => void) | undefined;
  /** Chat-event traces with no events, so no blocks (see `createBlockConverter`). */
  onEmptyTrace?: ((file: string, found: EmptyTrace) => void) | undefined;
  /**
   * Hand over chat-event traces with no events too (with no blocks, and their fields as
   * `empty`), in their place among the file's traces, so that they are counted and kept.
   * @default false
   */
  emptyTraces?: boolean | undefined;
  /** Each dataset's own fields as read (`{ name, metadata }`), even of a dataset with no traces. */
  onDatasetMetadata?: ((value: unknown, file: string) => void) | undefined;
  /** Chat-event traces given `<id>_2` as another trace has their id (see `createBlockConverter`). */
  onRenamedTrace?:
    | ((file: string, found: { label: string; line: number | undefined; traceId: string }) => void)
    | undefined;
  /** Whether a chat-event trace may be converted (see `createBlockConverter`). @default every one */
  isValidTrace?: ((item: TraceItem, file: string) => boolean) | undefined;
  /** Each block item as read (see `createBlockConverter`). */
  onBlockItem?: ((item: BlockItem, file: string) => void) | undefined;
  /** Chat-event traces as read, instead of as blocks (for commands that use them directly). */
  onTraceItem?: ((item: TraceItem, file: string) => void | Promise<void>) | undefined;
}

/** Outcome of {@link forEachTrace}. */
export interface ForEachTraceResult {
  /** Traces (and parts of traces) handed over. */
  traces: number;
  /** Items skipped because they could not be read or converted. */
  skipped: number;
  /** Traces that came back after they were finished, so were handed over in several parts. */
  splitTraces: number;
  /** The first ten trace labels read (for "no such trace" messages), and whether there were more. */
  labels: { first: string[]; more: boolean };
  interrupted: boolean;
}

/** Finished trace ids remembered to notice a trace coming back (two generations of this many). */
const rememberedFinished = 65_536;

/**
 * Blocks of earlier traces kept open while a file's traces look contiguous: small interleaved
 * files are grouped whole, big contiguous ones hold about this many blocks besides the current
 * trace.
 */
const contiguousBlockBudget = 10_000;

interface OpenTrace {
  traceId: string;
  label: string;
  line: number | undefined;
  blocks: Block[];
  lines: (number | undefined)[];
  continued: boolean;
  empty?: GroupedTrace['empty'] | undefined;
}

/**
 * Reads files one item at a time and hands over each trace's blocks as soon as the trace is
 * finished, so memory holds a few traces, not the file. Chat-event traces and trace entries are
 * converted to blocks first (`createBlockConverter`); unreadable items are reported on stderr and
 * skipped.
 *
 * When a trace is finished: the JSONL sink writes each trace's blocks together, so while a file's
 * traces are contiguous, earlier traces are finished (least recently used first) as soon as they
 * hold more than 10,000 blocks between them, or more than `maxOpenTraces` traces are open. Once a
 * block goes back to an earlier trace (the file interleaves traces; trace-entry files start that
 * way), only the `maxOpenTraces` limit applies. A block of a trace already finished starts a new
 * part of it (`continued`, counted in `splitTraces`). Everything still open is finished at the
 * end of each file; a JSON document (in memory anyway) is grouped whole.
 *
 * @param context - command context (stderr, signal, progress bar)
 * @param files - input files
 * @param options - format, line limit, open-trace limit, filter
 * @param onTrace - called with each finished trace, in the order they finish (may be async)
 * @returns counts, and whether Ctrl-C stopped the reading
 * @example
 * ```ts
 * await forEachTrace(context, ['run.jsonl'], {}, (trace) => check(blocksToEvents(trace.blocks)));
 * ```
 */
export async function forEachTrace(
  context: CommandContext,
  files: readonly string[],
  options: ForEachTraceOptions,
  onTrace: (trace: GroupedTrace) => void | Promise<void>,
): Promise<ForEachTraceResult> {
  const maxOpenTraces = options.maxOpenTraces ?? 256;
  const result: ForEachTraceResult = {
    traces: 0,
    skipped: 0,
    splitTraces: 0,
    labels: { first: [], more: false },
    interrupted: false,
  };
  let currentFile = '';
  // the empty trace the item being converted turned out to be (see `emptyTraces`)
  let emptyTrace: EmptyTrace | undefined;
  const converter = createBlockConverter({
    labelTraceIds: options.labelTraceIds === true,
    contentIds: options.contentIds === true,
    fileBlockIds: options.fileBlockIds === true,
    blocksAsGiven: options.blocksAsGiven === true,
    onSkip: (skip) => {
      result.skipped++;
      if (options.onSkip !== undefined) return options.onSkip(currentFile, skip);
      context.err(
        `${context.errorPalette.yellow('skipped')} ${currentFile}${skip.line === undefined ? '' : `:${skip.line}`}: ${skip.message}\n`,
      );
    },
    onLoneSurrogates: (found) => options.onLoneSurrogates?.(currentFile, found),
    onEmptyTrace: (found) => {
      emptyTrace = found;
      options.onEmptyTrace?.(currentFile, found);
    },
    onRenamedTrace: (found) => options.onRenamedTrace?.(currentFile, found),
    ...(options.isValidTrace === undefined
      ? {}
      : { isValidTrace: (item: TraceItem) => options.isValidTrace?.(item, currentFile) ?? true }),
    ...(options.onBlockItem === undefined
      ? {}
      : { onBlockItem: (item: BlockItem) => options.onBlockItem?.(item, currentFile) }),
    ...(options.onUnknownSubType === undefined
      ? {}
      : {
          onUnknownSubType: (found: UnknownSubType) => {
            result.skipped++;
            options.onUnknownSubType?.(currentFile, found);
          },
        }),
  });

  for (const file of files) {
    currentFile = file;
    converter.startFile();
    // Least recently used first (re-inserted on use, except for runs of one trace's blocks).
    const open = new Map<string, OpenTrace>();
    const kept = new Map<string, OpenTrace>();
    let last: OpenTrace | undefined;
    let recentFinished = new Set<string>();
    let olderFinished = new Set<string>();
    let started = false;
    let interleaved = false;
    let whole = false;
    let previousTraceId: string | undefined;
    // blocks held by the open traces (when a trace starts, all of them belong to earlier ones)
    let openBlocks = 0;
    // with `only`: each trace id's place among the file's traces
    const positions = new Map<string, number>();
    const finish = async (trace: OpenTrace) => {
      if (open.delete(trace.traceId)) openBlocks -= trace.blocks.length;
      if (last === trace) last = undefined;
      if (recentFinished.size >= rememberedFinished) {
        olderFinished = recentFinished;
        recentFinished = new Set();
      }
      recentFinished.add(trace.traceId);
      result.traces++;
      await onTrace({ ...trace, file });
    };
    const wasFinished = (traceId: string) =>
      recentFinished.has(traceId) || olderFinished.has(traceId);
    const noteLabel = (label: string) => {
      const { first } = result.labels;
      if (first.includes(label)) return;
      if (first.length < 10) first.push(label);
      else result.labels.more = true;
    };

    // finish the least recently used traces, never the one just started
    const evict = async () => {
      while (!whole && open.size > 1) {
        const overBudget = !interleaved && openBlocks > contiguousBlockBudget;
        if (open.size <= maxOpenTraces && !overBudget) break;
        const oldest = open.values().next().value;
        if (oldest === undefined) break;
        await finish(oldest);
      }
    };
    const read = await readEachItem(context, file, options, async (item, input) => {
      if (!started) {
        started = true;
        whole = input.container === 'json';
        interleaved = input.format === 'entries';
      }
      if (item.type === 'trace' && options.onTraceItem !== undefined) {
        noteLabel(item.label);
        await options.onTraceItem(item, file);
        return;
      }
      if (item.type === 'dataset-metadata') options.onDatasetMetadata?.(item.value, file);
      const line = 'line' in item ? item.line : undefined;
      emptyTrace = undefined;
      const blocks = converter.convert(item);
      if (emptyTrace !== undefined && item.type === 'trace' && options.emptyTraces === true) {
        // no blocks: taken in its place among the file's traces, as one that is finished
        const { traceId, traceFields, datasetFields } = emptyTrace;
        noteLabel(item.label);
        previousTraceId = traceId;
        const trace: OpenTrace = {
          traceId,
          label: item.label,
          line,
          blocks: [],
          lines: [],
          continued: false,
          empty: { trace: traceFields, dataset: datasetFields },
        };
        if (options.only !== undefined) {
          if (options.only(traceId, item.label, item.index)) kept.set(traceId, trace);
        } else {
          open.set(traceId, trace);
          await evict();
        }
        return;
      }
      for (const block of blocks) {
        const traceId = block.trace_id;
        if (last !== undefined && last.traceId === traceId) {
          last.blocks.push(block);
          last.lines.push(line);
          if (options.only === undefined) openBlocks++;
          continue;
        }
        const label = item.type === 'trace' ? item.label : traceId;
        if (traceId !== previousTraceId) {
          previousTraceId = traceId;
          noteLabel(label);
        }
        let trace: OpenTrace | undefined;
        if (options.only !== undefined) {
          trace = kept.get(traceId);
          if (trace === undefined) {
            let position = positions.get(traceId);
            if (position === undefined) {
              position = item.type === 'trace' ? item.index : positions.size;
              positions.set(traceId, position);
            }
            if (!options.only(traceId, label, position)) continue;
            trace = { traceId, label, line, blocks: [], lines: [], continued: false };
            kept.set(traceId, trace);
          }
        } else {
          trace = open.get(traceId);
          if (trace !== undefined) {
            // back to a trace still open: the file interleaves traces
            interleaved = true;
            open.delete(traceId);
            open.set(traceId, trace);
          } else {
            const continued = wasFinished(traceId);
            if (continued) {
              result.splitTraces++;
              interleaved = true;
            }
            trace = { traceId, label, line, blocks: [], lines: [], continued };
            open.set(traceId, trace);
            await evict();
          }
        }
        last = trace;
        trace.blocks.push(block);
        trace.lines.push(line);
        if (options.only === undefined) openBlocks++;
      }
    });
    if (read.interrupted || context.signal.aborted) {
      result.interrupted = true;
      break;
    }
    for (const trace of [...open.values(), ...kept.values()]) {
      if (context.signal.aborted) break;
      await finish(trace);
    }
    if (context.signal.aborted) {
      result.interrupted = true;
      break;
    }
  }
  return result;
}
