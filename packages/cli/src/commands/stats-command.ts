import { type Trace, TraceError } from '@tracewarden/core';
import type { Command } from 'commander';
import { exitCodes } from '../errors/index.js';
import type { InputFormat, InputItem } from '../formats/index.js';
import type { Palette } from '../output/index.js';
import type { CommandContext } from '../program/command-context.js';
import { readEachItem } from '../program/read-each-item.js';
import { formatOption, maxLineBytesOption } from '../program/shared-options.js';
import { createStatsAggregator, type LatencySummary, type TraceStats } from '../stats/index.js';
import { blockAddress } from '../traces/block-address.js';
import { parseChatTrace } from '../traces/read-chat-trace.js';
import { createUnknownSubTypeTally, unknownSubTypeOf } from '../traces/unknown-sub-type.js';
import { formatWarning } from '../warnings/index.js';
import { createInvalidFigureTally } from '../warnings/invalid-figure-tally.js';
import { createInvalidUtf8Tally } from '../warnings/invalid-utf8-tally.js';

/** `parseChatTrace`'s outcome as `safeParseTrace` gives it. */
function safeParseChatTrace(
  value: unknown,
): { success: true; trace: Trace } | { success: false; error: TraceError } {
  try {
    return { success: true, trace: parseChatTrace(value) };
  } catch (error) {
    if (error instanceof TraceError) return { success: false, error };
    throw error;
  }
}

/** Options of {@link statsFiles} (the `stats` command's flags). */
export interface StatsOptions {
  format?: InputFormat | undefined;
  /** Print the statistics as JSON. */
  json?: boolean | undefined;
  maxLineBytes?: number | undefined;
}

function number(value: number): string {
  return value.toLocaleString('en-US');
}

function milliseconds(value: number): string {
  if (value < 10) return value.toFixed(2);
  if (value < 1000) return value.toFixed(1);
  return value.toFixed(0);
}

function table(rows: string[][], indent = '  '): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length);
  }
  return rows
    .map(
      (row) =>
        indent +
        row
          .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
          .join('  ')
          .trimEnd(),
    )
    .join('\n');
}

/**
 * Formats statistics as the `stats` command's text report.
 * @param stats - the statistics
 * @param palette - colours
 * @returns the report, ending in a newline
 */
export function formatStats(stats: TraceStats, palette: Palette): string {
  const out: string[] = [];
  const heading = (text: string) => out.push('', palette.bold(text));
  const unknown = Object.entries(stats.blocksByUnknownSubType)
    .map(([type, count]) => `${type === '(others)' ? type : JSON.stringify(type)} ${number(count)}`)
    .join(', ');
  const subTypes = [
    Object.entries(stats.blocksBySubType)
      .map(([type, count]) => `${type} ${number(count)}`)
      .join(', '),
    // visible in the report itself, not only in the warning on stderr
    ...(unknown === '' ? [] : [palette.yellow(`left out, unknown sub_type: ${unknown}`)]),
  ]
    .filter((part) => part !== '')
    .join('; ');
  const overview = [
    ['files', number(stats.files)],
    ['traces', number(stats.traces)],
    ...(stats.events > 0 ? [['events', number(stats.events)]] : []),
    ...(stats.blocks > 0
      ? [['blocks', `${number(stats.blocks)}${subTypes === '' ? '' : ` (${subTypes})`}`]]
      : []),
    ...(stats.entries > 0 ? [['entries', number(stats.entries)]] : []),
    [
      'tool calls',
      `${number(stats.toolCalls)}${
        stats.blockedToolCalls === 0 ? '' : ` (${number(stats.blockedToolCalls)} blocked by policy)`
      }`,
    ],
    [
      'errors',
      `${number(stats.errors)}${
        stats.errors === 0
          ? ''
          : ` (${number(stats.modelErrors)} model call${stats.modelErrors === 1 ? '' : 's'}, ${number(stats.toolErrors)} tool call${stats.toolErrors === 1 ? '' : 's'})`
      }`,
    ],
  ];
  out.push(
    overview.map(([label, value]) => `${(label ?? '').padEnd(11)} ${value ?? ''}`).join('\n'),
  );
  if (stats.toolCalls > 0) {
    heading('tool calls by tool');
    out.push(
      table(Object.entries(stats.toolCallsByTool).map(([tool, count]) => [tool, number(count)])),
    );
  }
  const statuses = (record: Record<string, number>) =>
    table(
      Object.entries(record).map(([status, count]) => [
        status === 'success' ? status : palette.red(status),
        number(count),
      ]),
    );
  if (Object.keys(stats.modelCallsByStatus).length > 0) {
    heading('model calls by status');
    out.push(statuses(stats.modelCallsByStatus));
  }
  if (Object.keys(stats.resultsByStatus).length > 0) {
    heading('tool calls by status');
    out.push(statuses(stats.resultsByStatus));
  }
  const models = Object.entries(stats.byModel);
  if (models.length > 0) {
    heading('tokens and cost by model');
    out.push(
      table([
        ['model', 'calls', 'input', 'output', 'total', 'cost (USD)'],
        ...models.map(([model, totals]) => [
          model,
          number(totals.calls),
          number(totals.inputTokens),
          number(totals.outputTokens),
          number(totals.totalTokens),
          totals.cost === 0 ? '-' : totals.cost.toFixed(totals.cost < 0.01 ? 6 : 4),
        ]),
      ]),
    );
  }
  const latencyTable = (title: string, latencies: [string, LatencySummary][]) => {
    if (latencies.length === 0) return;
    heading(`latency by ${title} (ms)`);
    out.push(
      table([
        [title, 'count', 'p50', 'p90', 'p95', 'p99', 'max'],
        ...latencies.map(([key, l]) => [
          key,
          number(l.count),
          milliseconds(l.p50),
          milliseconds(l.p90),
          milliseconds(l.p95),
          milliseconds(l.p99),
          milliseconds(l.max),
        ]),
      ]),
    );
  };
  latencyTable('model', Object.entries(stats.latencyByModel));
  latencyTable('tool', Object.entries(stats.latencyByTool));
  return `${out.join('\n')}\n`;
}

/**
 * Summarises trace files in one streaming pass (constant memory; latency percentiles from a
 * bounded log histogram, within 1%).
 *
 * @param context - outputs, environment, signal
 * @param files - the files
 * @param options - input format, JSON output
 * @returns the exit code (0; 1 when parts of a file could not be read, a chat-event trace is
 *   invalid (it is left out), blocks of an unknown sub type or token counts and costs that are
 *   not non-negative numbers were left out; 130 interrupted)
 * @example
 * ```ts
 * await statsFiles(context, ['run.jsonl'], { json: true });
 * ```
 */
export async function statsFiles(
  context: CommandContext,
  files: readonly string[],
  options: StatsOptions,
): Promise<number> {
  // where the record being read is, for a figure stats cannot count
  let at: { file: string; item: InputItem } | undefined;
  const invalidFigures = createInvalidFigureTally();
  const stats = createStatsAggregator({
    onInvalidFigure({ path, value, event }) {
      if (at === undefined) return;
      const { file, item } = at;
      if (item.type === 'trace' && event !== undefined)
        invalidFigures.add(path, value, {
          file,
          line: item.lineOfEvent(event) ?? item.line,
          address: `${item.label}/${event}`,
        });
      else
        invalidFigures.add(path, value, {
          file,
          line: item.line,
          address: item.type === 'block' ? blockAddress(item) : undefined,
        });
    },
  });
  // the same words as `view`: one warning per unknown sub type, its blocks left out
  const unknownSubTypes = createUnknownSubTypeTally();
  const invalidUtf8 = createInvalidUtf8Tally('read');
  let unreadable = 0;
  let interrupted = false;
  for (const file of files) {
    stats.addFile();
    const readOptions = { ...options, onInvalidUtf8: invalidUtf8.add };
    const result = await readEachItem(context, file, readOptions, (item) => {
      at = { file, item };
      switch (item.type) {
        case 'trace': {
          // a trace the other commands refuse is left out and reported here too (as `view` does)
          const parsed = safeParseChatTrace(item.value);
          if (!parsed.success) {
            unreadable++;
            const line = item.lineOfEvent(Number.parseInt(String(parsed.error.details.path), 10));
            context.err(
              `${context.errorPalette.yellow('skipped')} ${file}${(line ?? item.line) === undefined ? '' : `:${line ?? item.line}`}: trace ${item.label}: ${parsed.error.message}\n`,
            );
            break;
          }
          stats.addTrace(parsed.trace);
          break;
        }
        case 'block': {
          const unknown = unknownSubTypeOf(item.value);
          if (unknown !== undefined)
            unknownSubTypes.add(unknown, {
              file,
              line: item.line,
              address: blockAddress(item),
            });
          stats.addBlock(item.value);
          break;
        }
        case 'entry':
          stats.addEntry(item.value);
          break;
        case 'problem':
          unreadable++;
          context.err(
            `${context.errorPalette.yellow('skipped')} ${file}${item.line === undefined ? '' : `:${item.line}`}: ${item.code}: ${item.message}\n`,
          );
          break;
        default:
          break;
      }
    });
    if (result.interrupted) {
      interrupted = true;
      break;
    }
  }
  const summary = stats.summary();
  const warnings = [
    ...invalidUtf8.warnings(),
    ...unknownSubTypes.warnings(),
    ...invalidFigures.warnings(),
  ];
  if (options.json === true)
    await context.out(`${JSON.stringify({ ...summary, interrupted, warnings }, null, 2)}\n`);
  else await context.out(formatStats(summary, context.palette));
  for (const warning of warnings) context.err(`${formatWarning(warning, context.errorPalette)}\n`);
  if (interrupted) {
    context.err(
      `${context.errorPalette.yellow('interrupted')}: statistics above cover what was read before Ctrl-C\n`,
    );
    return exitCodes.interrupted;
  }
  // a figure left out makes the totals incomplete, as blocks of an unknown sub type do
  return unreadable > 0 || unknownSubTypes.count > 0 || invalidFigures.count > 0
    ? exitCodes.problems
    : exitCodes.ok;
}

/**
 * Adds `tracewarden stats <files...>` to the program.
 * @param program - the root command
 * @param context - the command context
 * @returns the subcommand
 */
export function addStatsCommand(program: Command, context: CommandContext): Command {
  return program
    .command('stats')
    .summary('summarise traces: counts, tools, errors, tokens, cost, latency')
    .description(
      "Summarise trace files in one streaming pass: traces, events or blocks, tool calls by tool, model calls by status (an assistant message's metadata.status: success, failure, timeout, rate_limited, ...) and tool calls by status, tokens and cost by model (metadata.model, metadata.usage, metadata.cost: the recorder's cost_micro_usd / cost_usd, or a number in USD), and latency percentiles per model (metadata.latency_ms) and per tool (execution_time_ms, latency_ms or duration_ms; p50/p90/p95/p99 within 1%). Memory stays flat however large the files.",
    )
    .argument('<files...>', 'trace files (.json or .jsonl)')
    .addOption(formatOption())
    .option('--json', 'print the statistics as JSON')
    .addOption(maxLineBytesOption())
    .addHelpText(
      'after',
      `
Examples:
  $ tracewarden stats traces/*.jsonl
  $ tracewarden stats --format entries agentguard-trace.jsonl
  $ tracewarden stats dataset.jsonl --json | jq .latencyByTool`,
    )
    .action(async (files: string[], options: StatsOptions) => {
      context.exitCode = await statsFiles(context, files, options);
    });
}
