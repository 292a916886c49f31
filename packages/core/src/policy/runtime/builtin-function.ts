// What every built-in function of the policy language shares: its signature, how it marks the
// characters it found, how it reads a number argument and how it lists findings.

import { textsOf } from './policy-values.js';
import type { EvalContext } from './rule-plan.js';
import { markRange, textSpan, withLocations } from './value-locations.js';

/** @internal A built-in function callable from rules. */
export interface BuiltinFunction {
  min: number;
  max: number;
  named?: readonly string[];
  /** Receives the addresses of its arguments (to mark character ranges). */
  addressed?: boolean;
  call(
    ctx: EvalContext,
    args: unknown[],
    named: Record<string, unknown>,
    addresses: (string | undefined)[],
  ): unknown;
}

/** @internal Marks characters `start`..`end` of the text at `address` as what a rule found. */
export function markFound(
  ctx: EvalContext,
  address: string | undefined,
  start: number,
  end: number,
): void {
  markRange(ctx.ranges, address, start, end);
}

/**
 * @internal The label of each finding in the value's texts, each finding's character range
 * marked; each label keeps the range it was found at (a typed member over the list points there).
 */
export function collectFindings<T extends { start: number; end: number }>(
  ctx: EvalContext,
  value: unknown,
  address: string | undefined,
  find: (text: string) => T[],
  label: (finding: T) => string,
): string[] {
  const out: string[] = [];
  const locations: (string | undefined)[] = [];
  for (const piece of textsOf(value, address)) {
    for (const finding of find(piece.text)) {
      out.push(label(finding));
      locations.push(textSpan(piece.address, finding.start, finding.end));
      markFound(ctx, piece.address, finding.start, finding.end);
    }
  }
  return withLocations(out, locations);
}

/** @internal A number as Python's `float()` reads it (booleans and numeric text too), else null. */
export function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)))
    return Number(value);
  return null;
}

/** @internal The label of a finding that has a type (a secret, PII entity, character class). */
export const findingType = (finding: { type: string }): string => finding.type;
