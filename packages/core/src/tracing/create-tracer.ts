import type { GuardedCallRecord } from '../convert/entry-to-blocks.js';
import { guardedCallToBlocks } from '../convert/entry-to-blocks.js';
import { entryToBlocks } from '../convert/index.js';
import { TraceError, TracewardenError } from '../errors/index.js';
import { validateOptions } from '../errors/validate-options.js';
import type {
  Block,
  MessageBlock,
  ThinkBlock,
  ToolCallBlock,
  ToolResultBlock,
  TraceEntry,
} from '../model/index.js';
import { createIdGenerator, type IdGenerator } from '../model/index.js';
import { exitStateKey } from '../sinks/create-jsonl-file-sink.js';
import type { Sink } from '../sinks/sink.js';
import type { UnwrittenBlocks } from '../sinks/unwritten-at-exit.js';
import { stitchBlocks } from '../stitching/index.js';
import type { StitchedTrace } from '../stitching/types.js';
import { createTraceValidator } from '../validation/create-trace-validator.js';
import { type DraftBlock, emptyObject } from '../validation/inspect-block.js';
import { withTrustedJson } from '../validation/json-problem.js';
import type { BlockLimits } from '../validation/types.js';
import { beforeShutdown } from './before-shutdown.js';
import { CandidateBuilder } from './candidate-builder.js';
import { DeferredBlocks, userPartsWritable } from './deferred-blocks.js';
import { type ExitFlushable, flushOnExit, stopFlushOnExit } from './flush-on-exit.js';
import { recordCallResult } from './record-call-result.js';
import { type GuardedCallTracer, recordGuardedCall, standsInFor } from './record-guarded-call.js';
import { recordModelResponse } from './record-model-response.js';
import { TracerClosedError } from './tracer-closed-error.js';
import { TracerIds } from './tracer-ids.js';
import { tracerOptionsSchema } from './tracer-options-schema.js';
import { TracerSinks } from './tracer-sinks.js';
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
 * recorded (and written) at once; a guarded call's blocks whose values were checked that way are
 * adopted without being inspected again (decision 080).
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
  validateOptions(tracerOptionsSchema, options, { entryPoint: 'createTracer', allOptional: true });
  const clock = options.clock ?? Date.now;
  const source = options.ids ?? createIdGenerator(clock);
  const ids = new TracerIds(source, options.ids === undefined, clock, options.clock === undefined);
  const traceId = options.traceId ?? source.traceId();
  const sinks = new TracerSinks(
    options.sinks ? options.sinks.slice() : [],
    traceId,
    options.onError,
  );
  const validator = createTraceValidator(
    options.limits === undefined ? { traceId } : { traceId, limits: options.limits },
  );
  const build = new CandidateBuilder(traceId, clock, ids);
  const deferred = new DeferredBlocks(traceId, validator, validator.limits, build, sinks, ids.own);

  // the validator's own list of accepted blocks, in acceptance order (read-only here)
  const accepted = validator.accepted();
  let lastMessageId: string | null = null;
  let closed = false;
  let shutdownPromise: Promise<void> | undefined;
  /** Run at the first `shutdown()` (see `beforeShutdown`). */
  const shutdownHooks = new Set<() => void>();
  let exitHandle: ExitFlushable | undefined;

  function ensureOpen(method: string): void {
    if (closed) throw new TracerClosedError({ traceId, method });
  }

  function commit(block: Block): void {
    if (block.sub_type === 'MESSAGE') lastMessageId = block.id;
    sinks.write(block);
  }

  /**
   * Accepts one block the tracer built; `resultUnderHeldCall`: a TOOL_RESULT built under a call
   * the trace holds, with the tracer's own ids, so only what the caller brought is inspected.
   */
  function accept(input: DraftBlock, resultUnderHeldCall = false): Block {
    let block: Block;
    try {
      block = resultUnderHeldCall
        ? validator.acceptOwnedResult(input)
        : validator.acceptOwned(input);
    } catch (error) {
      ids.giveBackOne(input.id as string);
      throw error;
    }
    commit(block);
    return block;
  }

  /**
   * Accepts `inputs` in order, all or nothing: the validator checks each against the trace and
   * the ones before it, and records them only when all pass, so a bad last block (say a tool
   * result over the byte limit) leaves nothing behind. On failure the ids drawn for them are
   * given back.
   */
  function acceptAll(inputs: DraftBlock[]): Block[] {
    let blocks: Block[];
    try {
      blocks = validator.acceptAllOwned(inputs);
    } catch (error) {
      ids.giveBack(inputs);
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
    deferred.materialize();
    requireObject(input, method, subType, traceId);
    // as on seed 002's server, a TOOL_CALL or THINK names its MESSAGE: a missing parent is a
    // VALIDATION error from the validator, never an implicit attachment
    const { payload, parent_block_id, metadata, raw, extra } = input;
    return accept(build.candidate('ACT', subType, payload, parent_block_id, metadata, raw, extra));
  }

  function recordResponse(
    content: string | null,
    metadata: Record<string, unknown>,
    raw: unknown,
  ): string {
    ensureOpen('logMessage');
    if (deferred.canDeferResponse(content, metadata)) {
      // the clock is read before the id is drawn, as in candidate()
      const ms = clock();
      if (deferred.deferrableAt(ms)) {
        // formatted when materialized: for these readings a valid 24-character timestamp
        const id = ids.nextAt(ms);
        deferred.deferResponse(id, content, metadata, raw, ms);
        lastMessageId = id;
        return id;
      }
      // any other reading is formatted (or refused) now, as logMessage would
      const at = build.timestampOf(ms);
      deferred.materialize();
      return accept(build.ownedMessage(content, metadata, raw, ms, at)).id;
    }
    deferred.materialize();
    const ms = clock();
    return accept(build.ownedMessage(content, metadata, raw, ms, build.timestampOf(ms))).id;
  }

  /** `recordToolResult`'s direct path: a TOOL_RESULT built here under a call this trace holds. */
  function recordResult(
    callId: string,
    output: unknown,
    metadata: Record<string, unknown> | undefined,
    extra: Record<string, unknown> | undefined,
  ): boolean {
    // as findToolCall then logObserve: no call is `false` even on a closed tracer
    deferred.materialize();
    const call = validator.toolCall(callId);
    if (call === undefined) return false;
    ensureOpen('logObserve');
    const draft = build.candidate(
      'OBSERVE',
      'TOOL_RESULT',
      { call_id: call.payload.call_id, output },
      call.id,
      metadata,
      undefined,
      extra,
    );
    // ids from an `ids` option are the user's: inspected as logObserve's are
    accept(draft, ids.own);
    return true;
  }

  const tracer: GuardedCallTracer = {
    traceId,

    logMessage(input) {
      ensureOpen('logMessage');
      deferred.materialize();
      requireObject(input, 'logMessage', 'MESSAGE', traceId);
      const { metadata, raw, extra, parent_block_id, ...payload } = input as LogMessageInput & {
        parent_block_id?: unknown;
      };
      return accept(
        build.candidate('MESSAGE', 'MESSAGE', payload, parent_block_id, metadata, raw, extra),
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
      deferred.materialize();
      requireObject(input, 'logObserve', 'TOOL_RESULT', traceId);
      const parent =
        input.parent_block_id === undefined
          ? callParent(validator, input.payload, traceId)
          : input.parent_block_id;
      const { metadata, raw, extra } = input;
      return accept(
        build.candidate('OBSERVE', 'TOOL_RESULT', input.payload, parent, metadata, raw, extra),
      ) as ToolResultBlock;
    },

    recordEntry(entry: TraceEntry, recordOptions?: { parentBlockId?: string }) {
      ensureOpen('recordEntry');
      deferred.materialize();
      const parentId = recordOptions?.parentBlockId ?? lastMessageId;
      const message = parentId === null ? build.syntheticMessage() : undefined;
      let pair: [ToolCallBlock, ToolResultBlock];
      try {
        pair = entryToBlocks(entry, {
          traceId,
          parentBlockId: message === undefined ? (parentId as string) : (message.id as string),
          ids: ids.forEntries,
        });
      } catch (error) {
        if (message !== undefined) ids.giveBack([message]);
        if (TracewardenError.isInstance(error)) throw error;
        throw new TraceError({
          code: 'VALIDATION',
          message: `recordEntry: the entry is not a TraceEntry { call, result } (${error instanceof Error ? error.message : String(error)}); pass the records a guard produced`,
          details: { field: 'entry', trace_id: traceId },
          cause: error,
        });
      }
      // entryToBlocks builds complete blocks in block order: they go in as owned candidates
      const pairInputs = pair as unknown as DraftBlock[];
      const blocks = acceptAll(
        message === undefined ? pairInputs : [message, pairInputs[0]!, pairInputs[1]!],
      );
      return blocks.length === 2
        ? (blocks as [ToolCallBlock, ToolResultBlock])
        : [blocks[1] as ToolCallBlock, blocks[2] as ToolResultBlock];
    },

    [recordGuardedCall](record: GuardedCallRecord, endMs?: number) {
      ensureOpen('recordEntry');
      if (deferred.canDeferCall(record, lastMessageId)) {
        record.parentBlockId = lastMessageId as string;
        record.callBlockId = ids.nextForGuardedCall(endMs);
        record.resultBlockId = ids.nextForGuardedCall(endMs);
        deferred.deferCall(record);
        return;
      }
      deferred.materialize();
      if (deferred.valuesChecked(record, lastMessageId)) {
        // with sinks: the same blocks and checks as deferral, recorded now and sent to the sinks
        const pair = guardedCallToBlocks(
          record,
          traceId,
          lastMessageId as string,
          ids.nextForGuardedCall(endMs),
          ids.nextForGuardedCall(endMs),
          emptyObject,
        ) as unknown as DraftBlock[];
        try {
          validator.adoptAllOwned(pair);
        } catch (error) {
          ids.giveBack(pair);
          throw error;
        }
        commit(pair[0] as unknown as Block);
        commit(pair[1] as unknown as Block);
        return;
      }
      const parentId = lastMessageId;
      const message = parentId === null ? build.syntheticMessage() : undefined;
      const callBlockId = ids.nextForGuardedCall(endMs);
      const pair = guardedCallToBlocks(
        record,
        traceId,
        message === undefined ? (parentId as string) : (message.id as string),
        callBlockId,
        ids.nextForGuardedCall(endMs),
        emptyObject,
      ) as unknown as DraftBlock[];
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
      deferred.materialize();
      return validator.get(id);
    },

    findToolCall(callId) {
      deferred.materialize();
      return validator.toolCall(callId);
    },

    blocks() {
      deferred.materialize();
      return accepted.slice();
    },

    stitched(): StitchedTrace {
      deferred.materialize();
      return stitchBlocks(accepted, { traceId });
    },

    async flush() {
      deferred.materialize();
      return sinks.settle('flush');
    },

    shutdown() {
      if (shutdownPromise === undefined) {
        if (!closed) {
          // what is still in flight (a stream nobody finished reading) is recorded now
          for (const hook of shutdownHooks)
            try {
              hook();
            } catch {
              // a hook reports its own errors (the recorder's onRecordingError): the shutdown
              // goes on
            }
          shutdownHooks.clear();
          deferred.materialize();
          closed = true;
          if (exitHandle !== undefined) stopFlushOnExit(exitHandle);
        }
        // calls while it runs share it; once it failed (a sink's folder missing, the collector
        // down), the next call tries the sinks' close() again instead of repeating the failure
        const attempt = sinks.settle('shutdown');
        shutdownPromise = attempt;
        attempt.catch(() => {
          if (shutdownPromise === attempt) shutdownPromise = undefined;
        });
      }
      return shutdownPromise;
    },
  };
  // not enumerable: a tracer spread into a wrapper of its own (`{ ...tracer, logMessage }`)
  // leaves it behind, so the wrapper's logMessage sees the recorder's responses
  Object.defineProperty(tracer, recordModelResponse, { value: recordResponse });
  Object.defineProperty(tracer, beforeShutdown, { value: shutdownHooks });
  Object.defineProperty(tracer, recordCallResult, { value: recordResult });
  // direct paths only while the public methods they stand in for are this tracer's own
  (recordResponse as { [standsInFor]?: unknown })[standsInFor] = tracer.logMessage;
  (recordResult as { [standsInFor]?: unknown })[standsInFor] = tracer.logObserve;
  (tracer[recordGuardedCall] as { [standsInFor]?: unknown })[standsInFor] = tracer.recordEntry;
  if (options.flushOnExit === true && sinks.count > 0) {
    for (const sink of sinks.sinks) {
      const state = (sink as { [exitStateKey]?: UnwrittenBlocks })[exitStateKey];
      // `process.exit()` leaves no event loop to flush in: file sinks then write synchronously
      if (state !== undefined) state.writeAtExit = true;
    }
    exitHandle = {
      traceId,
      unflushed: () => sinks.unflushed,
      flush: () => tracer.flush(),
      shutdown: () => tracer.shutdown(),
    };
    flushOnExit(exitHandle);
  }
  return tracer;
}

/**
 * The parent of a `logObserve` without `parent_block_id`: the TOOL_CALL with the payload's
 * `call_id` (a VALIDATION error when the trace has none), or null when there is no call id (the
 * validator then says what is missing).
 */
function callParent(
  validator: { toolCall(callId: string): Block | undefined },
  payload: unknown,
  traceId: string,
): string | null {
  const callId =
    typeof payload === 'object' && payload !== null
      ? (payload as { call_id?: unknown }).call_id
      : undefined;
  if (typeof callId !== 'string') return null;
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
  return call.id;
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
