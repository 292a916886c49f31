/**
 * A scripted error answer: the request gets this HTTP status and an OpenAI-style error body.
 *
 * @example
 * ```ts
 * const fault: StatusFault = { type: 'status', status: 429, retryAfter: 0 };
 * ```
 */
export interface StatusFault {
  /** Discriminator. */
  type: 'status';
  /** HTTP status to answer with, for example `429` or `500`. */
  status: number;
  /**
   * Seconds the client should wait, sent as `retry-after` and (in milliseconds) `retry-after-ms`.
   * @default undefined (no retry headers)
   */
  retryAfter?: number;
  /**
   * Response body to send instead of the default `{ error: { message, type, param, code } }`.
   * @default an OpenAI-format error body matching the status
   */
  body?: object;
}

/**
 * A delay before the first byte of the answer (headers included); the turn is then answered
 * normally.
 *
 * @example
 * ```ts
 * const fault: SlowFirstByteFault = { type: 'slow-first-byte', delayMs: 20 };
 * ```
 */
export interface SlowFirstByteFault {
  /** Discriminator. */
  type: 'slow-first-byte';
  /** Milliseconds to wait before answering. */
  delayMs: number;
}

/**
 * A connection destroyed part-way through the answer. Streaming answers send `afterChunks`
 * server-sent events first; non-streaming answers send the headers and part of the body.
 *
 * @example
 * ```ts
 * const fault: DropMidStreamFault = { type: 'drop-mid-stream', afterChunks: 3 };
 * ```
 */
export interface DropMidStreamFault {
  /** Discriminator. */
  type: 'drop-mid-stream';
  /** How many server-sent events to deliver before the socket is destroyed. */
  afterChunks: number;
}

/**
 * A fault injected into one scripted turn. A bare number is shorthand for
 * `{ type: 'status', status }`.
 *
 * @example
 * ```ts
 * const turns: ScriptedTurn[] = [{ fault: 429 }, { text: 'ok' }];
 * ```
 */
export type Fault = StatusFault | SlowFirstByteFault | DropMidStreamFault | number;
