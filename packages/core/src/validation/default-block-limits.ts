import type { BlockLimits } from './types.js';

/**
 * The seed's default byte limits: 64 KB message content, 32 KB think text, 256 KB tool
 * arguments, 2 MB tool result.
 *
 * @example
 * ```ts
 * defaultBlockLimits.toolResultBytes; // 2097152
 * ```
 */
export const defaultBlockLimits: Readonly<BlockLimits> = Object.freeze({
  messageBytes: 65_536,
  thinkBytes: 32_768,
  toolArgumentsBytes: 262_144,
  toolResultBytes: 2_097_152,
});
