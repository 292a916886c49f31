export { type CollectedTraces, collectTraces } from './collect-traces.js';
export {
  type BlockConverter,
  type BlockConverterOptions,
  type ConversionSkip,
  createBlockConverter,
} from './create-block-converter.js';
export { normalizeBlock } from './normalize-block.js';
