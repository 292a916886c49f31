export {
  createToolPartTally,
  type ToolPartTally,
  toolPartTypes,
} from './create-tool-part-tally.js';
export {
  createUnknownValueTally,
  type UnknownValueTally,
  type UnknownValueTallyOptions,
  type ValueLocation,
} from './create-unknown-value-tally.js';
export { formatWarning, type Warning } from './format-warning.js';
export {
  type LoneSurrogatesInTrace,
  loneSurrogateWarning,
} from './lone-surrogate-warning.js';
