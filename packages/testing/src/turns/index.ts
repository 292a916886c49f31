export { echoTurn } from './echo-turn.js';
export { estimateTokens } from './estimate-tokens.js';
export type {
  DropMidStreamFault,
  Fault,
  SlowFirstByteFault,
  StatusFault,
} from './fault.js';
export type { PlannedReply, PlanReplyContext } from './plan-reply.js';
export { planReply } from './plan-reply.js';
export type {
  ScriptedBuiltInToolCall,
  ScriptedBuiltInToolType,
  ScriptedFinishReason,
  ScriptedFunctionToolCall,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedUsage,
} from './scripted-turn.js';
export { splitIntoChunks } from './split-into-chunks.js';
