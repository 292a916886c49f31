import type {
  Block,
  ContentPart,
  MessageBlock,
  MessageRole,
  ThinkBlock,
  ToolCallBlock,
  ToolResultBlock,
  TraceEntry,
} from '../model/index.js';
import type { StitchedTrace } from '../stitching/types.js';

/** Fields every `log*` input may carry besides its payload (seed 002). */
export interface BlockExtras {
  /** Server-side style annotations: model, usage, latency, guard decisions. */
  metadata?: Record<string, unknown>;
  /** The raw provider payload (never credentials or headers). */
  raw?: unknown;
  /** Free-form client space, e.g. reward scores. */
  extra?: Record<string, unknown>;
}

/** Input of {@link Tracer.logMessage} (seed 002 `trace.logMessage`). */
export interface LogMessageInput extends BlockExtras {
  role: MessageRole;
  content: string | ContentPart[] | null;
  /** Any other payload fields to keep (e.g. `name`). */
  [key: string]: unknown;
}

/** Input of {@link Tracer.logAct} (seed 002 `trace.logAct`). */
export interface LogActInput extends BlockExtras {
  /** The MESSAGE this call belongs to. Required, as on seed 002's server: omitted → VALIDATION. */
  parent_block_id: string;
  payload: { call_id: string; name: string; arguments: unknown; [key: string]: unknown };
}

/** Input of {@link Tracer.logObserve} (seed 002 `trace.logObserve`). */
export interface LogObserveInput extends BlockExtras {
  /** The TOOL_CALL this result answers. Omitted: the TOOL_CALL with the same `call_id`. */
  parent_block_id?: string;
  payload: {
    call_id: string;
    output?: unknown;
    delta?: unknown;
    /** The piece's position in a streamed result; `null` or omitted: none. */
    seq?: number | null;
    [key: string]: unknown;
  };
}

/** Input of {@link Tracer.logThink} (seed 002 `trace.logThink`). */
export interface LogThinkInput extends BlockExtras {
  /** The MESSAGE this reasoning belongs to. Required: omitted → VALIDATION. */
  parent_block_id: string;
  payload: { text: string; [key: string]: unknown };
}

/**
 * Records one trace as validated blocks (seed 002's SDK helpers). Every `log*` validates before
 * accepting: a rejected block throws a `TraceError` and changes nothing. The methods return the
 * accepted block synchronously (so `await tracer.logMessage(...)` also works).
 *
 * An accepted block is frozen, and it keeps the objects it was given rather than copies: the
 * `metadata` and `extra` objects passed in, and the `payload` object given to `logAct`,
 * `logThink` and `logObserve`, are frozen in place (their own fields; nested values are not), so
 * a recorded block cannot change after it was validated. Pass a copy of an object you still
 * change.
 */
export interface Tracer {
  /** This trace's id (`tr_...`). */
  readonly traceId: string;
  /** Logs a root MESSAGE block. */
  logMessage(input: LogMessageInput): MessageBlock;
  /** Logs a TOOL_CALL block (ACT) under a MESSAGE. */
  logAct(input: LogActInput): ToolCallBlock;
  /** Logs a TOOL_RESULT block (OBSERVE) under a TOOL_CALL. */
  logObserve(input: LogObserveInput): ToolResultBlock;
  /** Logs a THINK block (ACT) under a MESSAGE. */
  logThink(input: LogThinkInput): ThinkBlock;
  /**
   * Records a guarded tool call (seed 004 `TraceEntry`) as a TOOL_CALL and a TOOL_RESULT block.
   * @param options.parentBlockId - the MESSAGE to attach to (default: the most recent one)
   */
  recordEntry(
    entry: TraceEntry,
    options?: { parentBlockId?: string },
  ): [ToolCallBlock, ToolResultBlock];
  /** The accepted block with this id. */
  get(id: string): Block | undefined;
  /** The TOOL_CALL block of a call id. */
  findToolCall(callId: string): ToolCallBlock | undefined;
  /** Every accepted block, in acceptance order. */
  blocks(): readonly Block[];
  /** The stitched tree of this trace. */
  stitched(): StitchedTrace;
  /** Makes every accepted block durable in every sink. */
  flush(): Promise<void>;
  /**
   * Flushes and closes every sink; later `log*` calls throw. Calls while it runs share its
   * promise; after it rejected (a `TracerFlushError`), calling it again retries the sinks' close.
   */
  shutdown(): Promise<void>;
}
