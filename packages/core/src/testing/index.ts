export { createSequentialIds } from '../model/index.js';
export { type BlockBuilder, type BlockBuilderOptions, createBlockBuilder } from './build-blocks.js';
export { createManualClock, type ManualClock } from './manual-clock.js';
