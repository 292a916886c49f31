import { blockFieldsKey } from '../convert/block-fields.js';
import { isRecord } from '../validation/is-record.js';

type JsonObject = Record<string, unknown>;

/**
 * Key of the block metadata of an assistant MESSAGE that holds the reasoning its THINK text came
 * from, each piece without that text: a Responses API reasoning item (`{ id: 'rs_...',
 * encrypted_content, ... }`), an Anthropic thinking part (`{ type: 'thinking', signature }`).
 * What a provider needs to be sent the reasoning back, kept out of the payload and of policies.
 */
export const reasoningItemsMetadataKey = 'reasoning_items';

/**
 * Puts reasoning items (without their text) in the block metadata the event's MESSAGE gets:
 * under {@link blockFieldsKey}, as `blocksToEvents` writes a block's metadata, so that they are
 * neither payload fields nor read as anything by policies.
 * @internal
 */
export function keepReasoningItems(message: JsonObject, kept: readonly JsonObject[]): void {
  const fields = isRecord(message[blockFieldsKey]) ? message[blockFieldsKey] : {};
  const metadata = isRecord(fields.metadata) ? fields.metadata : {};
  const earlier = metadata[reasoningItemsMetadataKey];
  message[blockFieldsKey] = {
    ...fields,
    metadata: {
      ...metadata,
      [reasoningItemsMetadataKey]: Array.isArray(earlier) ? [...earlier, ...kept] : [...kept],
    },
  };
}
