import type { BlockItem } from '../formats/index.js';
import { isObject } from '../formats/is-object.js';

/**
 * A block's address in reports, `tr_1/tb_7`, or what is known of it: `?` for a missing trace
 * id, the line (`line 4`) or JSON path (`[4]`) for a missing id.
 *
 * @param item - a block as read
 * @returns the address
 */
export function blockAddress(item: BlockItem): string {
  const value = isObject(item.value) ? item.value : {};
  const text = (field: unknown) => (typeof field === 'string' && field !== '' ? field : undefined);
  const fallback = item.path === '' ? `line ${item.line}` : `[${item.path}]`;
  return `${text(value.trace_id) ?? '?'}/${text(value.id) ?? fallback}`;
}
