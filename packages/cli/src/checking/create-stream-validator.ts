import {
  type Block,
  type BlockLimits,
  type BlockValidator,
  createBlockValidator,
  createSequentialIds,
  entryToBlocks,
  eventsToBlocks,
  isKnownChatRole,
  type Trace,
  TraceEntrySchema,
  type TraceError,
  validateBlocks,
} from '@tracewarden/core';
import type { BlockItem, EntryItem, InputItem, TraceItem } from '../formats/index.js';
import { isObject } from '../formats/is-object.js';
import type { Problem } from '../output/index.js';
import { parseChatTrace } from '../traces/read-chat-trace.js';
import { traceErrorLine } from '../traces/trace-error-line.js';
import type { LoneSurrogatesInTrace } from '../warnings/index.js';
import { collectLoneSurrogates } from '../warnings/lone-surrogate-warning.js';
import {
  type BlockOrigin,
  isMissingEventContent,
  missingEventContentMessage,
} from './event-content-problems.js';
import { toProblem } from './to-problem.js';

/** Options of {@link createStreamValidator}. */
export interface StreamValidatorOptions {
  /** The file being validated (reported with each problem). */
  file: string;
  /** Every problem found, as soon as it is found. */
  onProblem: (problem: Problem) => void;
  /**
   * Each chat event whose role the conversion does not read on purpose (`asistant`, `Tool`):
   * valid, and kept as a user message (decision 003), but most likely a typo. Called per event,
   * with its line and address (`#0/2`); callers tally them.
   */
  onUnknownRole?:
    | ((role: string, at: { line: number | undefined; address: string }) => void)
    | undefined;
  /** Each chat-event trace once parsed, with its item (for warnings about its content). */
  onParsedTrace?: ((trace: Trace, item: TraceItem) => void) | undefined;
  /**
   * Each chat-event trace whose text held lone UTF-16 surrogates: valid, as `parseTrace` reads
   * each as U+FFFD (and `convert` writes it so), but worth a `LONE_SURROGATE` warning.
   */
  onLoneSurrogates?: ((found: LoneSurrogatesInTrace) => void) | undefined;
  /** Byte limits (default: seed 002's, or the `LIMIT_*` environment variables). */
  limits?: Readonly<BlockLimits> | undefined;
  /**
   * Blocks of JSONL files are validated one trace at a time with a `createBlockValidator` per
   * trace; at most this many traces are kept open (least recently used closes first). While
   * the file's traces are contiguous, earlier traces are also closed once they hold more than
   * 10,000 blocks between them.
   * @default 256
   */
  maxOpenTraces?: number | undefined;
  /**
   * Collect blocks and validate them in one `validateBlocks` call at `finish()` (order
   * independent). Used for JSON documents, which are in memory anyway.
   * @default false
   */
  batchBlocks?: boolean | undefined;
  /**
   * The chat-event traces are to become seed-002 blocks (`convert --to blocks`): a system or
   * user event whose `content` is `null` or absent is then a problem, named by its event, as a
   * MESSAGE block needs non-empty content. Otherwise (`validate`, `convert --to events`) such an
   * event is valid: seeds 000 and 003 make every event's `content` optional.
   * @default false
   */
  toBlocks?: boolean | undefined;
}

/** Counts of what a {@link StreamValidator} has seen. */
export interface ValidationCounts {
  traces: number;
  events: number;
  blocks: number;
  entries: number;
  problems: number;
  /**
   * Times a trace of a JSONL block file continued after it was closed (more than
   * `maxOpenTraces` other traces came in between): its earlier blocks are forgotten, so parent
   * and duplicate-id checks across the gap are weakened. Reported once, as a count, by the caller.
   */
  reopenedTraces: number;
}

/**
 * Counts of nothing seen yet, a fresh object each call.
 * @internal
 * @returns every count at 0
 */
export function emptyValidationCounts(): ValidationCounts {
  return { traces: 0, events: 0, blocks: 0, entries: 0, problems: 0, reopenedTraces: 0 };
}

/** Validates a file's items one at a time. */
export interface StreamValidator {
  /** Validates one item, reporting its problems. */
  add(item: InputItem): void;
  /** Ends the file (runs batched validation). */
  finish(): void;
  readonly counts: Readonly<ValidationCounts>;
}

/** Blocks of earlier traces kept open while a file's traces look contiguous. */
const contiguousBlockBudget = 10_000;

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `tr_1/tb_7`, or what is known of it. */
function blockAddress(value: unknown, fallback: string): string {
  if (!isObject(value)) return fallback;
  const trace = text(value.trace_id) ?? '?';
  const id = text(value.id) ?? fallback;
  return `${trace}/${id}`;
}

function withField(address: string, error: TraceError): string {
  const field = error.details.field;
  if (typeof field !== 'string' || field === '') return address;
  const top = [
    'id',
    'trace_id',
    'parent_block_id',
    'block_type',
    'sub_type',
    'created_at',
    'updated_at',
    'metadata',
    'extra',
    'raw',
    'payload',
  ];
  return `${address}.${top.includes(field) || field.startsWith('payload') ? field : `payload.${field}`}`;
}

/**
 * Validates the items of one file as a server would accept them (seed 002), reporting every
 * problem with its line and address:
 * - chat-event traces: `parseTrace` (addresses like `3.tool_calls.0`), then the blocks
 *   `eventsToBlocks` makes of them through `validateBlocks` (size limits, empty content);
 * - blocks: per trace, in file order, with `createBlockValidator` (parents must come before
 *   children, as the JSONL sink writes them), or all at once with `validateBlocks` (`batchBlocks`);
 * - trace entries: the seed 004 schema, then their TOOL_CALL / TOOL_RESULT blocks per session
 *   (duplicate call ids, size limits).
 * Memory stays bounded by `maxOpenTraces` traces, whatever the file's size.
 *
 * @param options - file name, problem callback, limits
 * @returns the validator
 * @example
 * ```ts
 * const validator = createStreamValidator({ file, onProblem: (p) => console.log(p.code, p.message) });
 * for await (const item of input.items) validator.add(item);
 * validator.finish();
 * ```
 */
export function createStreamValidator(options: StreamValidatorOptions): StreamValidator {
  const { file, onProblem } = options;
  const limits = options.limits === undefined ? undefined : { ...options.limits };
  const maxOpenTraces = options.maxOpenTraces ?? 256;
  const counts = emptyValidationCounts();
  const report = (problem: Problem) => {
    counts.problems++;
    onProblem(problem);
  };
  const limitOptions = limits === undefined ? {} : { limits };

  // Least recently used first: re-inserted on every use.
  interface OpenTrace {
    traceId: string;
    validator: BlockValidator;
    blocks: number;
  }
  const open = new Map<string, OpenTrace>();
  const closed = new Set<string>();
  let last: OpenTrace | undefined;
  // Blocks held by open validators; while the file's traces look contiguous (the JSONL sink
  // writes each trace's blocks together), earlier traces are closed once they hold more than
  // `contiguousBlockBudget` blocks between them, so memory does not grow with the trace size.
  let openBlocks = 0;
  let interleaved = false;
  const close = (trace: OpenTrace) => {
    open.delete(trace.traceId);
    openBlocks -= trace.blocks;
    closed.add(trace.traceId);
  };
  const openTraceOf = (traceId: string): OpenTrace => {
    if (last !== undefined && last.traceId === traceId) return last;
    let trace = open.get(traceId);
    if (trace !== undefined) {
      // back to an earlier trace still open: the file interleaves traces
      interleaved = true;
      open.delete(traceId);
      open.set(traceId, trace);
      last = trace;
      return trace;
    }
    if (closed.has(traceId)) {
      closed.delete(traceId);
      interleaved = true;
      // one count, not a line per trace: an interleaved file reopens traces by the thousand
      counts.reopenedTraces++;
    }
    trace = {
      traceId,
      validator: createBlockValidator({ ...limitOptions, ...(traceId === '' ? {} : { traceId }) }),
      blocks: 0,
    };
    open.set(traceId, trace);
    while (open.size > 1) {
      const overBudget = !interleaved && openBlocks > contiguousBlockBudget;
      if (open.size <= maxOpenTraces && !overBudget) break;
      const oldest = open.values().next().value;
      if (oldest === undefined) break;
      close(oldest);
    }
    last = trace;
    return trace;
  };

  const batched: BlockItem[] = [];
  const traceIds = new Set<string>();

  function addBlock(item: BlockItem): void {
    counts.blocks++;
    if (options.batchBlocks === true) {
      batched.push(item);
      return;
    }
    const value = item.value;
    const traceId = isObject(value) && typeof value.trace_id === 'string' ? value.trace_id : '';
    if (!traceIds.has(traceId) && traceIds.size < 1_000_000) {
      traceIds.add(traceId);
      counts.traces++;
    }
    const trace = openTraceOf(traceId);
    trace.blocks++;
    openBlocks++;
    const validator = trace.validator;
    try {
      validator.accept(value);
    } catch (error) {
      const errors = validator.check(value);
      const address = blockAddress(value, item.path === '' ? `line ${item.line}` : item.path);
      for (const found of errors.length > 0 ? errors : [error as TraceError]) {
        report(
          toProblem(found, {
            file,
            line: item.line,
            address: isTraceErrorLike(found) ? withField(address, found) : address,
          }),
        );
      }
    }
  }

  function addTrace(item: TraceItem): void {
    counts.traces++;
    let trace: Trace;
    const surrogates = collectLoneSurrogates();
    try {
      trace = parseChatTrace(item.value, surrogates);
    } catch (error) {
      const path =
        isTraceErrorLike(error) && typeof error.details.path === 'string' ? error.details.path : '';
      report(
        toProblem(error, {
          file,
          line: traceErrorLine(item, error),
          address: `${item.label}${path === '' ? '' : `/${path}`}`,
        }),
      );
      return;
    }
    counts.events += trace.length;
    options.onParsedTrace?.(trace, item);
    if (surrogates.count > 0) {
      options.onLoneSurrogates?.({
        label: item.label,
        line: item.lineOfEvent(surrogates.events[0] ?? 0) ?? item.line,
        count: surrogates.count,
        events: surrogates.events,
      });
    }
    if (options.onUnknownRole !== undefined) {
      for (const [index, event] of trace.entries()) {
        if (isKnownChatRole(event.role)) continue;
        options.onUnknownRole(event.role, {
          line: item.lineOfEvent(index) ?? item.line,
          address: `${item.label}/${index}`,
        });
      }
    }
    // Each event's block, its reasoning's THINK blocks, then its tool calls' blocks: map block
    // ids back to event addresses. Sequential ids, so that a message naming one is repeatable.
    const blocks = eventsToBlocks(trace, {
      traceId: `tr_${item.label}`,
      ids: createSequentialIds(),
      startTime: 0,
    });
    // by id, with the block itself: each error finds its block in constant time, so a file full
    // of events without content (one error each) stays linear
    const addressOf = new Map<string, BlockOrigin>();
    let event = -1;
    let call = 0;
    for (const block of blocks) {
      if (block.sub_type === 'TOOL_CALL') {
        addressOf.set(block.id, { event, address: `${event}.tool_calls.${call++}`, block });
      } else if (block.sub_type === 'THINK') {
        // from the event's `reasoning_content`: not an event of its own
        addressOf.set(block.id, { event, address: `${event}.reasoning_content`, block });
      } else {
        event++;
        call = 0;
        addressOf.set(block.id, { event, address: String(event), block });
      }
    }
    const result = validateBlocks(blocks, limitOptions);
    for (const error of result.errors) {
      const blockId =
        typeof error.details.block_id === 'string'
          ? error.details.block_id
          : blockIdAt(blocks, error.details.path);
      const at = blockId === undefined ? undefined : addressOf.get(blockId);
      // seed 002's "non-empty content" is a rule of MESSAGE blocks, not of events (000/003)
      const missingContent = isMissingEventContent(error, at);
      if (missingContent && options.toBlocks !== true) continue;
      const details = { ...error.details };
      delete details.trace_id;
      delete details.block_id;
      const problem = toProblem(error, {
        file,
        line: at === undefined ? item.line : (item.lineOfEvent(at.event) ?? item.line),
        address: `${item.label}${at === undefined ? '' : `/${at.address}`}`,
      });
      if (missingContent) {
        report({
          ...problem,
          message: missingEventContentMessage(at.event, trace[at.event]),
          details: { ...details, event: at.event },
        });
        continue;
      }
      // the blocks are internal to the check: the address names the event, not a block
      report({ ...problem, message: problem.message.replace(/^block [^:]*: /, ''), details });
    }
  }

  const sessions = new Map<string, { validator: BlockValidator; parent: string }>();
  function addEntry(item: EntryItem): void {
    counts.entries++;
    const parsed = TraceEntrySchema.safeParse(item.value);
    const callId =
      isObject(item.value) && isObject(item.value.call) ? text(item.value.call.call_id) : undefined;
    const address = callId ?? (item.path === '' ? `line ${item.line}` : item.path);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = issue.path.map(String).join('.');
        report({
          file,
          line: item.line,
          address: `${address}/${path}`,
          code: 'VALIDATION',
          http_status: 422,
          message: `${path}: ${issue.message}`,
          details: { path },
        });
      }
      return;
    }
    const entry = parsed.data;
    const session = entry.call.session_id ?? '';
    let state = sessions.get(session);
    if (state === undefined) {
      counts.traces++;
      const traceId = `tr_session_${session === '' ? 'none' : session}`;
      const validator = createBlockValidator({ ...limitOptions, traceId });
      const parent = validator.accept({
        id: 'tb_session',
        trace_id: traceId,
        sub_type: 'MESSAGE',
        payload: { role: 'user', content: `session ${session}` },
        created_at: new Date(0).toISOString(),
      }).id;
      state = { validator, parent };
      sessions.set(session, state);
      if (sessions.size > maxOpenTraces) {
        const oldest = sessions.keys().next().value;
        if (oldest !== undefined) sessions.delete(oldest);
      }
    }
    const traceId = `tr_session_${session === '' ? 'none' : session}`;
    for (const block of entryToBlocks(entry, { traceId, parentBlockId: state.parent })) {
      try {
        state.validator.accept(block);
      } catch (error) {
        const problem = toProblem(error, {
          file,
          line: item.line,
          address: `${session === '' ? '' : `${session}/`}${entry.call.call_id}`,
        });
        const details = { ...problem.details };
        delete details.trace_id;
        delete details.block_id;
        delete details.parent_block_id;
        // the blocks are internal to the check: name the entry, not a block id
        report({ ...problem, message: problem.message.replace(/^block \S+: /, ''), details });
        if (block.sub_type === 'TOOL_CALL') return;
      }
    }
  }

  return {
    add(item) {
      switch (item.type) {
        case 'problem':
          report({
            file,
            line: item.line,
            column: item.column,
            code: item.code,
            http_status: item.code === 'VALIDATION' ? 422 : 413,
            message: item.message,
          });
          return;
        case 'block':
          addBlock(item);
          return;
        case 'trace':
          addTrace(item);
          return;
        case 'entry':
          addEntry(item);
          return;
        case 'dataset-metadata':
          if (
            isObject(item.value) &&
            item.value.metadata !== undefined &&
            !isObject(item.value.metadata)
          ) {
            report({
              file,
              line: item.line,
              address: 'metadata',
              code: 'VALIDATION',
              http_status: 422,
              message: 'the dataset metadata must be an object',
            });
          }
          return;
      }
    },
    finish() {
      if (batched.length === 0) return;
      const values = batched.map((item) => item.value);
      const ids = new Set<string>();
      for (const value of values)
        if (isObject(value) && typeof value.trace_id === 'string') ids.add(value.trace_id);
      counts.traces += ids.size;
      const result = validateBlocks(values, limitOptions);
      for (const error of result.errors) {
        const index = Number(error.details.path);
        const item = Number.isInteger(index) ? batched[index] : undefined;
        report(
          toProblem(error, {
            file,
            line: item?.line,
            address: withField(blockAddress(item?.value, `[${index}]`), error),
          }),
        );
      }
      batched.length = 0;
    },
    get counts() {
      return counts;
    },
  };
}

function isTraceErrorLike(error: unknown): error is TraceError {
  return isObject(error) && typeof error.code === 'string' && isObject(error.details);
}

function blockIdAt(blocks: readonly Block[], path: unknown): string | undefined {
  const index = typeof path === 'string' ? Number(path) : Number.NaN;
  return Number.isInteger(index) ? blocks[index]?.id : undefined;
}
