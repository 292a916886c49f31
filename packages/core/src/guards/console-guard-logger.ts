import type { GuardLogger } from './types.js';

/**
 * The default {@link GuardLogger}: `console.warn` with a `[tracewarden]` prefix.
 * @example
 * ```ts
 * guard(fn, { logger: consoleGuardLogger });
 * ```
 */
export const consoleGuardLogger: GuardLogger = {
  warn(message, details) {
    if (details === undefined) console.warn(`[tracewarden] ${message}`);
    else console.warn(`[tracewarden] ${message}`, details);
  },
};
