import { readFile } from 'node:fs/promises';
import {
  blocksToEvents,
  type Policy,
  PolicyError,
  type PolicyViolation,
  parsePolicy,
  recommendedPolicy,
  type Trace,
  TracewardenError,
} from '@tracewarden/core';
import { type Command, Option } from 'commander';
import { CliError, exitCodes } from '../errors/index.js';
import type { InputFormat } from '../formats/index.js';
import { inputFormats } from '../formats/index.js';
import type { CommandContext } from '../program/command-context.js';
import {
  choicesWithHint,
  maxLineBytesOption,
  maxOpenTracesOption,
} from '../program/shared-options.js';
import { forEachTrace, type GroupedTrace, splitTracesNote } from '../traces/index.js';
import { readPolicyTrace } from '../traces/read-chat-trace.js';
import { traceErrorLine } from '../traces/trace-error-line.js';
import { createUnknownSubTypeTally } from '../traces/unknown-sub-type.js';
import { createToolPartTally, formatWarning, type Warning } from '../warnings/index.js';
import { createInvalidUtf8Tally } from '../warnings/invalid-utf8-tally.js';

/** Options of {@link checkFiles} (the `check` command's flags). */
export interface CheckOptions {
  /** The policy file (Invariant-style rules); give it or `recommended`. */
  policy?: string | undefined;
  /** Check with core's `recommendedPolicy()` (prompt-injection defense) instead of a file. */
  recommended?: boolean | undefined;
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
  /** The rule that fired: its 0-based index in the policy and its `# name:`, if it has one. */
  rule: { index: number; name: string | null };
}

/** The `check --format json` report. */
export interface CheckReport {
  /** No `block` violation, nothing skipped, not interrupted: the exit code is 0. */
  ok: boolean;
  interrupted: boolean;
  policy: string;
  traces: number;
  counts: Record<PolicyViolation['action'], number>;
  violations: CheckViolation[];
  /**
   * Items that could not be read: not checked, except a chat trace `parseTrace` refused whose
   * events could be read as they are (`checked`: its events were checked as given).
   */
  skipped: { file: string; line: number | undefined; message: string; checked: boolean }[];
  /**
   * One per distinct unknown `sub_type` (a misspelt `TOOL_CALLL`): its blocks were left out of
   * their traces, as `view` and `stats` do, so the run is not a pass.
   */
  warnings: Warning[];
  /**
   * Traces whose blocks were not together in the file and came back after more than
   * `--max-open-traces` other traces: each part was checked on its own.
   */
  splitTraces: number;
  /**
   * Traces whose violations passed the policy's cap (`maxViolations`, 10,000 by default): only the
   * first ones are listed and counted.
   */
  truncated: string[];
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
  // Editors on Windows save UTF-8 with a byte order mark; it is not part of the policy.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let policy: Policy;
  try {
    policy = parsePolicy(text);
  } catch (error) {
    if (error instanceof RangeError) {
      // The parser recurses per nesting level: a deep enough policy overflows the stack. That is
      // bad input (exit 2), not a crash, whatever the parser throws it as.
      throw new CliError({
        code: 'CLI_POLICY_INVALID',
        file: path,
        message: `${path}: the policy is nested too deeply to parse (${error.message}); split deep expressions into predicates`,
        cause: error,
      });
    }
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
  // an empty (or comments-only) file checks nothing: a truncated download must not pass a run
  if (policy.rules.length === 0)
    throw new CliError({
      code: 'CLI_POLICY_INVALID',
      file: path,
      message: `${path}: the policy defines no rules, so it would pass every trace; check that the file is the whole policy (or use --recommended)`,
    });
  return policy;
}

/**
 * A chat trace's events as given (an array, or an object's `messages` / `events`; input items
 * come without an Explorer `{ metadata }` first element), or `undefined` when there is no list.
 */
function rawEvents(value: unknown): Trace | undefined {
  const list = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null
      ? ((value as { messages?: unknown }).messages ?? (value as { events?: unknown }).events)
      : undefined;
  return Array.isArray(list) ? (list as Trace) : undefined;
}

function eventIndexOf(address: string | undefined): number | undefined {
  const match = address === undefined ? null : /^(\d+)/.exec(address);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function idOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const tracewarden = (value as { tracewarden?: unknown }).tracewarden;
  if (typeof tracewarden !== 'object' || tracewarden === null) return undefined;
  const id = (tracewarden as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Finds the line of the block a violation address (`3`, `1.tool_calls.0.function.arguments.to`,
 * `5.content:12-30`) points at in a block file. Built on the first violation only: the exact
 * conversion names each event's and tool call's block, which a clean trace never needs.
 */
function blockLineResolver(
  grouped: GroupedTrace,
): (address: string | undefined) => number | undefined {
  let lineOfId: Map<string, number | undefined> | undefined;
  let events: readonly unknown[] | undefined;
  return (address) => {
    const match = address === undefined ? null : /^(\d+)(?:\.tool_calls\.(\d+))?/.exec(address);
    if (match?.[1] === undefined) return grouped.line;
    if (lineOfId === undefined || events === undefined) {
      lineOfId = new Map();
      for (const [index, block] of grouped.blocks.entries())
        lineOfId.set(block.id, grouped.lines[index]);
      try {
        events = blocksToEvents(grouped.blocks, { traceId: grouped.traceId, fidelity: 'exact' });
      } catch {
        events = [];
      }
    }
    const event = events[Number(match[1])] as { tool_calls?: unknown } | undefined;
    const call =
      match[2] !== undefined && Array.isArray(event?.tool_calls)
        ? (event.tool_calls as unknown[])[Number(match[2])]
        : undefined;
    const id = idOf(call) ?? idOf(event);
    return (id === undefined ? undefined : lineOfId.get(id)) ?? grouped.line;
  };
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
  if (options.recommended === true && options.policy !== undefined) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `give --policy or --recommended, not both (to combine them, start your policy file with recommendedPolicyText() from @tracewarden/core)`,
    });
  }
  if (options.recommended !== true && options.policy === undefined) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `required option '-p, --policy <file>' not specified; give a policy file, or --recommended for the built-in prompt-injection policy`,
    });
  }
  const policy =
    options.policy === undefined ? recommendedPolicy() : await loadPolicy(options.policy);
  const json = options.format === 'json';
  const palette = context.palette;
  const report: CheckReport = {
    ok: true,
    interrupted: false,
    policy: options.policy ?? 'recommended',
    traces: 0,
    counts: { block: 0, warn: 0, log: 0 },
    violations: [],
    skipped: [],
    warnings: [],
    splitTraces: 0,
    truncated: [],
  };

  // tool calls in another API's shape, which no ToolCall rule sees: said once per part type
  const toolParts = createToolPartTally();
  const checkTrace = async (
    file: string,
    label: string,
    trace: readonly unknown[],
    lineOf: (address: string | undefined) => number | undefined,
    /** The caller reports a trace the policy cannot read itself (one skip per trace). */
    quiet = false,
  ): Promise<boolean> => {
    report.traces++;
    // entries without content (an MCP tool list, a bare call) hold no content parts
    toolParts.add(trace as Trace, (event) => ({
      file,
      line: lineOf(String(event)),
      address: `${label}/${event}`,
    }));
    let result: ReturnType<Policy['check']>;
    // a rule could not be checked: the trace is not a pass (the caller reports it when quiet)
    let incomplete = false;
    try {
      result = policy.check(trace);
    } catch (error) {
      // a rule that hit a limit: the others were checked, and their violations are reported
      const partial = PolicyError.isInstance(error) ? error.partial : undefined;
      if (quiet && partial === undefined) return false;
      if (!quiet) {
        report.skipped.push({
          file,
          line: lineOf('0'),
          message: `trace ${label}: ${error instanceof Error ? error.message : String(error)}`,
          checked: false,
        });
        if (!json)
          context.err(
            `${context.errorPalette.yellow(partial === undefined ? 'skipped' : 'incomplete')} ${file}: trace ${label}: ${error instanceof Error ? error.message : String(error)}\n`,
          );
      }
      if (partial === undefined) return false;
      result = partial;
      incomplete = true;
    }
    if (result.truncated) {
      report.truncated.push(label);
      if (!json)
        context.err(
          `${context.errorPalette.yellow('truncated')} ${file}: trace ${label}: more than ${result.errors.length} violations; only the first ${result.errors.length} are shown and counted (the policy's maxViolations cap)\n`,
        );
    }
    for (const violation of result.errors) {
      report.counts[violation.action]++;
      const entry: CheckViolation = {
        file,
        line: lineOf(violation.addresses[0]),
        trace: label,
        action: violation.action,
        message: violation.message,
        addresses: violation.addresses,
        key: violation.key,
        rule: { index: violation.rule.index, name: violation.rule.name ?? null },
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
    return !incomplete;
  };
  const skip = (file: string, line: number | undefined, message: string, checked = false) => {
    report.skipped.push({ file, line, message, checked });
    if (!json)
      context.err(
        `${context.errorPalette.yellow('skipped')} ${file}${line === undefined ? '' : `:${line}`}: ${message}\n`,
      );
  };

  const unknownSubTypes = createUnknownSubTypeTally();
  const invalidUtf8 = createInvalidUtf8Tally('read');
  const traces = await forEachTrace(
    context,
    files,
    {
      format: options.inputFormat,
      maxLineBytes: options.maxLineBytes,
      maxOpenTraces: options.maxOpenTraces,
      onInvalidUtf8: invalidUtf8.add,
      onSkip: (file, skipped) => skip(file, skipped.line, skipped.message),
      onUnknownSubType: (file, found) =>
        unknownSubTypes.add(found.subType, { file, line: found.line, address: found.address }),
      onTraceItem: async (item, file) => {
        const lineOf = (address: string | undefined) => {
          const index = eventIndexOf(address);
          return index === undefined ? undefined : item.lineOfEvent(index);
        };
        // as the policy engine reads a trace: MCP tool lists and bare tool calls included
        let trace: unknown[];
        try {
          trace = readPolicyTrace(item.value);
        } catch (error) {
          // A trace parseTrace refuses (a call's arguments that are not JSON, as models sometimes
          // write them) is still checked as given: the policy engine reads raw events, and an
          // attack in such a run must not go unreported. It stays an incomplete read (exit 1).
          const raw = rawEvents(item.value);
          const checked =
            raw !== undefined && (await checkTrace(file, item.label, raw, lineOf, true));
          skip(
            file,
            traceErrorLine(item, error),
            `trace ${item.label}: ${error instanceof Error ? error.message : String(error)}; ${checked ? 'its events were checked as given; ' : ''}run \`tracewarden validate\` for details`,
            checked,
          );
          return;
        }
        await checkTrace(file, item.label, trace, lineOf);
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
      await checkTrace(grouped.file, grouped.label, trace, blockLineResolver(grouped));
    },
  );
  report.interrupted = traces.interrupted;
  report.splitTraces = traces.splitTraces;
  if (traces.splitTraces > 0)
    context.err(
      `${context.errorPalette.yellow('note')}: ${splitTracesNote(traces.splitTraces, options.maxOpenTraces, 'checked')}\n`,
    );
  report.warnings = [
    ...invalidUtf8.warnings(),
    ...unknownSubTypes.warnings(),
    ...toolParts.warnings(),
  ];
  if (!json)
    for (const warning of report.warnings)
      context.err(`${formatWarning(warning, context.errorPalette)}\n`);
  // A trace that could not be read (or only in part) was not checked: not a pass. Nor was one
  // whose tool calls or outputs are in another API's shape (Anthropic's `tool_use` parts): no
  // ToolCall or ToolOutput rule saw them, so an attack there would pass in silence.
  const leftOut = unknownSubTypes.count;
  const unreadTools = toolParts.events;
  // A trace checked in parts (it came back after it was finished) was not checked whole: a rule
  // across its parts (an injected output, then the call it asked for) could not fire. Not a pass.
  const split = traces.splitTraces;
  report.ok =
    report.counts.block === 0 &&
    report.skipped.length === 0 &&
    leftOut === 0 &&
    unreadTools === 0 &&
    split === 0 &&
    !report.interrupted;
  const total = report.counts.block + report.counts.warn + report.counts.log;
  if (json) {
    await context.out(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const summary = `${total} violation${total === 1 ? '' : 's'} (${report.counts.block} block, ${report.counts.warn} warn, ${report.counts.log} log) in ${report.traces} trace${report.traces === 1 ? '' : 's'}`;
    const unread = report.skipped.length;
    // a trace checked as given was checked: the summary must not say it was not
    const asGiven = report.skipped.filter((skipped) => skipped.checked).length;
    const unchecked = unread - asGiven;
    const unreadNote =
      (unchecked === 0
        ? ''
        : `; ${unchecked} item${unchecked === 1 ? '' : 's'} could not be read and ${unchecked === 1 ? 'was' : 'were'} not checked (see above)`) +
      (asGiven === 0
        ? ''
        : `; ${asGiven} trace${asGiven === 1 ? '' : 's'} could not be read exactly and ${asGiven === 1 ? 'was' : 'were'} checked as given (see above)`) +
      (leftOut === 0
        ? ''
        : `; ${leftOut} block${leftOut === 1 ? '' : 's'} of an unknown sub_type left out (see above)`) +
      (unreadTools === 0
        ? ''
        : `; ${unreadTools} event${unreadTools === 1 ? '' : 's'} with tool calls or outputs in another API's shape that no rule read (see above)`) +
      (split === 0
        ? ''
        : `; ${split} trace${split === 1 ? ' was' : 's were'} checked in parts, not whole (see the note above)`);
    if (report.interrupted)
      context.err(
        `${context.errorPalette.yellow('interrupted')}: ${summary} checked before Ctrl-C\n`,
      );
    else
      await context.out(
        `${report.counts.block > 0 ? palette.red('blocked') : unread > 0 || leftOut > 0 || unreadTools > 0 || split > 0 ? palette.red('incomplete') : palette.green('passed')}: ${summary}${unreadNote}\n`,
      );
  }
  if (report.interrupted) return exitCodes.interrupted;
  return report.ok ? exitCodes.ok : exitCodes.problems;
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
    .option('-p, --policy <file>', 'the policy file')
    .option(
      '--recommended',
      'use the built-in recommended policy against prompt injection instead of a file (blocks tool calls carrying values from injected tool outputs, warns on the injected content)',
    )
    .argument('<traces...>', 'trace files or datasets (.json or .jsonl)')
    .addOption(
      choicesWithHint(
        new Option('--format <format>', 'report format').default('text'),
        ['text', 'json'],
        (value) =>
          (inputFormats as readonly string[]).includes(value)
            ? '--format is the format of the report; for the input format use --input-format.'
            : undefined,
      ),
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
  $ tracewarden check --recommended agent-runs/*.jsonl

Policy example (policy.gr):
  raise "email sent outside the company" if:
      (call: ToolCall)
      call is tool:send_email
      not match(r".*@example\\.com$", call.function.arguments.to)`,
    )
    .action(async (files: string[], options: CheckOptions) => {
      context.exitCode = await checkFiles(context, files, options);
    });
}
