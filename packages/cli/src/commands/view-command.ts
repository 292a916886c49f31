import { type StitchedTrace, stitchBlocks } from '@tracewarden/core';
import type { Command } from 'commander';
import { CliError, exitCodes } from '../errors/index.js';
import type { InputFormat } from '../formats/index.js';
import { useColor } from '../output/index.js';
import { renderViewTree } from '../output/render-view-tree.js';
import type { CommandContext } from '../program/command-context.js';
import {
  formatOption,
  maxLineBytesOption,
  maxOpenTracesOption,
  parsePositiveInteger,
} from '../program/shared-options.js';
import { forEachTrace, splitTracesNote } from '../traces/index.js';
import { createUnknownSubTypeTally } from '../traces/unknown-sub-type.js';
import { formatWarning } from '../warnings/index.js';
import { createInvalidUtf8Tally } from '../warnings/invalid-utf8-tally.js';

/** Options of {@link viewFile} (the `view` command's flags). */
export interface ViewOptions {
  format?: InputFormat | undefined;
  /** Show values in full instead of truncated to the terminal width. */
  full?: boolean | undefined;
  /** Print the stitched JSON instead of the tree. */
  json?: boolean | undefined;
  /** Only this trace: by trace id, label (a metadata id), or place in the file (`#0` is the first). */
  trace?: string | undefined;
  /** Force colour on (`true`) or off (`false`); default: on a terminal without NO_COLOR. */
  color?: boolean | undefined;
  /** Line width of the tree. @default the terminal width, else 120 */
  width?: number | undefined;
  maxLineBytes?: number | undefined;
  /** Traces of a JSONL block file kept open at once when the file interleaves traces. @default 256 */
  maxOpenTraces?: number | undefined;
}

/**
 * Prints the stitched tree of each trace in a file (chat-event traces and entries are converted
 * to blocks first), or the stitched JSON with `json` (one object for one trace, an array for
 * several). Traces are printed one by one as each is finished ({@link forEachTrace}), so memory
 * holds a few traces, not the file; with `trace`, only that trace is kept (whole, however its
 * blocks are spread through the file).
 *
 * @param context - outputs, environment, signal
 * @param file - the trace file
 * @param options - display options
 * @returns the exit code (0, or 1 when parts of the file could not be read)
 * @example
 * ```ts
 * await viewFile(context, 'run.jsonl', { full: true });
 * ```
 */
export async function viewFile(
  context: CommandContext,
  file: string,
  options: ViewOptions,
): Promise<number> {
  const wanted = options.trace;
  const color = options.color ?? useColor(context.io.stdout, context.env);
  const maxWidth = options.width ?? context.io.stdout.columns ?? 120;
  let printed = 0;
  // --json: one trace prints as an object, several as an array, so the first waits for a second
  let firstJson: string | undefined;
  const indent = (text: string) => text.replaceAll('\n', '\n  ');
  const unknownSubTypes = createUnknownSubTypeTally();
  const invalidUtf8 = createInvalidUtf8Tally('read');
  const print = async (trace: StitchedTrace) => {
    printed++;
    if (options.json !== true) {
      const tree = renderViewTree(trace, { color, full: options.full === true, maxWidth });
      await context.out(`${printed === 1 ? '' : '\n'}${tree}\n`);
      return;
    }
    const text = JSON.stringify(trace, null, 2);
    if (printed === 1) {
      firstJson = text;
      return;
    }
    if (firstJson !== undefined) {
      await context.out(`[\n  ${indent(firstJson)}`);
      firstJson = undefined;
    }
    await context.out(`,\n  ${indent(text)}`);
  };
  const result = await forEachTrace(
    context,
    [file],
    {
      format: options.format,
      maxLineBytes: options.maxLineBytes,
      maxOpenTraces: options.maxOpenTraces,
      labelTraceIds: true,
      // a trace with no events is shown too, so that view counts the traces validate counts
      emptyTraces: true,
      onInvalidUtf8: invalidUtf8.add,
      onUnknownSubType: (at, found) =>
        unknownSubTypes.add(found.subType, { file: at, line: found.line, address: found.address }),
      only:
        wanted === undefined
          ? undefined
          : (traceId, label, position) =>
              traceId === wanted || label === wanted || wanted === `#${position}`,
    },
    (trace) => print(stitchBlocks(trace.blocks, { traceId: trace.traceId })),
  );
  if (result.interrupted) {
    if (firstJson !== undefined) await context.out(`${firstJson}\n`);
    else if (options.json === true && printed > 1) await context.out('\n]\n');
    return exitCodes.interrupted;
  }
  if (wanted !== undefined && printed === 0) {
    const known = result.labels.first.join(', ');
    throw new CliError({
      code: 'CLI_USAGE',
      message: `${file} has no trace "${wanted}"; its traces are: ${known}${result.labels.more ? ', ...' : ''} (or by place in the file: #0 is the first)`,
    });
  }
  if (options.json === true) {
    if (printed === 0) await context.out('[]\n');
    else if (firstJson !== undefined) await context.out(`${firstJson}\n`);
    else await context.out('\n]\n');
  } else if (printed === 0) {
    await context.out(`${file}: no traces\n`);
  }
  for (const warning of [...invalidUtf8.warnings(), ...unknownSubTypes.warnings()])
    context.err(`${formatWarning(warning, context.errorPalette)}\n`);
  if (result.splitTraces > 0)
    context.err(
      `${context.errorPalette.yellow('note')}: ${splitTracesNote(result.splitTraces, options.maxOpenTraces, 'shown')}\n`,
    );
  return result.skipped > 0 ? exitCodes.problems : exitCodes.ok;
}

/**
 * Adds `tracewarden view <file>` to the program.
 * @param program - the root command
 * @param context - the command context
 * @returns the subcommand
 */
export function addViewCommand(program: Command, context: CommandContext): Command {
  return program
    .command('view')
    .summary('show the stitched tree of each trace in a file')
    .description(
      'Show each trace of a file as its stitched tree: messages, thinks, tool calls with arguments and results, durations, tokens, cost, guard decisions and policy violations. Values are truncated to the terminal width for display only (--full shows them whole). Chat-event traces and trace entries are converted to blocks first. Traces are printed one by one as they are read, so large files work (--trace keeps just one).',
    )
    .argument('<file>', 'a trace file (.json or .jsonl)')
    .addOption(formatOption())
    .option('--full', 'show every value in full')
    .option(
      '--json',
      'print the stitched JSON (seed 002 blocks.stitched shape) instead of the tree',
    )
    .option(
      '-t, --trace <id>',
      'only the trace with this id, or metadata id, or place in the file (#0 is the first, in any format)',
    )
    .option('--color', 'colour the tree even when stdout is not a terminal')
    .option('--no-color', 'never colour the tree')
    .option(
      '--width <columns>',
      'line width of the tree (default: terminal width, else 120)',
      parsePositiveInteger,
    )
    .addOption(maxLineBytesOption())
    .addOption(
      maxOpenTracesOption('while their blocks are read (each trace is shown when finished)'),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ tracewarden view traces/run.jsonl
  $ tracewarden view chat.json --full | less -R
  $ tracewarden view blocks.jsonl --trace tr_01JD3X4Y5Z --json > stitched.json`,
    )
    .action(async (file: string, options: ViewOptions) => {
      context.exitCode = await viewFile(context, file, options);
    });
}
