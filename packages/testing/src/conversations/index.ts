export { type EmailAgentEmail, type EmailAgentTool, emailAgent } from './email-agent.js';
export {
  type RandomConversation,
  type RandomConversationOptions,
  type RandomConversationTool,
  randomConversation,
} from './random-conversation.js';
