import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { createStreamValidator, type StreamValidator } from '../checking/index.js';
import { CliError, exitCodes } from '../errors/index.js';
import { checkInputFile } from '../formats/check-input-file.js';
import type { BlockItem, InputFormat, TraceItem } from '../formats/index.js';
import { createFileOutput, formatProblem, writeText } from '../output/index.js';
import type { CliOutput } from '../program/cli-io.js';
import type { CommandContext } from '../program/command-context.js';
import { readEachItem } from '../program/read-each-item.js';
import {
  formatOption,
  limitsFrom,
  maxLineBytesOption,
  maxOpenTracesOption,
} from '../program/shared-options.js';
import {
  createBlockConverter,
  type EmptyTrace,
  forEachTrace,
  parentsFirst,
  splitTracesNote,
  type UnknownSubType,
  untimedAsGiven,
} from '../traces/index.js';
import { datasetFieldsOf } from '../traces/trace-fields.js';
import { createUnknownSubTypeTally } from '../traces/unknown-sub-type.js';
import {
  formatWarning,
  type LoneSurrogatesInTrace,
  loneSurrogateWarning,
} from '../warnings/index.js';
import { createInvalidUtf8Tally } from '../warnings/invalid-utf8-tally.js';
import { createUnknownBlockFieldTally } from '../warnings/unknown-block-field-tally.js';
import { createEventsWriter, eventsLayoutOf } from './create-events-writer.js';

/** What `convert --to` produces. */
export const convertTargets = ['events', 'blocks', 'jsonl'] as const;
/** A `convert --to` target. */
export type ConvertTarget = (typeof convertTargets)[number];

/** Options of {@link convertFile} (the `convert` command's flags). */
export interface ConvertOptions {
  /**
   * `events`: chat events in the Invariant trace format (seeds 000 and 003: OpenAI's chat shape,
   * a tool call's `arguments` a JSON object); `blocks`: a JSON array of blocks; `jsonl`: one
   * block per line.
   */
  to: ConvertTarget;
  /** Output file. @default stdout */
  output?: string | undefined;
  format?: InputFormat | undefined;
  maxLineBytes?: number | undefined;
  /** `--to events`: traces of a JSONL block file kept open at once when it interleaves traces. @default 256 */
  maxOpenTraces?: number | undefined;
}

async function openOutput(
  context: CommandContext,
  path: string | undefined,
): Promise<{ output: CliOutput; close(): Promise<void> }> {
  if (path === undefined || path === '-')
    return { output: context.io.stdout, close: async () => undefined };
  return createFileOutput(path);
}

/**
 * What `convert` checks of each chat-event trace before writing it: the trace is refused, with
 * the problems `validate` would print, when its blocks would not validate (a user message with
 * no content, a message over the byte limit: seed 002 cuts nothing to fit), so that `convert`
 * never writes what `validate` rejects; a trace whose text held halves of characters is written
 * with U+FFFD for them, and a `LONE_SURROGATE` warning.
 */
function traceChecks(context: CommandContext, toBlocks: boolean) {
  const limits = limitsFrom(context.env);
  const validators = new Map<string, StreamValidator>();
  const blockValidators = new Map<string, StreamValidator>();
  let blockProblems = 0;
  // a block's fields outside seed 002's cannot be written: said once per name
  const unknownBlockFields = createUnknownBlockFieldTally('dropped');
  return {
    unknownBlockFields,
    isValidTrace(item: TraceItem, file: string): boolean {
      let validator = validators.get(file);
      if (validator === undefined) {
        validator = createStreamValidator({
          file,
          limits,
          toBlocks,
          onProblem: (problem) => context.err(`${formatProblem(problem, context.errorPalette)}\n`),
        });
        validators.set(file, validator);
      }
      const before = validator.counts.problems;
      validator.add(item);
      return validator.counts.problems === before;
    },
    /**
     * Blocks are converted as given (filled to the stored shape, never repaired), but checked as
     * `validate` checks them, a JSON document's all at once at the end (in any order), so that
     * what is wrong with them is reported and the command exits 1.
     */
    checkBlock(item: BlockItem, file: string): void {
      unknownBlockFields.add(item, file);
      let validator = blockValidators.get(file);
      if (validator === undefined) {
        validator = createStreamValidator({
          file,
          limits,
          batchBlocks: item.path !== '',
          onProblem: (problem) => {
            blockProblems++;
            context.err(`${formatProblem(problem, context.errorPalette)}\n`);
          },
        });
        blockValidators.set(file, validator);
      }
      validator.add(item);
    },
    /** Ends the block checks: the number of problems found in the blocks. */
    finishBlocks(): number {
      for (const validator of blockValidators.values()) validator.finish();
      blockValidators.clear();
      return blockProblems;
    },
    /** Blocks cannot hold a trace with no events: never dropped in silence. */
    onEmptyTrace(file: string, found: EmptyTrace): void {
      const warning = {
        code: 'EMPTY_TRACE' as const,
        value: found.label,
        count: 0,
        file,
        line: found.line,
        address: found.label,
        message:
          found.fields.length === 0
            ? 'no events, so no blocks: not written (convert --to events keeps it)'
            : `no events, so no blocks to keep its ${found.fields.join(', ')} on: not written`,
      };
      context.err(`${formatWarning(warning, context.errorPalette)}\n`);
    },
    onRenamedTrace(
      file: string,
      found: { label: string; line: number | undefined; traceId: string },
    ): void {
      const warning = {
        code: 'DUPLICATE_TRACE_ID' as const,
        value: found.label,
        count: 1,
        file,
        line: found.line,
        address: found.label,
        message: `an earlier trace of the file has this id: this one is written as ${found.traceId} (its own fields keep the id it had)`,
      };
      context.err(`${formatWarning(warning, context.errorPalette)}\n`);
    },
    onLoneSurrogates(file: string, found: LoneSurrogatesInTrace): void {
      context.err(
        `${formatWarning(loneSurrogateWarning(found, file, 'written'), context.errorPalette)}\n`,
      );
    },
  };
}

/**
 * Whether two paths name one file: the same path, or (a symbolic or hard link) the same device
 * and inode. Writing the output would then empty the input before it is read.
 */
function isSameFile(output: string, input: string): boolean {
  if (resolve(output) === resolve(input)) return true;
  try {
    const a = statSync(output);
    const b = statSync(input);
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false; // the output does not exist yet: no link to the input
  }
}

/**
 * Converts a trace file losslessly with the core's conversions: to chat events
 * (`blocksToEvents`: one trace prints as a JSON array of events, several as JSONL of
 * `{ messages, metadata: { trace_id } }`; each trace is written as soon as it is finished, see
 * {@link forEachTrace}), to a JSON array of blocks, or to JSONL blocks (the JSONL sink's format,
 * streamed one item at a time). Chat events become blocks with `eventsToBlocks`,
 * trace entries with `entryToBlocks`.
 *
 * @param context - outputs, environment, signal
 * @param file - the input file
 * @param options - target, output file, input format
 * @returns the exit code (1 when some items could not be converted)
 * @example
 * ```ts
 * await convertFile(context, 'chat.json', { to: 'jsonl', output: 'blocks.jsonl' });
 * ```
 */
export async function convertFile(
  context: CommandContext,
  file: string,
  options: ConvertOptions,
): Promise<number> {
  if (options.output !== undefined && options.output !== '-' && isSameFile(options.output, file)) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `-o ${options.output} is the input file; write to another file (it would be overwritten while being read)`,
    });
  }
  const layout = eventsLayoutOf(options.output);
  if (options.to === 'jsonl' && layout === 'document') {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `--to jsonl writes one block per line, which a .json file cannot hold (it is read as one JSON document); name the output .jsonl, or use --to blocks for a JSON array in ${options.output}`,
    });
  }
  if (options.to === 'blocks' && layout === 'lines') {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `--to blocks writes one JSON array, which a .jsonl file cannot hold (it is read line by line); name the output .json, or use --to jsonl for one block per line in ${options.output}`,
    });
  }
  // a missing or unreadable input fails before the output is opened: no empty `[]` left in
  // its place that reads as a valid, empty conversion
  await checkInputFile(file);
  // a block of an unknown sub_type is left out, with one warning per value (as view and stats)
  const unknownSubTypes = createUnknownSubTypeTally();
  const checks = traceChecks(context, options.to !== 'events');
  // bytes that are not UTF-8 are written as U+FFFD: said once, never in silence
  const invalidUtf8 = createInvalidUtf8Tally('written');
  const warnUnknownSubTypes = () => {
    for (const warning of [
      ...invalidUtf8.warnings(),
      ...unknownSubTypes.warnings(),
      ...checks.unknownBlockFields.warnings(),
    ])
      context.err(`${formatWarning(warning, context.errorPalette)}\n`);
  };
  if (options.to === 'events') {
    const { output, close } = await openOutput(context, options.output);
    const writer = createEventsWriter(output, eventsLayoutOf(options.output));
    let result: Awaited<ReturnType<typeof forEachTrace>>;
    try {
      const traceOptions = {
        ...options,
        onInvalidUtf8: invalidUtf8.add,
        contentIds: true,
        fileBlockIds: true,
        isValidTrace: checks.isValidTrace,
        onBlockItem: checks.checkBlock,
        onLoneSurrogates: checks.onLoneSurrogates,
        // events can hold a trace with no events, and a dataset with no traces: kept
        emptyTraces: true,
        onDatasetMetadata: (value: unknown) => writer.noteDataset(value),
        onRenamedTrace: checks.onRenamedTrace,
        onUnknownSubType: (at: string, found: UnknownSubType) =>
          unknownSubTypes.add(found.subType, {
            file: at,
            line: found.line,
            address: found.address,
          }),
      };
      result = await forEachTrace(context, [file], traceOptions, (trace) => writer.write(trace));
      await writer.finish();
    } finally {
      await close();
    }
    warnUnknownSubTypes();
    if (result.splitTraces > 0)
      context.err(
        `${context.errorPalette.yellow('note')}: ${splitTracesNote(result.splitTraces, options.maxOpenTraces, 'converted')}\n`,
      );
    const blockProblems = checks.finishBlocks();
    if (result.interrupted) return exitCodes.interrupted;
    return result.skipped > 0 || blockProblems > 0 ? exitCodes.problems : exitCodes.ok;
  }

  let skipped = 0;
  // a dataset's own fields ride on its traces' blocks: one with no trace has none to ride on
  let datasetLine: number | undefined;
  let datasetFields: Record<string, unknown> | undefined;
  let blocksWritten = 0;
  // trace ids from each trace's content, as `push` gives them: two files converted apart never
  // share a trace id; block ids run on through the file, as one file must hold each once
  const converter = createBlockConverter({
    contentIds: true,
    fileBlockIds: true,
    isValidTrace: (item) => checks.isValidTrace(item, file),
    onBlockItem: (item) => checks.checkBlock(item, file),
    onLoneSurrogates: (found) => checks.onLoneSurrogates(file, found),
    onEmptyTrace: (found) => checks.onEmptyTrace(file, found),
    onRenamedTrace: (found) => checks.onRenamedTrace(file, found),
    onSkip: (skip) => {
      skipped++;
      context.err(
        `${context.errorPalette.yellow('skipped')} ${file}${skip.line === undefined ? '' : `:${skip.line}`}: ${skip.message}\n`,
      );
    },
    onUnknownSubType: (found) => {
      skipped++;
      unknownSubTypes.add(found.subType, { file, line: found.line, address: found.address });
    },
  });
  const { output, close } = await openOutput(context, options.output);
  const asArray = options.to === 'blocks';
  let first = true;
  if (asArray) await writeText(output, '[');
  let interrupted = false;
  try {
    const readOptions = { ...options, onInvalidUtf8: invalidUtf8.add };
    const result = await readEachItem(context, file, readOptions, async (item) => {
      if (item.type === 'dataset-metadata' && datasetFields === undefined) {
        datasetFields = datasetFieldsOf(item.value);
        datasetLine = item.line;
      }
      // an output may answer a call that comes after it: the call is written first
      const blocks = parentsFirst(converter.convert(item));
      if (blocks.length === 0) return;
      blocksWritten += blocks.length;
      let text = '';
      // a block given no created_at is written without one, as validate accepts it
      for (const block of blocks.map(untimedAsGiven)) {
        if (asArray) {
          text += `${first ? '\n' : ',\n'}  ${JSON.stringify(block)}`;
          first = false;
        } else {
          text += `${JSON.stringify(block)}\n`;
        }
      }
      await writeText(output, text);
    });
    interrupted = result.interrupted;
  } finally {
    if (asArray) await writeText(output, first ? ']\n' : '\n]\n');
    await close();
  }
  const blockProblems = checks.finishBlocks();
  warnUnknownSubTypes();
  if (datasetFields !== undefined && blocksWritten === 0 && !interrupted) {
    const warning = {
      code: 'EMPTY_DATASET' as const,
      value: typeof datasetFields.name === 'string' ? datasetFields.name : 'dataset',
      count: 0,
      file,
      line: datasetLine,
      message: `no traces, so no blocks to keep its ${Object.keys(datasetFields).join(', ')} on: not written (convert --to events keeps it)`,
    };
    context.err(`${formatWarning(warning, context.errorPalette)}\n`);
  }
  if (interrupted) return exitCodes.interrupted;
  return skipped > 0 || blockProblems > 0 ? exitCodes.problems : exitCodes.ok;
}

/**
 * Adds `tracewarden convert <in> --to events|blocks|jsonl` to the program.
 * @param program - the root command
 * @param context - the command context
 * @returns the subcommand
 */
export function addConvertCommand(program: Command, context: CommandContext): Command {
  return program
    .command('convert')
    .summary('convert between chat events, blocks and JSONL blocks')
    .description(
      'Convert a trace file losslessly: --to events writes chat events in the Invariant trace format (the OpenAI chat shape, with tool call arguments as a JSON object, as seeds 000 and 003 define them; several traces become JSONL, one { messages, metadata } per line), --to blocks a JSON array of trace blocks, --to jsonl one block per line (the JSONL sink format, streamed). Events and trace entries become blocks with deterministic ids: a trace without an id is named by a hash of its events (tr_<hash>), as `push` names it, and the blocks of the file are tb_000001, ... through the file (of trace entries: tb_<hash of the entry>_1, ...); `push` numbers the blocks of each trace from tb_000001, so for a file of several chat traces, push the source file, not the converted one, or the later traces are stored twice under other ids.',
    )
    .argument('<in>', 'the input file (.json or .jsonl)')
    .addOption(
      new Option('--to <target>', 'what to write').choices(convertTargets).makeOptionMandatory(),
    )
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .addOption(formatOption('what to write is chosen with --to (events, blocks, jsonl)'))
    .addOption(maxLineBytesOption())
    .addOption(
      maxOpenTracesOption(
        'by --to events while their blocks are read (each trace is written when finished)',
      ),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ tracewarden convert chat.json --to blocks
  $ tracewarden convert chat-dataset.jsonl --to jsonl -o blocks.jsonl
  $ tracewarden convert traces/run.jsonl --to events -o run.events.json
  $ tracewarden convert tool-calls.jsonl --format entries --to jsonl`,
    )
    .action(async (file: string, options: ConvertOptions) => {
      context.exitCode = await convertFile(context, file, options);
    });
}
