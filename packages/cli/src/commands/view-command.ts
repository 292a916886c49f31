import { renderTree, type StitchedTrace, stitchTraces } from '@tracewarden/core';
import type { Command } from 'commander';
import { CliError, exitCodes } from '../errors/index.js';
import type { InputFormat } from '../formats/index.js';
import { useColor } from '../output/index.js';
import type { CommandContext } from '../program/command-context.js';
import {
  formatOption,
  maxLineBytesOption,
  parsePositiveInteger,
} from '../program/shared-options.js';
import { collectTraces } from '../traces/index.js';

/** Options of {@link viewFile} (the `view` command's flags). */
export interface ViewOptions {
  format?: InputFormat | undefined;
  /** Show values in full instead of truncated to the terminal width. */
  full?: boolean | undefined;
  /** Print the stitched JSON instead of the tree. */
  json?: boolean | undefined;
  /** Only this trace (by trace id or label). */
  trace?: string | undefined;
  /** Force colour on (`true`) or off (`false`); default: on a terminal without NO_COLOR. */
  color?: boolean | undefined;
  /** Line width of the tree. @default the terminal width, else 120 */
  width?: number | undefined;
  maxLineBytes?: number | undefined;
}

/**
 * Prints the stitched tree of each trace in a file (chat-event traces and entries are converted
 * to blocks first), or the stitched JSON with `json` (one object for one trace, an array for
 * several).
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
  const collected = await collectTraces(context, [file], { ...options, labelTraceIds: true });
  // in file order (stitchTraces orders by trace id)
  const order = [...collected.traces.keys()];
  let stitched: StitchedTrace[] = stitchTraces([...collected.traces.values()].flat()).sort(
    (a, b) => order.indexOf(a.trace_id) - order.indexOf(b.trace_id),
  );
  if (options.trace !== undefined) {
    const wanted = options.trace;
    stitched = stitched.filter(
      (trace) => trace.trace_id === wanted || collected.labels.get(trace.trace_id) === wanted,
    );
    if (stitched.length === 0) {
      const known = [...collected.labels.values()].slice(0, 10).join(', ');
      throw new CliError({
        code: 'CLI_USAGE',
        message: `${file} has no trace "${wanted}"; its traces are: ${known}${collected.labels.size > 10 ? ', ...' : ''}`,
      });
    }
  }
  if (options.json === true) {
    const value = stitched.length === 1 ? stitched[0] : stitched;
    await context.out(`${JSON.stringify(value, null, 2)}\n`);
  } else {
    const color = options.color ?? useColor(context.io.stdout, context.env);
    const maxWidth = options.width ?? context.io.stdout.columns ?? 120;
    const trees = stitched.map((trace) =>
      renderTree(trace, { color, full: options.full === true, maxWidth }),
    );
    await context.out(trees.length === 0 ? `${file}: no traces\n` : `${trees.join('\n\n')}\n`);
  }
  if (collected.interrupted) return exitCodes.interrupted;
  return collected.skipped > 0 ? exitCodes.problems : exitCodes.ok;
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
      'Show each trace of a file as its stitched tree: messages, thinks, tool calls with arguments and results, durations, tokens, cost, guard decisions and policy violations. Values are truncated to the terminal width for display only (--full shows them whole). Chat-event traces and trace entries are converted to blocks first.',
    )
    .argument('<file>', 'a trace file (.json or .jsonl)')
    .addOption(formatOption())
    .option('--full', 'show every value in full')
    .option(
      '--json',
      'print the stitched JSON (seed 002 blocks.stitched shape) instead of the tree',
    )
    .option('-t, --trace <id>', 'only the trace with this id (or label, e.g. #2)')
    .option('--color', 'colour the tree even when stdout is not a terminal')
    .option('--no-color', 'never colour the tree')
    .option(
      '--width <columns>',
      'line width of the tree (default: terminal width, else 120)',
      parsePositiveInteger,
    )
    .addOption(maxLineBytesOption())
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
