export {
  ConfigurationError,
  type ConfigurationErrorCode,
  type ConfigurationErrorOptions,
  type ConfigurationIssue,
} from './configuration-error.js';
export { type OptionObjectType, type OptionType, optionTypes } from './option-types.js';
export {
  TraceError,
  type TraceErrorBody,
  type TraceErrorCode,
  type TraceErrorDetails,
  type TraceErrorOptions,
  traceErrorHttpStatus,
} from './trace-error.js';
export { TracewardenError, type TracewardenErrorOptions } from './tracewarden-error.js';
export {
  configurationError,
  lazySchema,
  type OptionsSchema,
  optionSchemas,
  type ValidateOptionsContext,
  validateOptions,
} from './validate-options.js';
