export type { WireChatCompletion, WireChatCompletionMessage } from './build-chat-completion.js';
export {
  buildChatCompletion,
  buildCompletionUsage,
  chatCompletionId,
} from './build-chat-completion.js';
export type { WireChatCompletionChunk } from './build-chat-completion-chunks.js';
export { buildChatCompletionChunks } from './build-chat-completion-chunks.js';
