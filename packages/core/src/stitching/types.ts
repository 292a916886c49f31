import type { MessageBlock, ThinkBlock, ToolCallBlock, ToolResultBlock } from '../model/index.js';

/** A tool call node of the stitched tree: the call and its results in order. */
export interface StitchedToolCall {
  block: ToolCallBlock;
  /** Results ordered by `payload.seq` (nulls last), then `created_at`, then `id`. */
  results: ToolResultBlock[];
  /**
   * The call's full output: a result's `output` if one has it, otherwise the `delta` pieces
   * assembled in `seq` order (strings concatenated; anything else collected in an array).
   * Undefined when there is no result.
   */
  output?: unknown;
}

/** A message node of the stitched tree. */
export interface StitchedMessage {
  block: MessageBlock;
  /** THINK blocks under this message, ordered by `created_at`, then `id`. */
  thinks: ThinkBlock[];
  /** TOOL_CALL nodes under this message, ordered by `payload.seq` (nulls last), `created_at`, `id`. */
  tool_calls: StitchedToolCall[];
}

/** The seed's stitched view of one trace (`GET .../blocks.stitched`). */
export interface StitchedTrace {
  trace_id: string;
  /** Root messages ordered by `created_at`, then `id`. */
  messages: StitchedMessage[];
  /** What could not be attached; empty when the trace's invariants hold. */
  orphans: {
    tool_calls: StitchedToolCall[];
    tool_results: ToolResultBlock[];
    /** THINK blocks whose parent MESSAGE is missing; present only when there are some. */
    thinks?: ThinkBlock[];
  };
}
