import type { Block } from '../model/index.js';

/**
 * Key of a sink's method taking a block together with its JSON text, UTF-8 encoded (the bytes of
 * `JSON.stringify(block)`, made by the tracer, which knows the shape of the blocks it built): a
 * sink that writes JSON lines copies them instead of serialising the block again. `json` is a
 * view the caller reuses: copy it before returning. Only `createTracer`'s tracers call it, and
 * only with the text of `JSON.stringify(block)` at that moment (a property test holds them to
 * it); every other caller uses `write`.
 * @internal
 */
export const writeSerialized: unique symbol = Symbol('tracewarden.writeSerialized');

/** A sink that takes blocks with their JSON text (see {@link writeSerialized}). @internal */
export interface SerializedWriteSink {
  [writeSerialized](block: Block, json: Uint8Array): void;
}

/** Whether a sink takes blocks with their JSON text. @internal */
export function takesSerialized(sink: object): sink is SerializedWriteSink {
  return typeof (sink as Partial<SerializedWriteSink>)[writeSerialized] === 'function';
}
