import type { Block } from '@tracewarden/core';

/**
 * A block whose file gave no `created_at`, without the empty `created_at` (and `updated_at`)
 * that {@link normalizeBlock} filled in: seed 002's server times such a block on arrival, and
 * refuses an empty timestamp, so `push` sends and `convert` writes the block as it was given.
 *
 * @param block - a block as `normalizeBlock` filled it
 * @returns the block, without the timestamps it was not given
 */
export function untimedAsGiven(block: Block): Block {
  if (block.created_at !== '') return block;
  const { created_at: _created, updated_at: updated, ...rest } = block;
  return (updated === '' ? rest : { ...rest, updated_at: updated }) as Block;
}
