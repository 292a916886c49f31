import { type Block, createHttpSink, type HttpSink, SinkError } from '@tracewarden/core';
import { defaultPort } from '@tracewarden/server';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CliError, exitCodes } from '../errors/index.js';
import type { InputFormat } from '../formats/index.js';
import { isObject } from '../formats/is-object.js';
import { parseJson } from '../formats/parse-json.js';
import { formatProblem, type Problem } from '../output/index.js';
import type { CommandContext } from '../program/command-context.js';
import {
  formatOption,
  maxLineBytesOption,
  maxOpenTracesOption,
  parsePositiveInteger,
} from '../program/shared-options.js';
import {
  forEachTrace,
  type GroupedTrace,
  splitTracesNote,
  untimedAsGiven,
} from '../traces/index.js';
import { createUnknownSubTypeTally } from '../traces/unknown-sub-type.js';
import { formatWarning } from '../warnings/format-warning.js';
import { createUnknownBlockFieldTally } from '../warnings/unknown-block-field-tally.js';

/** Options of {@link pushFiles} (the `push` command's flags). */
export interface PushOptions {
  /** The collector's base URL. @default `TRACEWARDEN_URL`, else `http://127.0.0.1:7319` */
  url?: string | undefined;
  /** An API key of the organization. @default `TRACEWARDEN_API_KEY` */
  apiKey?: string | undefined;
  /** The key's organization. @default `TRACEWARDEN_ORGANIZATION`, else `default` */
  org?: string | undefined;
  /** Seconds the collector may stay unreachable before the push stops. @default 60 */
  timeout?: number | undefined;
  format?: InputFormat | undefined;
  maxLineBytes?: number | undefined;
  maxOpenTraces?: number | undefined;
  /** Print one JSON report instead of lines. */
  json?: boolean | undefined;
  /**
   * Also file the pushed traces under this dataset of the collector (created when it does not
   * exist; traces already in it stay).
   */
  dataset?: string | undefined;
}

/** The `push --json` report. */
export interface PushReport {
  ok: boolean;
  interrupted: boolean;
  /** The organization's endpoint: `{url}/v1/organizations/{org}`. */
  url: string;
  /** Traces and blocks stored per file (a trace counts once all of its blocks were accepted). */
  files: { file: string; traces: number; blocks: number }[];
  /** Items that could not be read, and blocks the collector refused. */
  problems: Problem[];
  /** With `--dataset`: the dataset and how many pushed traces it gained. */
  dataset?: { name: string; created: boolean; added: number } | undefined;
}

/** Blocks written to the sink between two flushes: bounds memory and the sink's buffer. */
const blocksPerFlush = 10_000;

/** How long the check before the first file may take. */
const preflightTimeoutMs = 10_000;

function plural(count: number, word: string): string {
  return `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
}

function usage(message: string, cause?: unknown): CliError {
  return new CliError({ code: 'CLI_USAGE', message, cause });
}

/** The collector's URL, key and organization, from the flags, then the environment. */
function resolveTarget(context: CommandContext, options: PushOptions) {
  const url = options.url ?? context.env.TRACEWARDEN_URL ?? `http://127.0.0.1:${defaultPort}`;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw usage(`--url must be the collector's http:// or https:// URL, got "${url}"`);
  const apiKey = options.apiKey ?? context.env.TRACEWARDEN_API_KEY;
  if (apiKey === undefined || apiKey.trim() === '') {
    throw usage(
      'no API key: pass --api-key or set TRACEWARDEN_API_KEY (the collector printed one on its first start and saved it to <data-dir>/credentials; tracewarden keys create makes more)',
    );
  }
  const organization = options.org ?? context.env.TRACEWARDEN_ORGANIZATION ?? 'default';
  if (organization.trim() === '') throw usage('--org must not be empty');
  return { url: url.replace(/\/+$/, ''), apiKey, organization };
}

/**
 * Asks the collector for one trace of the organization before reading any file, so a collector
 * that is not there, a refused key or another organization's name stop the push at once.
 */
async function preflight(target: ReturnType<typeof resolveTarget>): Promise<void> {
  const address = `${target.url}/v1/organizations/${encodeURIComponent(target.organization)}/traces?limit=1`;
  let response: Response;
  let answer: string;
  try {
    response = await fetch(address, {
      headers: { authorization: `Bearer ${target.apiKey}` },
      signal: AbortSignal.timeout(preflightTimeoutMs),
    });
    answer = await response.text();
  } catch (error) {
    const reason = error instanceof Error ? describeFailure(error) : String(error);
    throw new CliError({
      code: 'CLI_PUSH_FAILED',
      message: `cannot reach the collector at ${target.url} (${reason}); start it with \`tracewarden serve\`, or point --url (or TRACEWARDEN_URL) at it. Nothing was pushed.`,
      exitCode: exitCodes.problems,
      cause: error,
    });
  }
  if (response.status === 401) {
    throw usage(
      `the collector at ${target.url} refused the API key (401 UNAUTHORIZED); check --api-key or TRACEWARDEN_API_KEY (tracewarden keys list shows the active keys). Nothing was pushed.`,
    );
  }
  const parsed = parseJson(answer);
  const body = parsed.ok ? parsed.value : undefined;
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } })
    ?.error;
  if (response.status === 404 && isObject(error?.details) && 'organization' in error.details) {
    throw usage(
      `the API key does not belong to organization "${target.organization}" (404 NOT_FOUND); pass the key's organization with --org (or TRACEWARDEN_ORGANIZATION). Nothing was pushed.`,
    );
  }
  if (response.status === 404) {
    throw usage(
      `no collector API at ${target.url} (404${typeof error?.message === 'string' ? `: ${error.message}` : ''}); --url (or TRACEWARDEN_URL) is the collector's base address as \`tracewarden serve\` prints it, without /v1. Nothing was pushed.`,
    );
  }
  if (!response.ok)
    throw new CliError({
      code: 'CLI_PUSH_FAILED',
      message: `the collector at ${target.url} answered ${response.status}${typeof error?.code === 'string' ? ` ${error.code}` : ''}${typeof error?.message === 'string' ? `: ${error.message}` : ''}; nothing was pushed.`,
      exitCode: exitCodes.problems,
    });
  if (!isObject(body))
    throw new CliError({
      code: 'CLI_PUSH_FAILED',
      message: `${target.url} answered ${response.status} with ${response.headers.get('content-type') ?? 'a body'} that is no tracewarden collector’s JSON; check --url (or TRACEWARDEN_URL). Nothing was pushed.`,
      exitCode: exitCodes.problems,
    });
}

/** One JSON request to the collector's organization API; a refusal is a push failure. */
async function collectorRequest(
  target: ReturnType<typeof resolveTarget>,
  path: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const address = `${target.url}/v1/organizations/${encodeURIComponent(target.organization)}${path}`;
  let response: Response;
  try {
    response = await fetch(address, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(preflightTimeoutMs),
    });
  } catch (error) {
    throw new CliError({
      code: 'CLI_PUSH_FAILED',
      message: `cannot reach the collector at ${target.url} to file the traces under the dataset (${error instanceof Error ? describeFailure(error) : String(error)}); the traces are stored: run the same command again to file them`,
      exitCode: exitCodes.problems,
      cause: error,
    });
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json };
}

/**
 * Files the pushed traces under a dataset of the collector: creates it when it does not exist
 * (409 `DATASET_EXISTS`-style answers mean it does), then adds the traces.
 */
async function fileUnderDataset(
  target: ReturnType<typeof resolveTarget>,
  name: string,
  traceIds: string[],
): Promise<{ name: string; created: boolean; added: number }> {
  const refused = (what: string, answer: { status: number; json: unknown }): CliError => {
    const error = (answer.json as { error?: { code?: string; message?: string } } | undefined)
      ?.error;
    return new CliError({
      code: 'CLI_PUSH_FAILED',
      message: `the collector refused to ${what} dataset "${name}" (${answer.status} ${error?.code ?? ''}: ${error?.message ?? 'no error body'}); the traces are stored`,
      exitCode: answer.status >= 400 && answer.status < 500 ? exitCodes.usage : exitCodes.problems,
    });
  };
  const create = await collectorRequest(target, '/datasets', { name });
  if (create.status !== 201 && create.status !== 409) throw refused('create', create);
  let added = 0;
  // the collector takes a bounded number of traces per request
  for (let start = 0; start < traceIds.length; start += 1000) {
    const traces = traceIds.slice(start, start + 1000).map((trace_id) => ({ trace_id }));
    const answer = await collectorRequest(target, `/datasets/${encodeURIComponent(name)}/traces`, {
      traces,
    });
    if (answer.status !== 200) throw refused('add traces to', answer);
    added += Number((answer.json as { added?: unknown } | undefined)?.added ?? traces.length);
  }
  return { name, created: create.status === 201, added };
}

function describeFailure(error: Error): string {
  if (error.name === 'TimeoutError') return `no answer within ${preflightTimeoutMs / 1000} s`;
  const inner = error.cause;
  if (inner instanceof Error) {
    const code = (inner as { code?: unknown }).code;
    return typeof code === 'string' ? code : inner.message;
  }
  return error.message;
}

/** Why the sink gave up on a trace, in the push's terms (its message speaks of background retries). */
function whyNotStored(error: SinkError, timeoutMs: number): string {
  if (error.code !== 'SINK_WRITE_FAILED' || error.droppedBlocks !== undefined) return error.message;
  const cause = error.cause;
  const reason =
    cause === undefined
      ? ''
      : `; last attempt: ${typeof cause === 'string' ? cause : cause instanceof Error ? describeFailure(cause) : String(cause)}`;
  return `the collector did not accept it within --timeout (${timeoutMs / 1000} s)${reason}`;
}

/** The line a block was read from, by its id (the trace's first line when not found). */
function lineOf(trace: GroupedTrace, blockId: unknown): number | undefined {
  if (typeof blockId === 'string') {
    const index = trace.blocks.findIndex((block) => block.id === blockId);
    if (index !== -1) return trace.lines[index] ?? trace.line;
  }
  return trace.line;
}

/**
 * Uploads trace files to a tracewarden collector: JSONL (or JSON) blocks, split by `trace_id`,
 * and chat-event traces, datasets and trace entries converted to blocks as `convert` does, each
 * chat-event trace with ids from its content, so pushing a file again stores nothing twice.
 * Each trace goes through {@link createHttpSink} (batches, retries with backoff); the push
 * waits for the collector to commit each trace before reading on.
 *
 * @param context - outputs, environment, signal
 * @param files - the files to push
 * @param options - the collector, key and organization; input format and limits
 * @returns 0 when everything was stored, 1 when something was not (a refused block, an
 *   unreadable item, the collector unreachable), 2 for a usage error, 130 when interrupted
 * @example
 * ```ts
 * const code = await pushFiles(context, ['traces/run.jsonl'], { url: 'http://127.0.0.1:7319', apiKey: 'twk_...' });
 * ```
 */
export async function pushFiles(
  context: CommandContext,
  files: readonly string[],
  options: PushOptions,
): Promise<number> {
  const target = resolveTarget(context, options);
  const timeoutMs = (options.timeout ?? 60) * 1000;
  await preflight(target);
  const sink: HttpSink = createHttpSink({
    url: target.url,
    apiKey: target.apiKey,
    organization: target.organization,
    // flushed per trace, below: the timer never has anything to send
    flushIntervalMs: 2_147_483_647,
    flushTimeoutMs: timeoutMs,
    // a request hanging past the timeout would keep the process alive after the push gave up
    requestTimeoutMs: Math.min(timeoutMs, 30_000),
    maxBatchBlocks: 2000,
    maxBatchBytes: 4 * 1024 * 1024,
  });
  const report: PushReport = {
    ok: false,
    interrupted: false,
    url: sink.url,
    files: [],
    problems: [],
  };
  const perFile = new Map<string, { file: string; traces: number; blocks: number }>();
  const pushedTraceIds = new Set<string>();
  for (const file of files) {
    const counts = { file, traces: 0, blocks: 0 };
    perFile.set(file, counts);
    report.files.push(counts);
  }
  const problem = async (found: Problem) => {
    report.problems.push(found);
    if (options.json !== true) await context.out(`${formatProblem(found, context.palette)}\n`);
  };

  /** Waits for the sink, or for Ctrl-C. */
  const settle = (flushing: Promise<void>): Promise<'done' | 'aborted'> =>
    new Promise((resolve, reject) => {
      if (context.signal.aborted) return resolve('aborted');
      const onAbort = () => resolve('aborted');
      context.signal.addEventListener('abort', onAbort, { once: true });
      flushing.then(
        () => {
          context.signal.removeEventListener('abort', onAbort);
          resolve('done');
        },
        (error: unknown) => {
          context.signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });

  async function pushTrace(trace: GroupedTrace): Promise<void> {
    const counts = perFile.get(trace.file);
    let refused = false;
    // the blocks the collector stored: a trace longer than a batch is sent in several, and
    // each batch is stored or refused whole
    let stored = 0;
    for (let start = 0; start < trace.blocks.length; start += blocksPerFlush) {
      const end = Math.min(trace.blocks.length, start + blocksPerFlush);
      for (let i = start; i < end; i++) sink.write(untimedAsGiven(trace.blocks[i] as Block));
      let outcome: 'done' | 'aborted';
      try {
        outcome = await settle(sink.flush());
      } catch (error) {
        if (!SinkError.isInstance(error)) throw error;
        refused = true;
        stored += Math.max(0, end - start - (error.droppedBlocks ?? end - start));
        await reportFailure(trace, error, counts?.traces ?? 0, stored);
        continue;
      }
      stored += end - start;
      if (outcome === 'aborted') return;
    }
    if (counts === undefined) return;
    counts.blocks += stored;
    if (!refused) {
      counts.traces++;
      if (options.dataset !== undefined) pushedTraceIds.add(trace.traceId);
    }
  }

  async function reportFailure(
    trace: GroupedTrace,
    error: SinkError,
    pushed: number,
    stored: number,
  ) {
    const server = error.serverError;
    if (error.code === 'SINK_REJECTED' && server !== undefined) {
      if (server.code === 'UNAUTHORIZED' || server.code === 'NOT_FOUND') {
        throw usage(
          `${trace.file}${trace.line === undefined ? '' : `:${trace.line}`}: the collector answered ${server.http_status} ${server.code} for trace ${trace.traceId} (${server.message}); check --api-key and --org. Traces pushed before it stay stored.`,
          error,
        );
      }
      const blockId = server.details.block_id;
      await problem({
        file: trace.file,
        line: lineOf(trace, blockId),
        address: typeof blockId === 'string' ? `${trace.traceId}/${blockId}` : trace.traceId,
        code: server.code,
        http_status: server.http_status,
        message: `${server.message} (refused by the collector; ${plural(error.droppedBlocks ?? 0, 'block')} of this trace not stored${stored > 0 ? `, ${plural(stored, 'block')} of it stored by earlier batches` : ''})`,
        details: server.details,
      });
      return;
    }
    // the collector stayed unreachable, or failed in a way no retry fixed: stop here
    throw new CliError({
      code: 'CLI_PUSH_FAILED',
      file: trace.file,
      ...(trace.line === undefined ? {} : { line: trace.line }),
      message: `${trace.file}${trace.line === undefined ? '' : `:${trace.line}`}: trace ${trace.traceId} was not stored: ${whyNotStored(error, timeoutMs)}. The push stopped after ${plural(pushed, 'trace')} of this file; run the same command again when the collector is back (what is already stored is not stored twice).`,
      exitCode: exitCodes.problems,
      cause: error,
    });
  }

  // blocks of an unknown sub_type are not pushed: one problem per value, not one per block
  const unknownSubTypes = createUnknownSubTypeTally('not pushed');
  // a block's fields outside seed 002's are not sent: said once per name (a warning)
  const unknownBlockFields = createUnknownBlockFieldTally('dropped');
  let result: Awaited<ReturnType<typeof forEachTrace>>;
  try {
    result = await forEachTrace(
      context,
      files,
      {
        format: options.format,
        maxLineBytes: options.maxLineBytes,
        maxOpenTraces: options.maxOpenTraces,
        contentIds: true,
        // the collector judges the blocks as the file holds them
        blocksAsGiven: true,
        onBlockItem: (item, file) => unknownBlockFields.add(item, file),
        onUnknownSubType: (file, found) =>
          unknownSubTypes.add(found.subType, { file, line: found.line, address: found.address }),
        onSkip: (file, skip) => {
          report.problems.push({
            file,
            line: skip.line,
            code: 'SKIPPED',
            message: `${skip.message} (not pushed)`,
          });
          context.err(
            `${context.errorPalette.yellow('skipped')} ${file}${skip.line === undefined ? '' : `:${skip.line}`}: ${skip.message}\n`,
          );
        },
      },
      pushTrace,
    );
  } catch (error) {
    // stopping on an error: blocks still buffered are not waited for
    void sink.close().catch(() => undefined);
    throw error;
  }
  report.interrupted = result.interrupted || context.signal.aborted;
  for (const { code, file, line, address, message } of unknownSubTypes.warnings())
    await problem({ file, line, address, code, message });
  for (const warning of unknownBlockFields.warnings())
    context.err(`${formatWarning(warning, context.errorPalette)}\n`);
  if (!report.interrupted) await sink.close();
  if (!report.interrupted && options.dataset !== undefined)
    report.dataset = await fileUnderDataset(target, options.dataset, [...pushedTraceIds]);
  report.ok = report.problems.length === 0 && !report.interrupted;
  if (result.splitTraces > 0) {
    context.err(
      `${context.errorPalette.yellow('note')}: ${splitTracesNote(result.splitTraces, options.maxOpenTraces, 'pushed')}\n`,
    );
  }
  const traces = report.files.reduce((sum, file) => sum + file.traces, 0);
  const blocks = report.files.reduce((sum, file) => sum + file.blocks, 0);
  const summary = `${plural(traces, 'trace')} (${plural(blocks, 'block')}) from ${plural(files.length, 'file')} to ${sink.url}`;
  if (options.json === true) {
    await context.out(`${JSON.stringify(report, null, 2)}\n`);
  } else if (report.interrupted) {
    context.err(`${context.palette.yellow('interrupted')}: pushed ${summary} before Ctrl-C\n`);
  } else if (report.problems.length === 0) {
    await context.out(`${context.palette.green('ok')}: pushed ${summary}\n`);
  } else {
    await context.out(
      `${context.palette.red(plural(report.problems.length, 'problem'))}; pushed ${summary}\n`,
    );
  }
  if (report.interrupted) return exitCodes.interrupted;
  return report.ok ? exitCodes.ok : exitCodes.problems;
}

/**
 * A `--dataset` name the collector accepts (its rule: it is a path segment), checked before any
 * trace is pushed rather than refused after all were.
 */
function parseDatasetName(value: string): string {
  // the collector's dataset name rule (@tracewarden/server, storage/store-helpers.ts)
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/.test(value))
    throw new InvalidArgumentError(
      `${JSON.stringify(value)} is not a dataset name the collector accepts: use 1 to 200 letters, digits, '_', '.' or '-', starting with a letter or digit`,
    );
  return value;
}

/**
 * Adds `tracewarden push <file...>` to the program.
 * @param program - the root command
 * @param context - the command context
 * @returns the subcommand
 */
export function addPushCommand(program: Command, context: CommandContext): Command {
  return program
    .command('push')
    .summary('upload trace files to a tracewarden collector')
    .description(
      'Upload trace files to a collector (tracewarden serve): JSONL or JSON trace blocks (one or many traces, split by trace_id), chat-event traces, datasets and trace entries (converted to blocks as convert does; a chat-event trace without an id gets one from its content, so pushing a file twice stores nothing twice). Blocks go in batches, retried while the collector is unreachable or busy; each trace is committed before the next is read. Problems name the file and line.',
    )
    .argument('<file...>', 'trace files (.json or .jsonl)')
    .option(
      '--url <url>',
      `the collector's URL (default: $TRACEWARDEN_URL, else http://127.0.0.1:${defaultPort})`,
    )
    .option('--api-key <key>', 'an API key of the organization (default: $TRACEWARDEN_API_KEY)')
    .option(
      '--org <name>',
      "the API key's organization (default: $TRACEWARDEN_ORGANIZATION, else default)",
    )
    .addOption(
      new Option(
        '--timeout <seconds>',
        'how long the collector may stay unreachable before the push stops (default: 60)',
      ).argParser(parsePositiveInteger),
    )
    .addOption(formatOption())
    .option('--json', 'print one JSON report (files, counts, problems) instead of lines')
    .option(
      '--dataset <name>',
      'also file the pushed traces under this dataset of the collector (created if it does not exist)',
      parseDatasetName,
    )
    .addOption(
      maxOpenTracesOption('while their blocks are read (each trace is pushed when finished)'),
    )
    .addOption(maxLineBytesOption())
    .addHelpText(
      'after',
      `
Examples:
  $ export TRACEWARDEN_API_KEY=twk_...     # printed by the collector's first start
  $ tracewarden push traces/*.jsonl
  $ tracewarden push --url https://collector.example.com --org acme dataset.jsonl
  $ set -a; . ~/.tracewarden/credentials; set +a; tracewarden push run.jsonl

Exit codes: 0 everything was stored, 1 something was not (a block the collector refused,
an unreadable item, the collector unreachable), 2 usage error (no key, a refused key, a bad
option or missing file), 130 interrupted.`,
    )
    .action(async (files: string[], options: PushOptions) => {
      context.exitCode = await pushFiles(context, files, options);
    });
}
