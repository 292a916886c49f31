import type { Block } from '../model/index.js';
import { type DraftBlock, emptyObject } from './draft-block.js';

/**
 * Freezes a draft that passed every rule and returns it as a block. The block object is new;
 * its payload, metadata and extra are the given objects, frozen in place (a copy would cost as
 * much as the whole check). Nested values (arguments, outputs, content parts, raw) are not
 * deep-frozen, which would walk every value on the hot path. Only the tracer's entry points
 * (`acceptOwned` and its kin) freeze: `accept` and `acceptLine` return blocks unfrozen, typed
 * read-only (decision 070, fourth session).
 * @internal
 */
export function freezeBlock(draft: DraftBlock): Block {
  Object.freeze(draft.payload);
  if (draft.metadata !== emptyObject) Object.freeze(draft.metadata);
  if (draft.extra !== emptyObject) Object.freeze(draft.extra);
  return Object.freeze(draft) as unknown as Block;
}
