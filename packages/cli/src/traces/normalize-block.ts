import { type Block, blockTypeOf, type SubType } from '@tracewarden/core';
import { isObject } from '../formats/is-object.js';
import { knownSubTypes } from './unknown-sub-type.js';

const subTypes = new Set<string>(knownSubTypes);

/**
 * Fills a block read from a file to the full stored shape (default `metadata`, `extra`, `raw`,
 * `parent_block_id`, `updated_at`; `block_type` from `sub_type`) without judging it, so that
 * `view` and `convert` can show and convert blocks that `validate` would reject. A block given
 * no `created_at` gets `''` (sorted first); `untimedAsGiven` takes it off again for writing.
 *
 * @param value - a block as read
 * @returns the block, or undefined when it lacks an `id`, `trace_id` or known `sub_type`
 * @example
 * ```ts
 * normalizeBlock({ id: 'tb_1', trace_id: 'tr_1', sub_type: 'MESSAGE', payload: { role: 'user', content: 'hi' }, created_at: '...' });
 * ```
 */
export function normalizeBlock(value: unknown): Block | undefined {
  if (!isObject(value)) return undefined;
  const { id, trace_id: traceId, sub_type: subType } = value;
  if (
    typeof id !== 'string' ||
    typeof traceId !== 'string' ||
    typeof subType !== 'string' ||
    !subTypes.has(subType)
  ) {
    return undefined;
  }
  const createdAt = typeof value.created_at === 'string' ? value.created_at : '';
  return {
    id,
    trace_id: traceId,
    block_type: blockTypeOf[subType as SubType],
    sub_type: subType,
    payload: isObject(value.payload) ? value.payload : {},
    parent_block_id: typeof value.parent_block_id === 'string' ? value.parent_block_id : null,
    metadata: isObject(value.metadata) ? value.metadata : {},
    raw: value.raw ?? null,
    extra: isObject(value.extra) ? value.extra : {},
    created_at: createdAt,
    updated_at: typeof value.updated_at === 'string' ? value.updated_at : createdAt,
  } as Block;
}
