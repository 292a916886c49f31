import { type GuardedCallRecord, guardedCallToBlocks } from '../convert/entry-to-blocks.js';
import { entryToBlocks } from '../convert/index.js';
import { TraceError, TracewardenError } from '../errors/index.js';
import { validateOptions } from '../errors/validate-options.js';
import { formatIsoTimestamp } from '../model/format-iso-timestamp.js';
import { blockIdAt as blockIdAtKey, type ClockedIdGenerator } from '../model/ids.js';
import type {
  Block,
  IdGenerator,
  MessageBlock,
  ThinkBlock,
  ToolCallBlock,
  ToolResultBlock,
  TraceEntry,
} from '../model/index.js';
import { createIdGenerator } from '../model/index.js';
import { exitStateKey } from '../sinks/create-jsonl-file-sink.js';
import type { Sink } from '../sinks/sink.js';
import type { UnwrittenBlocks } from '../sinks/unwritten-at-exit.js';
import { stitchBlocks } from '../stitching/index.js';
import type { StitchedTrace } from '../stitching/types.js';
import { createTraceValidator } from '../validation/create-block-validator.js';
import { type DraftBlock, emptyObject, fitsLimit, isRecord } from '../validation/inspect-block.js';
import { jsonProblem, withTrustedJson } from '../validation/json-problem.js';
import type { BlockLimits } from '../validation/types.js';
import { type ExitFlushable, flushOnExit, stopFlushOnExit } from './flush-on-exit.js';
import { type GuardedCallTracer, recordGuardedCall, standsInFor } from './record-guarded-call.js';
import { recordModelResponse } from './record-model-response.js';
import { TracerClosedError } from './tracer-closed-error.js';
import { TracerFlushError } from './tracer-flush-error.js';
import { tracerOptionsSchema } from './tracer-options-schema.js';
import type { LogActInput, LogMessageInput, LogThinkInput, Tracer } from './types.js';

/** Options of {@link createTracer}. */
export interface TracerOptions {
  /** The trace id. @default a new `tr_` id from `ids` */
  traceId?: string;
  /** Where accepted blocks go, in acceptance order. @default [] (blocks stay in memory only) */
  sinks?: Sink[];
  /** Byte limits, overriding the defaults and `LIMIT_*` environment variables. */
  limits?: Partial<BlockLimits>;
  /** Epoch milliseconds for `created_at` / `updated_at`. Inject a fake clock in tests. @default Date.now */
  clock?: () => number;
  /** Source of block, trace and call ids. @default createIdGenerator(clock) */
  ids?: IdGenerator;
  /**
   * Flush when the process is about to end on its own (`beforeExit`), shut down on SIGINT and
   * SIGTERM (then let the signal end the process, unless another listener handles it), and make
   * file sinks write synchronously on `process.exit()`: for scripts, CLIs and serverless handlers
   * that may end without `shutdown()`. `shutdown()` unregisters the tracer. Without it, blocks
   * left buffered in a file sink at exit are not written, and one warning on stderr says so.
   * @default false
   */
  flushOnExit?: boolean;
  /**
   * Called when a sink throws from `write()`. The block stays accepted; the error is also kept
   * and makes the next `flush()` reject, so it is never lost silently.
   * @default none (the error only surfaces through `flush()`)
   */
  onError?: (error: unknown) => void;
}

const syntheticMetadata = Object.freeze({ synthetic: true });

// 10000-01-01T00:00:00.000Z: clock readings in [0, this) are formatted as 24 characters
const maxDeferredMs = 253_402_300_800_000;

/**
 * A model response's MESSAGE waiting in a sinkless tracer (see `recordModelResponse`): only what
 * the block is made of, its clock reading kept as a number. Kept until the trace is read, and so
 * copied by every young-generation GC until then: one small object, no draft or payload yet.
 */
class DeferredResponse {
  constructor(
    readonly id: string,
    readonly content: string | null,
    readonly metadata: Record<string, unknown>,
    readonly raw: unknown,
    /** Epoch milliseconds within years 1970-9999: formatted as a valid 24-character timestamp. */
    readonly at: number,
  ) {}
}

/**
 * A block as the tracer submits it: already in canonical block form (every field, in block
 * order), so the validator checks it and freezes it in place instead of copying it.
 */
type Candidate = DraftBlock;

/**
 * Creates a tracer that records one trace as validated blocks and sends each accepted block to
 * its sinks (seed 002's SDK helpers `logMessage`, `logAct`, `logObserve`, `logThink`).
 *
 * Every `log*` builds the block (`created_at` = `updated_at` = the clock's time), validates it
 * with a per-trace {@link BlockValidator}, then records it and calls each sink's `write`. A
 * rejected block throws the validator's `TraceError` and changes nothing: it is not recorded,
 * no sink sees it, and its id is reused by the next block.
 *
 * Parents:
 * - `logAct` / `logThink` need `parent_block_id` (a MESSAGE), as seed 002's server requires:
 *   without one they throw a `TraceError` VALIDATION and record nothing.
 * - `logObserve` without `parent_block_id` attaches to the TOOL_CALL with the same `call_id`
 *   (a `TraceError` VALIDATION if there is none).
 * - `recordEntry` (a guarded call, which may run outside any model turn) attaches to
 *   `parentBlockId`, else the most recent MESSAGE block; if the trace has no MESSAGE yet it first
 *   logs a synthetic assistant MESSAGE (`content: null`, `metadata: { synthetic: true }`). The
 *   call, its result and any synthetic message are recorded atomically.
 *
 * A tracer with no sinks defers the blocks of a call made by `guard` (which it records
 * without a `TraceEntry`) and the response MESSAGE of a model call recorded by
 * `createModelCallRecorder`: the values the call brought are checked at once, and its blocks
 * are built (or adopted), frozen and recorded on the next read or write (`blocks`, `get`,
 * `stitched`, any `log*`, `flush`, `shutdown`). Nothing observable changes (the same blocks, ids
 * and refusals); a traced call costs one small record until then. With any sink, every block is
 * recorded (and written) at once.
 *
 * @param options - trace id, sinks, limits, clock, id generator and error callback
 * @returns a {@link Tracer}
 * @example
 * ```ts
 * const sink = createMemorySink();
 * const tracer = createTracer({ sinks: [sink] });
 * const message = tracer.logMessage({ role: 'user', content: "what's the weather?" });
 * const call = tracer.logAct({ parent_block_id: message.id, payload: { call_id: 'call_1', name: 'get_weather', arguments: { city: 'bogotá' } } });
 * tracer.logObserve({ payload: { call_id: 'call_1', output: { forecast: '22°C cloudy' } } });
 * await tracer.flush();
 * ```
 */
export function createTracer(options: TracerOptions = {}): Tracer {
  validateOptions(tracerOptionsSchema, options, { entryPoint: 'createTracer' });
  const clock = options.clock ?? Date.now;
  const ids = options.ids ?? createIdGenerator(clock);
  // the tracer's own ids are unique and increasing: a deferred call's ids need no check now
  const ownIds = options.ids === undefined;
  const traceId = options.traceId ?? ids.traceId();
  const sinks = options.sinks ? options.sinks.slice() : [];
  const sinkCount = sinks.length;
  const onError = options.onError;
  const validator = createTraceValidator(
    options.limits === undefined ? { traceId } : { traceId, limits: options.limits },
  );

  // the validator's own list of accepted blocks, in acceptance order (read-only here)
  const accepted = validator.accepted();
  const writeErrors: unknown[] = [];
  /** Which sinks threw from `write()` since the last flush, for the failed-sink count. */
  const failedWriteSinks = new Set<number>();
  let lastMessageId: string | null = null;
  let closed = false;
  let shutdownPromise: Promise<void> | undefined;
  /** Blocks went to the sinks since the last flush began (for `flushOnExit`). */
  let unflushed = false;
  let exitHandle: ExitFlushable | undefined;
  // Ids drawn for blocks that were then rejected; later blocks take them first, so a rejection
  // leaves no trace, not even a gap in sequential ids.
  const spareIds: string[] = [];
  // Guarded calls and model responses whose blocks are recorded on the next read or write (see
  // `recordGuardedCall`, `recordModelResponse`): with no sink waiting for them, a guarded call
  // costs one record instead of two validated, frozen blocks, and a model response one unfrozen
  // draft. Every method that reads or adds blocks materializes first, in this order.
  let deferred: (GuardedCallRecord | DeferredResponse)[] = [];
  // the one-block batch a deferred response is adopted as (reused: adoption keeps no reference to it)
  const single: Candidate[] = [];
  const limits = validator.limits;
  /** The ISO text of a clock reading; throws the tracer's error for a reading that is no time. */
  function timestampOf(ms: number): string {
    // a number is a valid time within ±8.64e15 ms (the Date range); anything else goes through Date
    if (typeof ms === 'number') {
      if (Math.abs(ms) <= 8.64e15) return formatIsoTimestamp(ms);
    } else if (!Number.isNaN(new Date(ms).getTime())) {
      return new Date(ms).toISOString();
    }
    throw new TraceError({
      code: 'VALIDATION',
      message: `the tracer's clock() returned ${String(ms)}; it must return epoch milliseconds like Date.now()`,
      details: { field: 'created_at', trace_id: traceId },
    });
  }

  function nextId(): string {
    return spareIds.length === 0 ? ids.blockId() : (spareIds.shift() as string);
  }

  // the tracer's own ids read the tracer's clock: a reading just made can be handed over
  const blockIdAt: ((at: number) => string) | undefined = ownIds
    ? (ids as ClockedIdGenerator)[blockIdAtKey]
    : undefined;
  // Date.now is the tracer's clock: a guard's end time (also Date.now) may stamp the ids
  const clockIsDateNow = options.clock === undefined;

  /** {@link nextId}, for a block stamped with the clock reading `ms` just made. */
  function nextIdAt(ms: number): string {
    if (spareIds.length !== 0) return spareIds.shift() as string;
    return blockIdAt === undefined ? ids.blockId() : blockIdAt(ms);
  }

  /** The ids of a guarded call's two blocks, stamped with its end time when that is the same clock. */
  function guardedCallId(endMs: number | undefined): string {
    // (and still is: fake timers may have replaced Date.now since the tracer took it)
    return clockIsDateNow && endMs !== undefined && clock === Date.now ? nextIdAt(endMs) : nextId();
  }

  function returnIds(inputs: readonly Candidate[]): void {
    spareIds.unshift(...inputs.map((input) => input.id as string));
  }

  // entryToBlocks draws its block ids through the same spare-aware source
  const entryIds: IdGenerator = {
    blockId: nextId,
    traceId: () => ids.traceId(),
    callId: () => ids.callId(),
  };

  /**
   * Records the deferred guarded calls' and model responses' blocks, in order. Their rules were
   * checked when deferred.
   */
  function materialize(): void {
    if (deferred.length === 0) return;
    const records = deferred;
    deferred = [];
    for (let i = 0; i < records.length; i++) {
      const item = records[i] as GuardedCallRecord | DeferredResponse;
      if (item instanceof DeferredResponse) {
        // a model response's MESSAGE, a root: only its id is entered (unique by construction).
        // Its clock reading is formatted now, as candidate() would have at once.
        single[0] = responseMessage(
          item.id,
          item.content,
          item.metadata,
          item.raw,
          formatIsoTimestamp(item.at),
        );
        try {
          validator.adoptAllOwned(single);
        } catch (error) {
          writeErrors.push(error);
          if (onError !== undefined) onError(error);
        }
        single.pop(); // not `length = 0`: a runtime call per response
        continue;
      }
      const record = item;
      const pair = guardedCallToBlocks(
        record,
        traceId,
        record.parentBlockId,
        record.callBlockId,
        record.resultBlockId,
        emptyObject,
      );
      try {
        validator.adoptAllOwned(pair as unknown as Candidate[]);
      } catch (error) {
        // only a call id the trace already had (one logged by hand) can land here: reported
        // like a sink failure, so flush() rejects, never dropped silently
        writeErrors.push(error);
        if (onError !== undefined) onError(error);
      }
    }
  }

  /**
   * Whether a guarded call's blocks would pass every rule, so they can be built later: the
   * values the call brought (tool name, arguments, output, timestamps) are checked now, and the
   * rest holds by construction (a fresh call id, the tracer's own ids, an accepted parent).
   */
  function canDefer(record: GuardedCallRecord): boolean {
    return (
      sinkCount === 0 &&
      ownIds &&
      lastMessageId !== null &&
      record.uniqueCallId &&
      typeof record.callId === 'string' &&
      record.callId !== '' &&
      typeof record.toolName === 'string' &&
      record.toolName !== '' &&
      // a Date#toISOString string of 24 characters is a valid ISO timestamp (years 0000-9999)
      record.callTimestamp.length === 24 &&
      record.resultTimestamp.length === 24 &&
      isRecord(record.kwargs) &&
      fitsLimit(record.kwargs, limits.toolArgumentsBytes) &&
      fitsLimit(record.returnValue ?? null, limits.toolResultBytes) &&
      // the other values the call brought: a deferred block must be as writable as a checked one
      (record.args.length === 0 || jsonProblem(record.args, false) === undefined) &&
      userPartsWritable(record)
    );
  }

  /** The parts of a guarded call's metadata that user code made: validator and detector results. */
  function userPartsWritable(record: GuardedCallRecord): boolean {
    const validations = record.validations;
    const hallucination = record.hallucination;
    return (
      (validations.length === 0 || jsonProblem(validations, false) === undefined) &&
      (hallucination === null || jsonProblem(hallucination, false) === undefined)
    );
  }

  /**
   * Whether a model response's MESSAGE (`role: 'assistant'`, built by the tracer) passes every
   * rule its values are subject to: content within the message limit and encodable (the same
   * check the validator runs, via `fitsLimit`; `null` needs none), metadata a plain object. The
   * rest holds by construction: the tracer's own trace id and ids, no parent; the caller checks
   * that the clock's reading formats as a valid timestamp.
   */
  function canDeferResponse(content: string | null, metadata: Record<string, unknown>): boolean {
    if (sinkCount !== 0 || !ownIds) return false;
    if (typeof metadata !== 'object' || metadata === null) return false;
    const prototype = Object.getPrototypeOf(metadata);
    if (prototype !== Object.prototype && prototype !== null) return false;
    if (content === null) return true;
    return typeof content === 'string' && fitsLimit(content, limits.messageBytes);
  }

  function takeFailedWriteSinks(): Set<number> {
    const failed = new Set(failedWriteSinks);
    failedWriteSinks.clear();
    return failed;
  }

  function ensureOpen(method: string): void {
    if (closed) throw new TracerClosedError({ traceId, method });
  }

  function commit(block: Block): void {
    if (block.sub_type === 'MESSAGE') lastMessageId = block.id;
    unflushed = true;
    for (let i = 0; i < sinkCount; i++) {
      try {
        (sinks[i] as Sink).write(block);
      } catch (error) {
        writeErrors.push(error);
        failedWriteSinks.add(i);
        if (onError !== undefined) onError(error);
      }
    }
  }

  function accept(input: Candidate): Block {
    let block: Block;
    try {
      block = validator.acceptOwned(input);
    } catch (error) {
      spareIds.unshift(input.id as string);
      throw error;
    }
    commit(block);
    return block;
  }

  // a block in canonical form, the clock read before the id: a clock failure draws no id
  function candidate(
    blockType: 'MESSAGE' | 'ACT' | 'OBSERVE',
    subType: 'MESSAGE' | 'TOOL_CALL' | 'THINK' | 'TOOL_RESULT',
    payload: Record<string, unknown>,
    parent: unknown,
    metadata: Record<string, unknown> | undefined,
    raw: unknown,
    extra: Record<string, unknown> | undefined,
  ): Candidate {
    const ms = clock();
    const at = timestampOf(ms);
    return {
      id: nextIdAt(ms),
      trace_id: traceId,
      block_type: blockType,
      sub_type: subType,
      payload,
      // a MESSAGE with a parent is invalid; pass it through so the validator says so
      parent_block_id: parent ?? null,
      metadata: metadata === undefined ? emptyObject : metadata,
      raw: raw === undefined ? null : raw,
      extra: extra === undefined ? emptyObject : extra,
      created_at: at,
      updated_at: at,
    };
  }

  /**
   * A model response's MESSAGE candidate stamped `at`, with the payload logMessage's rest copy
   * would make, in the same key order: built at once, or from a {@link DeferredResponse}.
   */
  function responseMessage(
    id: string,
    content: string | null,
    metadata: Record<string, unknown>,
    raw: unknown,
    at: string,
  ): Candidate {
    return {
      id,
      trace_id: traceId,
      block_type: 'MESSAGE',
      sub_type: 'MESSAGE',
      payload: { role: 'assistant', content },
      parent_block_id: null,
      metadata: metadata === undefined ? emptyObject : metadata,
      raw: raw === undefined ? null : raw,
      extra: emptyObject,
      created_at: at,
      updated_at: at,
    };
  }

  /** A model response's MESSAGE built at once, stamped with the clock reading `ms` (its id too). */
  function ownedMessage(
    content: string | null,
    metadata: Record<string, unknown>,
    raw: unknown,
    ms: number,
    at: string,
  ): Candidate {
    return responseMessage(nextIdAt(ms), content, metadata, raw, at);
  }

  function syntheticMessageInput(): Candidate {
    return candidate(
      'MESSAGE',
      'MESSAGE',
      { role: 'assistant', content: null },
      undefined,
      syntheticMetadata,
      undefined,
      undefined,
    );
  }

  /**
   * Accepts `inputs` in order, all or nothing: the validator checks each against the trace and
   * the ones before it, and records them only when all pass, so a bad last block (say a tool
   * result over the byte limit) leaves nothing behind. On failure the ids drawn for them are
   * given back.
   */
  function acceptAll(inputs: Candidate[]): Block[] {
    let blocks: Block[];
    try {
      blocks = validator.acceptAllOwned(inputs);
    } catch (error) {
      returnIds(inputs);
      throw error;
    }
    for (const block of blocks) commit(block);
    return blocks;
  }

  function logChild(
    subType: 'TOOL_CALL' | 'THINK',
    method: string,
    input: LogActInput | LogThinkInput,
  ): Block {
    ensureOpen(method);
    materialize();
    requireObject(input, method, subType, traceId);
    // as on seed 002's server, a TOOL_CALL or THINK names its MESSAGE: a missing parent is a
    // VALIDATION error from the validator, never an implicit attachment
    const { payload, parent_block_id, metadata, raw, extra } = input;
    return accept(candidate('ACT', subType, payload, parent_block_id, metadata, raw, extra));
  }

  function recordResponse(
    content: string | null,
    metadata: Record<string, unknown>,
    raw: unknown,
  ): string {
    ensureOpen('logMessage');
    if (canDeferResponse(content, metadata)) {
      // the clock is read before the id is drawn, as in candidate()
      const ms = clock();
      if (typeof ms === 'number' && ms >= 0 && ms < maxDeferredMs) {
        // formatted when materialized: for these readings a valid 24-character timestamp
        const id = nextIdAt(ms);
        deferred.push(
          new DeferredResponse(id, content, metadata, raw === undefined ? null : raw, ms),
        );
        lastMessageId = id;
        return id;
      }
      // any other reading is formatted (or refused) now, as logMessage would
      const at = timestampOf(ms);
      materialize();
      return accept(ownedMessage(content, metadata, raw, ms, at)).id;
    }
    materialize();
    const ms = clock();
    return accept(ownedMessage(content, metadata, raw, ms, timestampOf(ms))).id;
  }

  const tracer: GuardedCallTracer = {
    traceId,

    logMessage(input) {
      ensureOpen('logMessage');
      materialize();
      requireObject(input, 'logMessage', 'MESSAGE', traceId);
      const { metadata, raw, extra, parent_block_id, ...payload } = input as LogMessageInput & {
        parent_block_id?: unknown;
      };
      return accept(
        candidate('MESSAGE', 'MESSAGE', payload, parent_block_id, metadata, raw, extra),
      ) as MessageBlock;
    },

    logAct(input) {
      return logChild('TOOL_CALL', 'logAct', input) as ToolCallBlock;
    },

    logThink(input) {
      return logChild('THINK', 'logThink', input) as ThinkBlock;
    },

    logObserve(input) {
      ensureOpen('logObserve');
      materialize();
      requireObject(input, 'logObserve', 'TOOL_RESULT', traceId);
      let parent: string | null | undefined = input.parent_block_id;
      if (parent === undefined) {
        const payload: unknown = input.payload;
        const callId =
          typeof payload === 'object' && payload !== null
            ? (payload as { call_id?: unknown }).call_id
            : undefined;
        if (typeof callId === 'string') {
          const call = validator.toolCall(callId);
          if (call === undefined) {
            throw new TraceError({
              code: 'VALIDATION',
              message: `logObserve: trace ${traceId} has no TOOL_CALL with call_id "${callId}"; log the call with logAct first or pass parent_block_id`,
              details: {
                sub_type: 'TOOL_RESULT',
                field: 'payload.call_id',
                call_id: callId,
                trace_id: traceId,
              },
            });
          }
          parent = call.id;
        } else {
          parent = null;
        }
      }
      const { metadata, raw, extra } = input;
      return accept(
        candidate('OBSERVE', 'TOOL_RESULT', input.payload, parent, metadata, raw, extra),
      ) as ToolResultBlock;
    },

    recordEntry(entry: TraceEntry, recordOptions?: { parentBlockId?: string }) {
      ensureOpen('recordEntry');
      materialize();
      const parentId = recordOptions?.parentBlockId ?? lastMessageId;
      const message = parentId === null ? syntheticMessageInput() : undefined;
      let pair: [ToolCallBlock, ToolResultBlock];
      try {
        pair = entryToBlocks(entry, {
          traceId,
          parentBlockId: message === undefined ? (parentId as string) : (message.id as string),
          ids: entryIds,
        });
      } catch (error) {
        if (message !== undefined) returnIds([message]);
        if (TracewardenError.isInstance(error)) throw error;
        throw new TraceError({
          code: 'VALIDATION',
          message: `recordEntry: the entry is not a TraceEntry { call, result } (${error instanceof Error ? error.message : String(error)}); pass the records a guard produced`,
          details: { field: 'entry', trace_id: traceId },
          cause: error,
        });
      }
      // entryToBlocks builds complete blocks in block order: they go in as owned candidates
      const pairInputs = pair as unknown as Candidate[];
      const blocks = acceptAll(
        message === undefined ? pairInputs : [message, pairInputs[0]!, pairInputs[1]!],
      );
      return blocks.length === 2
        ? (blocks as [ToolCallBlock, ToolResultBlock])
        : [blocks[1] as ToolCallBlock, blocks[2] as ToolResultBlock];
    },

    [recordGuardedCall](record: GuardedCallRecord, endMs?: number) {
      ensureOpen('recordEntry');
      if (canDefer(record)) {
        record.parentBlockId = lastMessageId as string;
        record.callBlockId = guardedCallId(endMs);
        record.resultBlockId = guardedCallId(endMs);
        deferred.push(record);
        return;
      }
      materialize();
      const parentId = lastMessageId;
      const message = parentId === null ? syntheticMessageInput() : undefined;
      const callBlockId = guardedCallId(endMs);
      const pair = guardedCallToBlocks(
        record,
        traceId,
        message === undefined ? (parentId as string) : (message.id as string),
        callBlockId,
        guardedCallId(endMs),
        emptyObject,
      ) as unknown as Candidate[];
      // the metadata is the guard's own strings and numbers, plus the validator and detector
      // results: when those are plain JSON, the validator need not walk it again
      const inputs = message === undefined ? pair : [message, pair[0]!, pair[1]!];
      if (userPartsWritable(record))
        withTrustedJson(pair[0]!.metadata as object, pair[1]!.metadata as object, () =>
          acceptAll(inputs),
        );
      else acceptAll(inputs);
    },

    get(id) {
      materialize();
      return validator.get(id);
    },

    findToolCall(callId) {
      materialize();
      return validator.toolCall(callId);
    },

    blocks() {
      materialize();
      return accepted.slice();
    },

    stitched(): StitchedTrace {
      materialize();
      return stitchBlocks(accepted, { traceId });
    },

    async flush() {
      materialize();
      unflushed = false;
      const errors = writeErrors.splice(0);
      const failed = takeFailedWriteSinks();
      const settled = await Promise.allSettled(sinks.map(async (sink) => sink.flush()));
      settled.forEach((outcome, i) => {
        if (outcome.status !== 'rejected') return;
        errors.push(outcome.reason);
        failed.add(i);
      });
      if (errors.length > 0)
        throw new TracerFlushError({
          traceId,
          operation: 'flush',
          errors,
          failedSinks: failed.size,
          sinkCount,
        });
    },

    shutdown() {
      if (shutdownPromise === undefined) {
        materialize();
        closed = true;
        unflushed = false;
        if (exitHandle !== undefined) stopFlushOnExit(exitHandle);
        shutdownPromise = (async () => {
          const errors = writeErrors.splice(0);
          const failed = takeFailedWriteSinks();
          const settled = await Promise.allSettled(sinks.map(async (sink) => sink.close()));
          settled.forEach((outcome, i) => {
            if (outcome.status !== 'rejected') return;
            errors.push(outcome.reason);
            failed.add(i);
          });
          if (errors.length > 0) {
            throw new TracerFlushError({
              traceId,
              operation: 'shutdown',
              errors,
              failedSinks: failed.size,
              sinkCount,
            });
          }
        })();
      }
      return shutdownPromise;
    },
  };
  // not enumerable: a tracer spread into a wrapper of its own (`{ ...tracer, logMessage }`)
  // leaves it behind, so the wrapper's logMessage sees the recorder's responses
  Object.defineProperty(tracer, recordModelResponse, { value: recordResponse });
  // direct paths only while the public methods they stand in for are this tracer's own
  (recordResponse as { [standsInFor]?: unknown })[standsInFor] = tracer.logMessage;
  (tracer[recordGuardedCall] as { [standsInFor]?: unknown })[standsInFor] = tracer.recordEntry;
  if (options.flushOnExit === true && sinkCount > 0) {
    for (const sink of sinks) {
      const state = (sink as { [exitStateKey]?: UnwrittenBlocks })[exitStateKey];
      // `process.exit()` leaves no event loop to flush in: file sinks then write synchronously
      if (state !== undefined) state.writeAtExit = true;
    }
    exitHandle = {
      traceId,
      unflushed: () => unflushed,
      flush: () => tracer.flush(),
      shutdown: () => tracer.shutdown(),
    };
    flushOnExit(exitHandle);
  }
  return tracer;
}

function requireObject(input: unknown, method: string, subType: string, traceId: string): void {
  if (typeof input !== 'object' || input === null) {
    throw new TraceError({
      code: 'VALIDATION',
      message: `${method}: expected an object input, got ${input === null ? 'null' : typeof input}`,
      details: { sub_type: subType, field: 'input', trace_id: traceId },
    });
  }
}
