import { readFile } from 'node:fs/promises';
import {
  blocksToEvents,
  type Policy,
  type PolicyViolation,
  parsePolicy,
  parseTrace,
  type Trace,
  TracewardenError,
} from '@tracewarden/core';
import { type Command, Option } from 'commander';
import { CliError, exitCodes } from '../errors/index.js';
import type { InputFormat } from '../formats/index.js';
import { inputFormats } from '../formats/index.js';
import type { CommandContext } from '../program/command-context.js';
import { maxLineBytesOption, maxOpenTracesOption } from '../program/shared-options.js';
import { forEachTrace, splitTracesNote } from '../traces/index.js';

/** Options of {@link checkFiles} (the `check` command's flags). */
export interface CheckOptions {
  /** The policy file (Invariant-style rules). */
  policy: string;
  /** Report format. @default 'text' */
  format?: 'text' | 'json' | undefined;
  /** Force the input format instead of detecting it. */
  inputFormat?: InputFormat | undefined;
  maxLineBytes?: number | undefined;
  /** Traces of a JSONL block file kept open at once when the file interleaves traces. @default 256 */
  maxOpenTraces?: number | undefined;
}

/** One violation in the `check` report. */
export interface CheckViolation {
  file: string;
  /** Line of the first event the violation points at, when known. */
  line: number | undefined;
  /** The trace: its id, metadata id or `#index`. */
  trace: string;
  action: PolicyViolation['action'];
  message: string;
  /** Addresses into the trace (`3.tool_calls.0`, `5.content:12-30`). */
  addresses: string[];
  /** Stable key of the violation. */
  key: string;
}

/** The `check --format json` report. */
export interface CheckReport {
  ok: boolean;
  interrupted: boolean;
  policy: string;
  traces: number;
  counts: Record<PolicyViolation['action'], number>;
  violations: CheckViolation[];
  /** Traces that could not be read (and so were not checked). */
  skipped: { file: string; line: number | undefined; message: string }[];
  /**
   * Traces whose blocks were not together in the file and came back after more than
   * `--max-open-traces` other traces: each part was checked on its own.
   */
  splitTraces: number;
}

async function loadPolicy(path: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new CliError({
      code: code === 'ENOENT' ? 'CLI_FILE_NOT_FOUND' : 'CLI_FILE_UNREADABLE',
      file: path,
      message:
        code === 'ENOENT'
          ? `policy file ${path} does not exist; check the path given to --policy`
          : `cannot read policy file ${path} (${code ?? String(error)})`,
      cause: error,
    });
  }
  try {
    return parsePolicy(text);
  } catch (error) {
    if (!TracewardenError.isInstance(error)) throw error;
    const position = error as TracewardenError & { line?: number; column?: number };
    const where =
      position.line === undefined
        ? path
        : `${path}:${position.line}${position.column === undefined ? '' : `:${position.column}`}`;
    throw new CliError({
      code: 'CLI_POLICY_INVALID',
      file: path,
      message: `${where}: ${error.code}: ${error.message}; fix the policy and run again`,
      cause: error,
    });
  }
}

function eventIndexOf(address: string | undefined): number | undefined {
  const match = address === undefined ? null : /^(\d+)/.exec(address);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * Runs a policy over every trace of some files, streaming: chat-event traces and datasets one
 * trace at a time; blocks and entries grouped by trace with {@link forEachTrace} (a trace is
 * checked as soon as it is finished, so memory holds a few traces, not the file), then
 * converted with `blocksToEvents`
 * and reports each violation with its file, trace, addresses and message. Exit code 1 when a
 * `block` rule fires; `warn` and `log` violations are reported but pass.
 *
 * @param context - outputs, environment, signal
 * @param files - trace files
 * @param options - the policy file, report format, input format
 * @returns the exit code
 * @example
 * ```ts
 * const code = await checkFiles(context, ['dataset.jsonl'], { policy: 'policy.gr', format: 'json' });
 * ```
 */
export async function checkFiles(
  context: CommandContext,
  files: readonly string[],
  options: CheckOptions,
): Promise<number> {
  const policy = await loadPolicy(options.policy);
  const json = options.format === 'json';
  const palette = context.palette;
  const report: CheckReport = {
    ok: true,
    interrupted: false,
    policy: options.policy,
    traces: 0,
    counts: { block: 0, warn: 0, log: 0 },
    violations: [],
    skipped: [],
    splitTraces: 0,
  };

  const checkTrace = async (
    file: string,
    label: string,
    trace: Trace,
    lineOfEvent: (index: number) => number | undefined,
  ) => {
    report.traces++;
    let result: ReturnType<Policy['check']>;
    try {
      result = policy.check(trace);
    } catch (error) {
      report.skipped.push({
        file,
        line: lineOfEvent(0),
        message: `trace ${label}: ${error instanceof Error ? error.message : String(error)}`,
      });
      if (!json)
        context.err(
          `${context.errorPalette.yellow('skipped')} ${file}: trace ${label}: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      return;
    }
    for (const violation of result.errors) {
      report.counts[violation.action]++;
      const index = eventIndexOf(violation.addresses[0]);
      const entry: CheckViolation = {
        file,
        line: index === undefined ? undefined : lineOfEvent(index),
        trace: label,
        action: violation.action,
        message: violation.message,
        addresses: violation.addresses,
        key: violation.key,
      };
      if (json) {
        report.violations.push(entry);
        continue;
      }
      const action =
        violation.action === 'block'
          ? palette.red('BLOCK')
          : violation.action === 'warn'
            ? palette.yellow('WARN')
            : palette.dim('LOG');
      const where = `${file}${entry.line === undefined ? '' : `:${entry.line}`}`;
      await context.out(
        `${palette.bold(where)}: ${action} ${palette.cyan(`${label}/${entry.addresses.join(',')}`)}: ${violation.message}\n`,
      );
    }
  };
  const skip = (file: string, line: number | undefined, message: string) => {
    report.skipped.push({ file, line, message });
    if (!json)
      context.err(
        `${context.errorPalette.yellow('skipped')} ${file}${line === undefined ? '' : `:${line}`}: ${message}\n`,
      );
  };

  const traces = await forEachTrace(
    context,
    files,
    {
      format: options.inputFormat,
      maxLineBytes: options.maxLineBytes,
      maxOpenTraces: options.maxOpenTraces,
      onSkip: (file, skipped) => skip(file, skipped.line, skipped.message),
      onTraceItem: async (item, file) => {
        let trace: Trace;
        try {
          trace = parseTrace(item.value);
        } catch (error) {
          skip(
            file,
            item.line,
            `trace ${item.label}: ${error instanceof Error ? error.message : String(error)}; run \`tracewarden validate\` for details`,
          );
          return;
        }
        await checkTrace(file, item.label, trace, (index) => item.lineOfEvent(index));
      },
    },
    // each trace is checked as soon as its last block is read: memory holds a few traces
    async (grouped) => {
      let trace: Trace;
      try {
        trace = blocksToEvents(grouped.blocks, { traceId: grouped.traceId });
      } catch (error) {
        skip(
          grouped.file,
          grouped.line,
          `trace ${grouped.label}: ${error instanceof Error ? error.message : String(error)}`,
        );
        return;
      }
      await checkTrace(grouped.file, grouped.label, trace, () => grouped.line);
    },
  );
  report.interrupted = traces.interrupted;
  report.splitTraces = traces.splitTraces;
  if (traces.splitTraces > 0)
    context.err(
      `${context.errorPalette.yellow('note')}: ${splitTracesNote(traces.splitTraces, options.maxOpenTraces, 'checked')}\n`,
    );
  report.ok = report.counts.block === 0 && !report.interrupted;
  const total = report.counts.block + report.counts.warn + report.counts.log;
  if (json) {
    await context.out(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const summary = `${total} violation${total === 1 ? '' : 's'} (${report.counts.block} block, ${report.counts.warn} warn, ${report.counts.log} log) in ${report.traces} trace${report.traces === 1 ? '' : 's'}`;
    if (report.interrupted)
      context.err(
        `${context.errorPalette.yellow('interrupted')}: ${summary} checked before Ctrl-C\n`,
      );
    else
      await context.out(
        `${report.counts.block > 0 ? palette.red('blocked') : palette.green('passed')}: ${summary}\n`,
      );
  }
  if (report.interrupted) return exitCodes.interrupted;
  return report.counts.block > 0 || report.skipped.length > 0 ? exitCodes.problems : exitCodes.ok;
}

/**
 * Adds `tracewarden check --policy <file> <traces...>` to the program.
 * @param program - the root command
 * @param context - the command context
 * @returns the subcommand
 */
export function addCheckCommand(program: Command, context: CommandContext): Command {
  return program
    .command('check')
    .summary('run a policy over traces; exit 1 when a block rule fires (for CI)')
    .description(
      'Run a guardrail policy (Invariant-style rules: raise "..." if: ...) over every trace of the files, locally. Prints each violation as file:line: ACTION trace/address: message. Exits 1 when a rule whose action is block fires (or a trace cannot be read), 0 when only warn/log rules fire.',
    )
    .requiredOption('-p, --policy <file>', 'the policy file')
    .argument('<traces...>', 'trace files or datasets (.json or .jsonl)')
    .addOption(
      new Option('--format <format>', 'report format').choices(['text', 'json']).default('text'),
    )
    .addOption(
      new Option(
        '--input-format <format>',
        'read the inputs as this format instead of detecting it',
      ).choices(inputFormats),
    )
    .addOption(maxLineBytesOption())
    .addOption(
      maxOpenTracesOption('while their blocks are read (each trace is checked when finished)'),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ tracewarden check --policy policies/no-exfiltration.gr traces/*.jsonl
  $ tracewarden check -p policy.gr dataset.jsonl --format json > report.json
  $ tracewarden check -p policy.gr blocks.jsonl || echo "a blocking rule fired"

Policy example (policy.gr):
  raise "email sent outside the company" if:
      (call: ToolCall)
      call is tool:send_email
      not match(r".*@example\\.com", call.function.arguments.to)`,
    )
    .action(async (files: string[], options: CheckOptions) => {
      context.exitCode = await checkFiles(context, files, options);
    });
}
