export { assembleToolOutput } from './assemble-tool-output.js';
export { type StitchBlocksOptions, stitchBlocks } from './stitch-blocks.js';
export { stitchTraces } from './stitch-traces.js';
export type { StitchedMessage, StitchedToolCall, StitchedTrace } from './types.js';
