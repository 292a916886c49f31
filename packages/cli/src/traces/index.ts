export {
  type BlockConverter,
  type BlockConverterOptions,
  type ConversionSkip,
  createBlockConverter,
  type EmptyTrace,
  type UnknownSubType,
} from './create-block-converter.js';
export {
  type ForEachTraceOptions,
  type ForEachTraceResult,
  forEachTrace,
  type GroupedTrace,
} from './for-each-trace.js';
export { normalizeBlock } from './normalize-block.js';
export { parentsFirst } from './parents-first.js';
export { splitTracesNote } from './split-traces-note.js';
export {
  chatDatasetKey,
  chatTraceKey,
  type LiftedTraceFields,
  liftTraceFields,
  namesTrace,
} from './trace-fields.js';
export { untimedAsGiven } from './untimed-as-given.js';
