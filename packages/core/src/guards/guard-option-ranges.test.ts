import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/index.js';
import { createBudget } from './create-budget.js';
import { createHallucinationDetector } from './create-hallucination-detector.js';
import { guard } from './guard.js';

// Options that used to pass validation and switch a guard off without a word: a percent where
// a fraction is meant, a weight for a signal that does not exist, a string of tool names.
function refusal(make: () => unknown): { code: string; message: string } | undefined {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return { code: (error as ConfigurationError).code, message: (error as Error).message };
  }
  return undefined;
}

describe('guard options whose range a typo would leave', () => {
  it.each([
    [
      'hallucination.threshold: 70 (a percent)',
      { hallucination: { threshold: 70 } },
      'hallucination.threshold',
    ],
    [
      'hallucination.weights with an unknown signal',
      { hallucination: { weights: { unseenId: 0.1 } } },
      'unseenId',
    ],
    [
      'hallucination.weights above 1',
      { hallucination: { weights: { unseen_id: 5 } } },
      'unseen_id',
    ],
    [
      'budget.alertThreshold: 80 (a percent)',
      { budget: { maxCallsPerSession: 10, alertThreshold: 80 } },
      'alertThreshold',
    ],
  ])('%s is refused where it is given, naming the option', (_name, options, named) => {
    const error = refusal(() => guard(async () => 'ok', options as never));
    expect(error?.code).toBe('INVALID_OPTIONS');
    expect(error?.message).toContain(named);
  });

  it('the in-range values still work: threshold 0.5, a known weight, alertThreshold 0.8', async () => {
    const fn = guard(async () => 'ok', {
      hallucination: { threshold: 0.5, weights: { unseen_id: 0.3 } },
      budget: { maxCallsPerSession: 10, alertThreshold: 0.8 },
    });
    await expect(fn()).resolves.toBe('ok');
  });

  it('createBudget refuses an alertThreshold above 1', () => {
    expect(refusal(() => createBudget({ maxCallsPerSession: 5, alertThreshold: 2 }))?.code).toBe(
      'INVALID_OPTIONS',
    );
  });

  it('createHallucinationDetector validates its options as guard does', async () => {
    for (const options of [
      { threshold: Number.NaN },
      { threshold: 5 },
      { knownTools: 'get_order' },
      { treshold: 0.5 },
      { weights: { unknown: 0.5 } },
    ]) {
      const error = refusal(() => createHallucinationDetector(options as never));
      expect([options, error?.code]).toEqual([options, 'INVALID_OPTIONS']);
    }
    const detector = createHallucinationDetector({ knownTools: ['get_order'], threshold: 0.5 });
    const verdict = await detector.check({
      toolName: 'get_order',
      args: [],
      kwargs: {},
      sessionId: 's',
    });
    expect(verdict.is_hallucinated).toBe(false);
  });
});
