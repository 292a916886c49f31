/**
 * Key of the field in which a chat event (and each of its tool calls) carries what of its blocks
 * the chat shape cannot hold. See contributing/decisions/003-lossless-conversion.md.
 * @example
 * ```ts
 * const [event] = blocksToEvents(blocks, { fidelity: 'exact' });
 * (event as Record<string, unknown>)[blockFieldsKey]; // { id: 'tb_...', created_at: ..., trace_id: ... }
 * ```
 */
export const blockFieldsKey = 'tracewarden';

/** Key of the chat-event field that carries a message's THINK blocks (as DeepSeek, vLLM, Qwen). @internal */
export const reasoningKey = 'reasoning_content';

/**
 * The fields of one block that an event does not otherwise hold, as `blocksToEvents` writes
 * them under {@link blockFieldsKey} and `eventsToBlocks` reads them back. Every field is
 * optional: what is missing is rebuilt from the event (fresh ids and times, `metadata` with only
 * `chat_event`, `raw: null`, `extra: {}`).
 */
export interface BlockFields {
  /** Only with `fidelity: 'exact'`. */
  id?: string;
  /** Only with `fidelity: 'exact'`, on events. */
  trace_id?: string;
  /** Only with `fidelity: 'exact'`. */
  created_at?: string;
  /** Only with `fidelity: 'exact'`. */
  updated_at?: string;
  /** The whole payload, when the event cannot rebuild it (extra fields, non-chat output). */
  payload?: Record<string, unknown>;
  /** Block metadata other than `chat_event`, which is rebuilt from the event. */
  metadata?: Record<string, unknown>;
  raw?: unknown;
  extra?: Record<string, unknown>;
}

/** A THINK block's fields: `length` is its text's length within `reasoning_content`. */
export interface ThinkFields extends BlockFields {
  length: number;
}

/**
 * A `delta` TOOL_RESULT piece's fields: `length` is its delta's length within the tool
 * output's `content` (string deltas; the payload then leaves `delta` out).
 */
export interface PieceFields extends BlockFields {
  length?: number;
}

/** What a chat event carries under {@link blockFieldsKey}. */
export interface EventBlockFields extends BlockFields {
  /** A message's THINK blocks, in order, when `reasoning_content` alone cannot rebuild them. */
  thinks?: ThinkFields[];
  /** The `delta` pieces a tool output was assembled from, in order. */
  pieces?: PieceFields[];
}

/** Separator between the texts of several THINK blocks in `reasoning_content`. @internal */
export const reasoningSeparator = '\n\n';
