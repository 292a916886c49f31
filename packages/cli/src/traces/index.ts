export { collectTraces, type CollectedTraces } from './collect-traces.js';
export {
  type BlockConverter,
  type BlockConverterOptions,
  type ConversionSkip,
  createBlockConverter,
} from './create-block-converter.js';
export { normalizeBlock } from './normalize-block.js';
