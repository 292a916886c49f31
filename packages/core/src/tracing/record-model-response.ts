import type { Tracer } from './types.js';

/**
 * Key of the method through which `createTracer`'s tracers record the assistant MESSAGE of a
 * model call that `createModelCallRecorder` built: the same block as `logMessage({ role:
 * 'assistant', content, metadata, raw })`, without the input object and its rest copy, and,
 * in a tracer with no sinks, built and checked as far as its values require now and recorded
 * on the next read or write (decision 008). Not enumerable, so a tracer spread into a wrapper
 * (`{ ...tracer, logMessage }`) leaves it behind; such wrappers and other `Tracer`
 * implementations get `logMessage`.
 * @internal
 */
export const recordModelResponse: unique symbol = Symbol('tracewarden.recordModelResponse');

/** A tracer that records model responses directly. @internal */
export interface ModelResponseTracer extends Tracer {
  /**
   * Records an assistant MESSAGE as `logMessage` would, and throws what it would throw.
   * @returns the block's id
   */
  [recordModelResponse](
    content: string | null,
    metadata: Record<string, unknown>,
    raw: unknown,
  ): string;
}
