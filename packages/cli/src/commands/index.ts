export { type AdminOptions, addKeysCommand, addOrgsCommand } from './admin-commands.js';
export {
  addCheckCommand,
  type CheckOptions,
  type CheckReport,
  type CheckViolation,
  checkFiles,
} from './check-command.js';
export {
  addConvertCommand,
  type ConvertOptions,
  type ConvertTarget,
  convertFile,
  convertTargets,
} from './convert-command.js';
export {
  addPushCommand,
  type PushOptions,
  type PushReport,
  pushFiles,
} from './push-command.js';
export {
  addServeCommand,
  dataDirOption,
  parsePort,
  type ServeOptions,
  serveCollector,
} from './serve-command.js';
export { addStatsCommand, formatStats, type StatsOptions, statsFiles } from './stats-command.js';
export {
  addValidateCommand,
  type ValidateOptions,
  type ValidateReport,
  validateFiles,
} from './validate-command.js';
export { addViewCommand, type ViewOptions, viewFile } from './view-command.js';
