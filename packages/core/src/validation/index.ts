export { BlockLimitError, type BlockLimitErrorOptions } from './block-limit-error.js';
export { checkBlock } from './check-block.js';
export { createBlockValidator } from './create-block-validator.js';
export { defaultBlockLimits } from './default-block-limits.js';
export { resolveBlockLimits } from './resolve-block-limits.js';
export { maxToolNameLength } from './tool-name.js';
export type {
  BlockInput,
  BlockLimits,
  BlockValidator,
  BlockValidatorOptions,
  ReadonlyBlock,
  ValidateBlocksOptions,
  ValidationReport,
} from './types.js';
export { utf8ByteLength } from './utf8-byte-length.js';
export { validateBlocks } from './validate-blocks.js';
