export { type CliIo, type CliOutput, processIo } from './cli-io.js';
export { type CommandContext, createCommandContext } from './command-context.js';
export { createMemoryIo, type MemoryIo, type MemoryIoOptions } from './create-memory-io.js';
export { cliVersion, createProgram, runCli } from './run-cli.js';
