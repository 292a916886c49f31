export { CliError, type CliErrorCode, type CliErrorOptions, exitCodes } from './cli-error.js';
