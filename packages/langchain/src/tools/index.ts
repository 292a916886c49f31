export {
  type GuardableTool,
  type GuardErrorMode,
  type GuardToolOptions,
  type GuardToolsOptions,
  guardTool,
  guardTools,
} from './guard-tools.js';
