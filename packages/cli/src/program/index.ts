export { type CliIo, type CliOutput, processIo } from './cli-io.js';
export { type CommandContext, createCommandContext } from './command-context.js';
export { cliVersion, createProgram, runCli } from './run-cli.js';
