export {
  executeToolCalls,
  ToolArgumentsError,
  UnknownToolError,
  type ChatToolMessage,
  type ExecuteToolCallsOptions,
  type FunctionCallOutputItem,
  type ToolFunction,
} from './execute-tool-calls.js';
