import type { Block } from '@tracewarden/core';
import type { InputFormat } from '../formats/index.js';
import type { CommandContext } from '../program/command-context.js';
import { readEachItem } from '../program/read-each-item.js';
import { createBlockConverter } from './create-block-converter.js';

/** The traces of some files, as blocks grouped by trace. */
export interface CollectedTraces {
  /** Blocks of each trace, keyed by trace id, in first-seen order. */
  traces: Map<string, Block[]>;
  /** A report name per trace id (metadata id, `#index`, session id). */
  labels: Map<string, string>;
  /** The file each trace was read from. */
  files: Map<string, string>;
  /** Items skipped because they could not be read or converted. */
  skipped: number;
  interrupted: boolean;
}

/**
 * Reads files whole into blocks grouped by trace (for `view`, `convert --to events` and
 * `check`, which need whole traces). Unreadable items are reported on stderr and skipped.
 *
 * @param context - command context
 * @param files - input files
 * @param options - forced format and line limit
 * @returns the traces
 */
export async function collectTraces(
  context: CommandContext,
  files: readonly string[],
  options: {
    format?: InputFormat | undefined;
    maxLineBytes?: number | undefined;
    labelTraceIds?: boolean | undefined;
  },
): Promise<CollectedTraces> {
  const collected: CollectedTraces = {
    traces: new Map(),
    labels: new Map(),
    files: new Map(),
    skipped: 0,
    interrupted: false,
  };
  const converter = createBlockConverter({
    labelTraceIds: options.labelTraceIds === true,
    onSkip: (skip) => {
      collected.skipped++;
      context.err(
        `${context.errorPalette.yellow('skipped')} ${currentFile}${skip.line === undefined ? '' : `:${skip.line}`}: ${skip.message}\n`,
      );
    },
  });
  let currentFile = '';
  for (const file of files) {
    currentFile = file;
    const result = await readEachItem(context, file, options, (item) => {
      for (const block of converter.convert(item)) {
        let blocks = collected.traces.get(block.trace_id);
        if (blocks === undefined) {
          blocks = [];
          collected.traces.set(block.trace_id, blocks);
          collected.files.set(block.trace_id, file);
        }
        blocks.push(block);
      }
    });
    if (result.interrupted) {
      collected.interrupted = true;
      break;
    }
  }
  for (const [traceId, label] of converter.labels) collected.labels.set(traceId, label);
  return collected;
}
