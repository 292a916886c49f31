import { errorMessage } from './error-message.js';
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

/**
 * A user's logger that never throws into the guard: a guard reports through it in the middle of
 * a call's bookkeeping (a `warn` action, a callback's fault), which a throw would leave half done
 * (a probe slot never freed, a reservation never released). A throwing `warn` sends that message
 * to the console instead, and says once that the logger threw.
 * @internal
 */
export function safeGuardLogger(logger: GuardLogger): GuardLogger {
  let failed = false;
  return {
    warn(message, details) {
      try {
        logger.warn(message, details);
      } catch (error) {
        if (!failed) {
          failed = true;
          consoleGuardLogger.warn(
            `the guard's logger threw (${errorMessage(error)}); its warnings go to the console instead. Fix the logger's warn(); later throws are not reported`,
          );
        }
        consoleGuardLogger.warn(message, details);
      }
    },
  };
}
