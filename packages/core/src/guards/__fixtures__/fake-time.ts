import type { GuardSleep } from '../types.js';

/** A deterministic clock and sleep: sleeping advances the clock at once. */
export function fakeTime(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  const sleeps: number[] = [];
  const sleep: GuardSleep = async (ms, signal) => {
    if (signal?.aborted) throw signal.reason;
    sleeps.push(ms);
    now += ms;
  };
  return {
    clock: () => now,
    advance(ms: number) {
      now += ms;
    },
    sleeps,
    sleep,
  };
}

/** A sleep that never ends by itself (only an abort ends it). */
export const pendingSleep: GuardSleep = (_ms, signal) =>
  new Promise<void>((_resolve, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

/** Collects warnings. */
export function memoryLogger() {
  const warnings: { message: string; details: Record<string, unknown> | undefined }[] = [];
  return { warnings, warn: (message: string, details?: Record<string, unknown>) => warnings.push({ message, details }) };
}

/** An error carrying an HTTP-like status and headers. */
export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
