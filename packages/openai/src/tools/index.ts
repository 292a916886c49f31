export {
  type ChatToolMessage,
  type CustomToolCallOutputItem,
  type ExecuteToolCallsOptions,
  executeToolCalls,
  type FunctionCallOutputItem,
  type ToolCallOutputItem,
  type ToolFunction,
} from './execute-tool-calls.js';
export {
  ToolArgumentsError,
  type ToolArgumentsErrorCode,
  type ToolArgumentsErrorOptions,
} from './tool-arguments-error.js';
export {
  ToolOutputError,
  type ToolOutputErrorCode,
  type ToolOutputErrorOptions,
} from './tool-output-error.js';
export {
  UnknownToolError,
  type UnknownToolErrorCode,
  type UnknownToolErrorOptions,
} from './unknown-tool-error.js';
