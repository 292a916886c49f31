import { blockFieldNames } from '@tracewarden/core';
import type { BlockItem } from '../formats/input-items.js';
import { isObject } from '../formats/is-object.js';
import { blockAddress } from '../traces/block-address.js';
import type { Warning } from './format-warning.js';

/** Seed 002's fields of a block: the columns of its `trace_blocks` table. */
const blockFields: ReadonlySet<string> = new Set(blockFieldNames);

/**
 * A block as read, without its top-level fields outside seed 002's (the same object when it has
 * none): what `push` sends, since the collector refuses such a field rather than drop it.
 * @internal
 */
export function withoutUnknownBlockFields<T>(value: T): T {
  if (!isObject(value)) return value;
  let unknown = false;
  for (const key in value)
    if (!blockFields.has(key)) {
      unknown = true;
      break;
    }
  if (!unknown) return value;
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (blockFields.has(key)) kept[key] = value[key];
  return kept as T;
}

/** Distinct field names remembered; blocks with further names are not counted. */
const maxFields = 50;

/** Tallies the top-level fields of blocks that are not fields of a block. */
export interface UnknownBlockFieldTally {
  /** Looks at one block as read, in `file`. */
  add(item: BlockItem, file: string): void;
  /** One `UNKNOWN_BLOCK_FIELD` warning per field name, in the order first seen. */
  warnings(): Warning[];
}

/**
 * @internal A tally of top-level fields of blocks outside seed 002's eleven (`project`, `user_id`,
 * a typo such as `parent_id`): a block has nowhere to keep them, so validation ignores them and
 * `convert` and `push` write the block without them. Said once per field name, never in
 * silence, pointing to `extra` (the block's freeform client space).
 * @param done - what the command does with such a field: `ignored` (validate) or `dropped`
 *   (convert, push)
 * @returns an empty tally
 * @example
 * ```ts
 * const tally = createUnknownBlockFieldTally('dropped');
 * tally.add({ type: 'block', value: { id: 'tb_1', project: 'x' }, line: 1, path: '' }, 'run.jsonl');
 * tally.warnings()[0]?.code; // 'UNKNOWN_BLOCK_FIELD'
 * ```
 */
export function createUnknownBlockFieldTally(done: 'ignored' | 'dropped'): UnknownBlockFieldTally {
  const seen = new Map<string, { count: number; file: string; item: BlockItem }>();
  return {
    add(item, file) {
      const value = item.value;
      if (!isObject(value)) return;
      for (const key of Object.keys(value)) {
        if (blockFields.has(key)) continue;
        const entry = seen.get(key);
        if (entry !== undefined) entry.count++;
        else if (seen.size < maxFields) seen.set(key, { count: 1, file, item });
      }
    },
    warnings() {
      return [...seen].map(([field, { count, file, item }]) => ({
        code: 'UNKNOWN_BLOCK_FIELD' as const,
        value: field,
        count,
        file,
        line: item.line,
        address: blockAddress(item),
        message: `${count === 1 ? '1 block has' : `${count.toLocaleString('en-US')} blocks have`} the top-level field ${JSON.stringify(field)}, which is not a field of a block (seed 002: ${[...blockFields].join(', ')}), so it is ${done === 'ignored' ? 'ignored here, and convert and push drop it' : 'dropped'}; move client data into extra`,
      }));
    },
  };
}
