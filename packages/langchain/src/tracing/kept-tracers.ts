import type { Tracer } from '@tracewarden/core';

/** Most traces a handler or a middleware keeps for its `tracers` property. */
const keptTraces = 100;

/**
 * The traces a handler or an agent middleware recorded into, oldest first, at most the last 100
 * (a long-lived handler makes one per top-level run: the oldest are let go).
 * @internal
 */
export class KeptTracers {
  readonly list: Tracer[] = [];

  /** Adds `tracer` (once) and returns it. */
  remember(tracer: Tracer): Tracer {
    if (!this.list.includes(tracer)) {
      this.list.push(tracer);
      if (this.list.length > keptTraces) this.list.shift();
    }
    return tracer;
  }
}
