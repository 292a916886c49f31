import { TracewardenError } from '@tracewarden/core';
import { Command, CommanderError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { addKeysCommand, addOrgsCommand } from '../commands/admin-commands.js';
import { addCheckCommand } from '../commands/check-command.js';
import { addConvertCommand } from '../commands/convert-command.js';
import { addPushCommand } from '../commands/push-command.js';
import { addServeCommand } from '../commands/serve-command.js';
import { addStatsCommand } from '../commands/stats-command.js';
import { addValidateCommand } from '../commands/validate-command.js';
import { addViewCommand } from '../commands/view-command.js';
import { CliError, exitCodes } from '../errors/index.js';
import { type CliIo, processIo } from './cli-io.js';
import { type CommandContext, createCommandContext } from './command-context.js';

/** The version printed by `--version`: the package's own, so a release cannot leave it behind. */
export const cliVersion: string = packageJson.version;

/**
 * Builds the `tracewarden` command tree (commander) writing to the context's outputs.
 * @param context - outputs, environment, signal, exit code
 * @returns the root command
 */
export function createProgram(context: CommandContext): Command {
  const program = new Command('tracewarden');
  program
    .description(
      'Validate, view, convert, policy-check and summarise AI agent traces (chat events, datasets, trace blocks, tool-call records).',
    )
    .version(cliVersion, '-v, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.io.stdout.write(text),
      writeErr: (text) => context.io.stderr.write(text),
      outputError: (text, write) => write(context.errorPalette.red(text)),
      getOutHelpWidth: () => context.io.stdout.columns ?? 100,
      getErrHelpWidth: () => context.io.stderr.columns ?? 100,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .showHelpAfterError('(run with --help for usage and examples)')
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      `
Examples:
  $ tracewarden validate traces/*.jsonl
  $ tracewarden view traces/run.jsonl --full
  $ tracewarden convert chat.json --to jsonl -o blocks.jsonl
  $ tracewarden check --policy policy.gr dataset.jsonl
  $ tracewarden stats traces/*.jsonl
  $ tracewarden serve
  $ tracewarden push traces/*.jsonl

Formats (detected per file, or --format): events (chat-event traces), dataset
(traces with metadata), blocks (trace blocks, e.g. the JSONL sink's files),
entries (tool-call TraceEntry records). JSON or JSONL; JSONL is streamed.

Exit codes: 0 ok, 1 problems found (invalid trace, blocking policy violation),
2 usage error (bad option, missing file, unknown format), 130 interrupted (Ctrl-C).
Colour: only on a terminal; NO_COLOR disables it, FORCE_COLOR forces it.`,
    );
  addValidateCommand(program, context);
  addViewCommand(program, context);
  addConvertCommand(program, context);
  addCheckCommand(program, context);
  addStatsCommand(program, context);
  addServeCommand(program, context);
  addOrgsCommand(program, context);
  addKeysCommand(program, context);
  addPushCommand(program, context);
  return program;
}

/**
 * Runs the `tracewarden` command line in process and returns its exit code; never calls
 * `process.exit`. The executable is `runCli(process.argv.slice(2), processIo(signal))`.
 *
 * @param argv - the arguments after the program name, e.g. `['validate', 'run.jsonl']`
 * @param io - outputs, environment and Ctrl-C signal
 * @default io processIo()
 * @returns 0 ok, 1 problems found, 2 usage error, 130 interrupted
 * @example
 * ```ts
 * const out: string[] = [];
 * const code = await runCli(['validate', 'run.jsonl'], {
 *   stdout: { write: (text) => { out.push(text); } },
 *   stderr: { write: (text) => { out.push(text); } },
 * });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const context = createCommandContext(io);
  const program = createProgram(context);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return exitCodes.usage;
    }
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version "errors" are successes; the rest were already printed by commander
      return error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
    }
    const palette = context.errorPalette;
    if (CliError.isInstance(error) && error instanceof CliError) {
      context.err(`${palette.red('error')}: ${error.message}\n`);
      return error.exitCode;
    }
    if (TracewardenError.isInstance(error)) {
      context.err(`${palette.red('error')} ${error.code}: ${error.message}\n`);
      return exitCodes.usage;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    context.err(
      `${palette.red('internal error')}: ${detail}\nThis is a bug in tracewarden; please report it with the command you ran.\n`,
    );
    return exitCodes.problems;
  }
}
