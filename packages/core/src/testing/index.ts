export { createSequentialIds } from '../model/index.js';
export {
  type AdapterConformanceHarness,
  adapterConformanceCases,
  type ConformanceCase,
  type ConformanceRun,
  type ConformanceServe,
  type ConformanceTool,
  type ConformanceTurn,
} from './adapter-conformance.js';
export { type BlockBuilder, type BlockBuilderOptions, createBlockBuilder } from './build-blocks.js';
export {
  type ComparableMessage,
  type ComparableToolCall,
  type ComparableTrace,
  comparableTrace,
  parsedOutput,
} from './comparable-trace.js';
export { type DelayedStoreOptions, delayedStore } from './delayed-store.js';
export {
  createFakeModelCallHandle,
  type FakeCallEnd,
  type FakeModelCallHandle,
  type FakeModelCallHandleOptions,
} from './fake-model-call-handle.js';
export { createManualClock, type ManualClock } from './manual-clock.js';
