/** A clock under the test's control. */
export interface ManualClock {
  /** Current time in epoch milliseconds. Pass `clock.now` wherever a `clock` option is taken. */
  now: () => number;
  /** Moves time forward by `ms`. */
  advance(ms: number): void;
  /** Sets the time. */
  set(ms: number): void;
}

/**
 * Creates a manual clock for deterministic tests: time moves only when the test says so.
 * @param start - initial epoch milliseconds
 * @default start 1_700_000_000_000 (2023-11-14T22:13:20.000Z)
 * @returns a {@link ManualClock}
 * @example
 * ```ts
 * const clock = createManualClock();
 * const tracer = createTracer({ clock: clock.now });
 * clock.advance(5);
 * ```
 */
export function createManualClock(start = 1_700_000_000_000): ManualClock {
  let current = start;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
    set(ms) {
      current = ms;
    },
  };
}
