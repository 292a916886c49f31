// A window's score (decision 050): a logistic function of the sum of its distinct signals'
// weights, each a log-odds contribution.
import { BIAS, type Signal, signals } from './injection-signals.js';

const TARGET_WEIGHT = 0.8;
// below what a warning needs with an action and a target (a review's "click here: <link>" is
// ordinary), enough to taint the values of such a request
const OUT_OF_PLACE_WEIGHT = 2.0;

/**
 * The names of the signals, by bit: the patterns', then `action-target` and `out-of-place`.
 * @internal
 */
export const signalNames = [...signals.map((s) => s.name), 'action-target', 'out-of-place'];

/**
 * The log-odds of a set of signals: the bias plus each signal's weight once.
 * @param mask - signals, a bit each
 * @returns the log-odds (`scoreOf` makes it a score)
 * @internal
 */
export function logOddsOf(mask: number): number {
  let total = 0;
  for (let i = 0; i < signalNames.length; i++) {
    if ((mask & (1 << i)) === 0) continue;
    total +=
      i === signals.length
        ? TARGET_WEIGHT
        : i === signals.length + 1
          ? OUT_OF_PLACE_WEIGHT
          : (signals[i] as Signal).weight;
  }
  return BIAS + total;
}

/**
 * The calibrated score of log-odds, rounded to three decimals.
 * @param z - log-odds
 * @returns a score in [0, 1]
 * @internal
 */
export const scoreOf = (z: number): number => Math.round((1 / (1 + Math.exp(-z))) * 1000) / 1000;
