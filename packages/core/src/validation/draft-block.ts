/**
 * A block read from input, with defaults filled in and the payload copied. Fields hold whatever
 * was given, so they are only trustworthy once {@link inspectBlock} reported no error.
 * @internal
 */
export interface DraftBlock {
  id: unknown;
  trace_id: unknown;
  block_type: unknown;
  sub_type: unknown;
  payload: Record<string, unknown>;
  parent_block_id: unknown;
  metadata: unknown;
  raw: unknown;
  extra: unknown;
  created_at: unknown;
  updated_at: unknown;
}

/**
 * Where a block is in a batch (its index, formatted only when an error names it), or
 * `undefined` for a block validated on its own.
 * @internal
 */
export type BlockPath = string | number | undefined;

/**
 * Shared default for `metadata` and `extra`: frozen, so sharing it between blocks is safe.
 * @internal
 */
export const emptyObject: Record<string, unknown> = Object.freeze({});
