import type { Block } from '../model/index.js';

/**
 * Key of a sink's method taking a block together with its JSON text (`JSON.stringify(block)`,
 * made by the tracer, which knows the shape of the blocks it built): a sink that writes JSON
 * lines keeps the text instead of serialising the block again. Only `createTracer`'s tracers call
 * it, and only with text equal to `JSON.stringify(block)` at that moment (a property test holds
 * them to it); every other caller uses `write`.
 * @internal
 */
export const writeSerialized: unique symbol = Symbol('tracewarden.writeSerialized');

/** A sink that takes blocks with their JSON text (see {@link writeSerialized}). @internal */
export interface SerializedWriteSink {
  [writeSerialized](block: Block, json: string): void;
}

/** Whether a sink takes blocks with their JSON text. @internal */
export function takesSerialized(sink: object): sink is SerializedWriteSink {
  return typeof (sink as Partial<SerializedWriteSink>)[writeSerialized] === 'function';
}
