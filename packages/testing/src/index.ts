export {
  type EmailAgentEmail,
  type EmailAgentTool,
  emailAgent,
  type RandomConversation,
  type RandomConversationOptions,
  type RandomConversationTool,
  randomConversation,
} from './conversations/index.js';
export type {
  RecordedRequest,
  ScriptedServer,
  ScriptedServerOptions,
  TurnFunction,
} from './server/index.js';
export { startScriptedServer } from './server/index.js';
export type {
  DropMidStreamFault,
  Fault,
  ScriptedBuiltInToolCall,
  ScriptedBuiltInToolType,
  ScriptedFinishReason,
  ScriptedFunctionToolCall,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedUsage,
  SlowFirstByteFault,
  StatusFault,
} from './turns/index.js';
export { echoTurn } from './turns/index.js';
