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
 * Key of the block metadata of an event that holds the Responses API items before it that are no
 * event of their own and that a reader cannot resolve: `item_reference`s (an item stored at
 * OpenAI, by id) and remote MCP approvals (`mcp_approval_request`, `mcp_approval_response`; the
 * call they approve is an `mcp_call` item of its own). Kept as they are, in order.
 */
export const providerItemsMetadataKey = 'provider_items';

/**
 * Appends `kept` to the list under `key` of the block metadata the event's block gets: under
 * {@link blockFieldsKey}, as `blocksToEvents` writes a block's metadata, so that they are
 * neither payload fields nor read as anything by policies. An event whose field of ours is no
 * object (a user's) is left as it is.
 * @returns whether they were kept
 * @internal
 */
export function keepInBlockMetadata(
  event: JsonObject,
  key: string,
  kept: readonly JsonObject[],
): boolean {
  const current = event[blockFieldsKey];
  if (current !== undefined && !isRecord(current)) return false;
  const fields = current ?? {};
  const metadata = isRecord(fields.metadata) ? fields.metadata : {};
  const earlier = metadata[key];
  event[blockFieldsKey] = {
    ...fields,
    metadata: { ...metadata, [key]: Array.isArray(earlier) ? [...earlier, ...kept] : [...kept] },
  };
  return true;
}

/**
 * Puts reasoning items (without their text) in the block metadata the event's MESSAGE gets
 * ({@link keepInBlockMetadata} under {@link reasoningItemsMetadataKey}).
 * @internal
 */
export function keepReasoningItems(message: JsonObject, kept: readonly JsonObject[]): void {
  keepInBlockMetadata(message, reasoningItemsMetadataKey, kept);
}
