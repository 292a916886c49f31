export {
  type ChatToolMessage,
  type ExecuteToolCallsOptions,
  executeToolCalls,
  type FunctionCallOutputItem,
  ToolArgumentsError,
  type ToolFunction,
  UnknownToolError,
} from './execute-tool-calls.js';
