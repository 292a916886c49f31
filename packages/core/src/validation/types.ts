import type { TraceError } from '../errors/index.js';
import type { Block, SubType } from '../model/index.js';

/**
 * Byte limits of block payload fields (seed 002). A string field counts the UTF-8 bytes of the
 * string itself; any other value counts the UTF-8 bytes of its JSON serialisation.
 */
export interface BlockLimits {
  /** MESSAGE `content`. Env `LIMIT_MSG_BYTES`. @default 65536 */
  messageBytes: number;
  /** THINK `text`. Env `LIMIT_THINK_BYTES`. @default 32768 */
  thinkBytes: number;
  /** TOOL_CALL `arguments`. Env `LIMIT_TOOL_ARGS_BYTES`. @default 262144 */
  toolArgumentsBytes: number;
  /** TOOL_RESULT `output` / `delta`. Env `LIMIT_TOOL_RESULT_BYTES`. @default 2097152 */
  toolResultBytes: number;
}

/**
 * A block as submitted, before it is accepted: `block_type` may be omitted (it follows from
 * `sub_type`), and `metadata`, `raw`, `extra`, `parent_block_id` and `updated_at` default.
 */
export interface BlockInput {
  id: string;
  trace_id: string;
  sub_type: SubType;
  block_type?: string;
  payload: Record<string, unknown>;
  parent_block_id?: string | null;
  metadata?: Record<string, unknown>;
  raw?: unknown;
  extra?: Record<string, unknown>;
  created_at: string;
  updated_at?: string;
}

/**
 * A block as a validator returns it: {@link Block} with its `payload`, `metadata` and `extra`
 * read-only too. Validators check objects in place and return them (or a normalised copy)
 * without freezing them, so these types are what keeps an accepted block from being changed:
 * a validator indexes it by id and call id and checks later blocks against it.
 * @example
 * ```ts
 * const block: ReadonlyBlock = createBlockValidator().accept(input);
 * if (block.sub_type === 'TOOL_CALL') console.log(block.payload.call_id);
 * ```
 */
export type ReadonlyBlock<B extends Block = Block> = B extends Block
  ? {
      readonly [K in keyof B]: K extends 'payload' | 'metadata' | 'extra' ? Readonly<B[K]> : B[K];
    }
  : never;

/** Result of a one-shot validation: every problem found, not only the first. */
export interface ValidationReport {
  ok: boolean;
  errors: TraceError[];
}

/**
 * A per-trace validator that remembers the blocks it accepted, so parents, duplicate call ids
 * and duplicate result seqs are checked against everything accepted before.
 */
export interface BlockValidator {
  /**
   * Validates `input` against the accepted blocks; on success records and returns it, checked in
   * place and never changed or frozen. The block returned is `input` itself when it already has
   * every field of a block and no other enumerable one; otherwise (a field absent, to be
   * defaulted, or a field to drop) a normalised copy holding the given `payload`, `metadata`
   * and `extra` objects. Either way the validator keeps it: do not change it afterwards (its
   * type is read-only). Throws a {@link TraceError} and records nothing on failure.
   */
  accept(input: unknown): ReadonlyBlock;
  /**
   * Parses one block's JSON text (a JSONL line) and accepts it as {@link BlockValidator.accept}
   * does, with the same rules and the same errors, returning the parsed block (or, when it needs
   * normalising, its normalised copy), not frozen.
   * What the text proves (plain data, no lone surrogate, shallow nesting, a bound on each
   * field's size) is not checked again value by value. Throws a {@link TraceError}
   * `VALIDATION` when the text is not valid JSON.
   */
  acceptLine(line: string): ReadonlyBlock;
  /** Every problem `input` would have, without recording it. */
  check(input: unknown): TraceError[];
  /** The accepted block with this id. */
  get(id: string): ReadonlyBlock | undefined;
  /** Number of accepted blocks. */
  readonly size: number;
  /** The limits in force. */
  readonly limits: Readonly<BlockLimits>;
}

/** Options of `createBlockValidator`. */
export interface BlockValidatorOptions {
  /**
   * Byte limits to force; the rest come from the `LIMIT_*` environment variables or the defaults.
   */
  limits?: Partial<BlockLimits> | undefined;
  /**
   * The trace this validator holds; blocks of another trace are rejected (`VALIDATION`). A block
   * without a `trace_id` (as posted to seed 002's server, whose path names the trace) is taken
   * as of this trace.
   * @default the `trace_id` of the first accepted block
   */
  traceId?: string | undefined;
}

/** Options of `validateBlocks` and `checkBlock`. */
export interface ValidateBlocksOptions {
  /**
   * Byte limits to force; the rest come from the `LIMIT_*` environment variables or the defaults.
   */
  limits?: Partial<BlockLimits> | undefined;
  /**
   * The trace of blocks without a `trace_id` (as posted to seed 002's server, whose path names
   * the trace). Blocks with their own `trace_id` keep it.
   * @default none: a block without `trace_id` is a `VALIDATION` error
   */
  traceId?: string | undefined;
}
