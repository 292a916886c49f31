import { TracewardenError } from '../errors/index.js';

/** Options of {@link BlockLimitError}. */
export interface BlockLimitErrorOptions {
  /** What was wrong and what to do about it. */
  message: string;
  /** The environment variable (`LIMIT_MSG_BYTES`) or option (`messageBytes`) that was malformed. */
  setting: string;
  /** The malformed value, as given. */
  value: unknown;
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.BlockLimitError');

/**
 * A byte limit given by an environment variable or an option was not a positive integer.
 *
 * @example
 * ```ts
 * try { resolveBlockLimits(undefined, { LIMIT_MSG_BYTES: '64k' }); } catch (e) {
 *   if (BlockLimitError.isInstance(e)) console.error(e.setting); // 'LIMIT_MSG_BYTES'
 * }
 * ```
 */
export class BlockLimitError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'INVALID_BLOCK_LIMIT';
  /** The environment variable or option that was malformed. */
  readonly setting: string;
  /** The malformed value, as given. */
  readonly value: unknown;

  constructor(options: BlockLimitErrorOptions) {
    super('INVALID_BLOCK_LIMIT', { message: options.message, cause: options.cause });
    this.setting = options.setting;
    this.value = options.value;
  }

  /**
   * Whether `error` is a `BlockLimitError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (BlockLimitError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is BlockLimitError {
    return TracewardenError.hasMarker(error, marker);
  }
}
