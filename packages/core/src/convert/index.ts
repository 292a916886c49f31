export {
  type BlockFields,
  blockFieldsKey,
  type EventBlockFields,
  type PieceFields,
  type ThinkFields,
} from './block-fields.js';
export { blocksToEntry } from './blocks-to-entry.js';
export { type BlocksToEventsOptions, blocksToEvents } from './blocks-to-events.js';
export { closestMessageRole, isKnownChatRole, knownChatRoles } from './closest-message-role.js';
export { type EntryToBlocksOptions, entryToBlocks } from './entry-to-blocks.js';
export { type EventsToBlocksOptions, eventsToBlocks } from './events-to-blocks.js';
