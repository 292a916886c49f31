import { knownChatRoles } from '@tracewarden/core';
import type { Command } from 'commander';
import { emptyValidationCounts } from '../checking/create-stream-validator.js';
import {
  createStreamValidator,
  type StreamValidator,
  type ValidationCounts,
} from '../checking/index.js';
import { exitCodes } from '../errors/index.js';
import type { InputFormat } from '../formats/index.js';
import { formatProblem, type Problem } from '../output/index.js';
import type { CommandContext } from '../program/command-context.js';
import { readEachItem } from '../program/read-each-item.js';
import {
  defaultMaxOpenTraces,
  formatOption,
  limitsFrom,
  maxLineBytesOption,
  maxOpenTracesOption,
} from '../program/shared-options.js';
import { createOrphanOutputTally } from '../warnings/create-orphan-output-tally.js';
import {
  createToolPartTally,
  createUnknownValueTally,
  formatWarning,
  loneSurrogateWarning,
  type Warning,
} from '../warnings/index.js';
import { createInvalidUtf8Tally } from '../warnings/invalid-utf8-tally.js';
import { createUnknownBlockFieldTally } from '../warnings/unknown-block-field-tally.js';

/** Options of {@link validateFiles} (the `validate` command's flags). */
export interface ValidateOptions {
  format?: InputFormat | undefined;
  /** Print one JSON report instead of lines. */
  json?: boolean | undefined;
  maxLineBytes?: number | undefined;
  maxOpenTraces?: number | undefined;
}

/** The `validate --json` report. */
export interface ValidateReport {
  ok: boolean;
  interrupted: boolean;
  files: { file: string; format: string; container: string; counts: ValidationCounts }[];
  problems: Problem[];
  /**
   * Things that are valid but most likely mistakes, one per distinct value: a chat event's
   * unknown role (`UNKNOWN_ROLE`; kept and read as a user message); and one per trace whose text
   * holds halves of characters (`LONE_SURROGATE`; each read as U+FFFD). They do not change `ok`.
   */
  warnings: Warning[];
}

function plural(count: number, word: string): string {
  return `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * Validates trace files and reports every problem: exit code 0 when all are valid, 1 when any
 * problem was found, 130 when interrupted.
 *
 * @param context - outputs, environment, signal
 * @param files - the files to validate
 * @param options - forced format, JSON report, limits
 * @returns the exit code
 * @example
 * ```ts
 * const code = await validateFiles(createCommandContext(processIo()), ['run.jsonl'], {});
 * ```
 */
export async function validateFiles(
  context: CommandContext,
  files: readonly string[],
  options: ValidateOptions,
): Promise<number> {
  const limits = limitsFrom(context.env);
  const palette = context.palette;
  const report: ValidateReport = {
    ok: true,
    interrupted: false,
    files: [],
    problems: [],
    warnings: [],
  };
  // Decision 003 keeps an unknown role (as a user message), so it is valid; but a newcomer's
  // "asistant" deserves a word, once per role rather than once per event.
  const unknownRoles = createUnknownValueTally({
    code: 'UNKNOWN_ROLE',
    field: 'role',
    records: ['event', 'events'],
    consequence: ['read as a user message', 'each read as a user message'],
    known: knownChatRoles,
  });
  const surrogateWarnings: Warning[] = [];
  const toolParts = createToolPartTally();
  const invalidUtf8 = createInvalidUtf8Tally('read');
  // decision 003 keeps an output of no call; a typo in its id deserves a word all the same
  const orphanOutputs = createOrphanOutputTally();
  // a block's fields outside seed 002's have nowhere to go: said once per name
  const unknownBlockFields = createUnknownBlockFieldTally('ignored');
  let problemCount = 0;
  const pending: Promise<void>[] = [];
  for (const file of files) {
    let validator: StreamValidator | undefined;
    const readOptions = { ...options, onInvalidUtf8: invalidUtf8.add };
    const result = await readEachItem(context, file, readOptions, async (item, input) => {
      validator ??= createStreamValidator({
        file,
        limits,
        maxOpenTraces: options.maxOpenTraces,
        // JSON documents are in memory anyway: validate their blocks together, in any order.
        batchBlocks: input.container === 'json',
        onProblem: (problem) => {
          problemCount++;
          if (options.json === true) report.problems.push(problem);
          else pending.push(context.out(`${formatProblem(problem, palette)}\n`));
        },
        onUnknownRole: (role, at) => unknownRoles.add(role, { file, ...at }),
        onParsedTrace: (trace, item) => {
          const at = (event: number) => ({
            file,
            line: item.lineOfEvent(event) ?? item.line,
            address: `${item.label}/${event}`,
          });
          toolParts.add(trace, at);
          orphanOutputs.add(trace, at);
        },
        onLoneSurrogates: (found) =>
          surrogateWarnings.push(loneSurrogateWarning(found, file, 'read')),
      });
      if (item.type === 'block') unknownBlockFields.add(item, file);
      validator.add(item);
      if (pending.length > 0) {
        await Promise.all(pending);
        pending.length = 0;
      }
    });
    validator?.finish();
    await Promise.all(pending);
    pending.length = 0;
    const counts = validator?.counts ?? emptyValidationCounts();
    report.files.push({
      file,
      format: result.input.format,
      container: result.input.container,
      counts: { ...counts },
    });
    if (result.interrupted) {
      report.interrupted = true;
      break;
    }
  }
  report.ok = problemCount === 0 && !report.interrupted;
  report.warnings = [
    ...invalidUtf8.warnings(),
    ...unknownRoles.warnings(),
    ...orphanOutputs.warnings(),
    ...toolParts.warnings(),
    ...unknownBlockFields.warnings(),
    ...surrogateWarnings,
  ];
  const reopened = report.files.filter((file) => file.counts.reopenedTraces > 0);
  if (reopened.length > 0) {
    const count = reopened.reduce((sum, file) => sum + file.counts.reopenedTraces, 0);
    const maxOpenTraces = options.maxOpenTraces ?? defaultMaxOpenTraces;
    context.err(
      `${context.errorPalette.yellow('note')}: ${plural(count, 'time')} a trace continued after more than ${maxOpenTraces.toLocaleString('en-US')} other traces had been read (${reopened.map((file) => file.file).join(', ')}): its earlier blocks were forgotten, so parent and duplicate-id checks across those gaps are weakened (a child of a forgotten block is reported as having an unknown parent). Raise --max-open-traces above the number of traces written at once, or group each trace's blocks together.\n`,
    );
  }
  if (options.json === true) {
    await context.out(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    for (const warning of report.warnings)
      await context.out(`${formatWarning(warning, palette)}\n`);
    const warned =
      report.warnings.length === 0 ? '' : ` (${plural(report.warnings.length, 'warning')})`;
    const totals = report.files.reduce(
      (sum, file) => ({
        traces: sum.traces + file.counts.traces,
        records: sum.records + file.counts.blocks + file.counts.events + file.counts.entries,
      }),
      { traces: 0, records: 0 },
    );
    const summary = `${plural(report.files.length, 'file')}, ${plural(totals.traces, 'trace')}, ${plural(totals.records, 'record')}`;
    if (report.interrupted) {
      context.err(
        `${palette.yellow('interrupted')}: stopped after ${summary}; ${plural(problemCount, 'problem')} so far\n`,
      );
    } else if (problemCount === 0) {
      await context.out(`${palette.green('ok')}: ${summary}, no problems${warned}\n`);
    } else {
      await context.out(`${palette.red(plural(problemCount, 'problem'))} in ${summary}${warned}\n`);
    }
  }
  if (report.interrupted) return exitCodes.interrupted;
  return problemCount === 0 ? exitCodes.ok : exitCodes.problems;
}

/**
 * Adds `tracewarden validate <file...>` to the program.
 * @param program - the root command
 * @param context - the command context
 * @returns the subcommand
 */
export function addValidateCommand(program: Command, context: CommandContext): Command {
  return program
    .command('validate')
    .summary('check trace files against the seed rules, printing every problem')
    .description(
      'Check trace files (JSON or JSONL of chat-event traces, datasets, blocks or trace entries; the format is detected per file) against the trace rules: event shapes, block parents, payloads, byte limits, duplicate call ids and result seqs. Prints every problem as file:line[:column]: CODE address: message, with the seed error codes (VALIDATION, PAYLOAD_TOO_LARGE, PARENT_SUBTYPE_MISMATCH, DUPLICATE_CALL_ID, DUPLICATE_RESULT_SEQ). JSONL files are streamed; blocks are checked per trace in file order.',
    )
    .argument('<file...>', 'trace files (.json or .jsonl)')
    .addOption(formatOption())
    .option('--json', 'print one JSON report (files, counts, problems) instead of lines')
    .addOption(maxOpenTracesOption('for parent checks'))
    .addOption(maxLineBytesOption())
    .addHelpText(
      'after',
      `
Examples:
  $ tracewarden validate traces/run.jsonl
  $ tracewarden validate --format blocks export.json other.jsonl
  $ tracewarden validate --json dataset.jsonl > report.json
  $ LIMIT_TOOL_RESULT_BYTES=4194304 tracewarden validate big-results.jsonl

A chat event whose role is none of the known ones (system, developer, user, assistant, tool, ...) is valid and read as a user message, with one warning per such role (UNKNOWN_ROLE). Text holding half of a character (a lone UTF-16 surrogate, where a truncated export cut it) is read as U+FFFD, with one warning per trace (LONE_SURROGATE).

Exit codes: 0 every file is valid (warnings or not), 1 problems were found, 2 usage error, 130 interrupted.`,
    )
    .action(async (files: string[], options: ValidateOptions) => {
      context.exitCode = await validateFiles(context, files, options);
    });
}
