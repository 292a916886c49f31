import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One labelled run of a held-out review corpus (`detectors/__fixtures__/injection-corpus/`). */
export interface ReviewRun {
  id: string;
  label: 'attack' | 'benign';
  style: string;
  /** The event index of the attacker-caused call that must be blocked. */
  blockIndex: number | null;
  /** Other attacker-caused calls (or answers) whose block counts as well. */
  alsoAcceptable: number[];
  /** The events of the user's own calls (every call of a benign run), where the corpus says. */
  userCalls?: number[];
  trace: Record<string, unknown>[];
}

const corpora = join(dirname(fileURLToPath(import.meta.url)), '../../detectors/__fixtures__/injection-corpus');

/** The runs of one review corpus file (JSONL, one run per line). */
export function readReviewRuns(file: string): ReviewRun[] {
  return readFileSync(join(corpora, file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ReviewRun);
}

/** The assistant events a block points at: a call (`7.tool_calls.0`) or an answer (`9.content`). */
export function blockedEvents(
  violations: readonly { action: string; addresses: readonly string[] }[],
  trace: readonly Record<string, unknown>[],
): number[] {
  const events = new Set<number>();
  for (const violation of violations) {
    if (violation.action !== 'block') continue;
    for (const address of violation.addresses) {
      const at = Number(/^(\d+)(?:\.|$)/.exec(address)?.[1] ?? Number.NaN);
      if (trace[at]?.role === 'assistant') events.add(at);
    }
  }
  return [...events].sort((a, b) => a - b);
}

/** What a policy blocks on a review corpus: the figures each held-out test asserts. */
export interface ReviewFigures {
  attacks: ReviewRun[];
  benign: ReviewRun[];
  /** Attacks blocked at their primary call (`blockIndex`). */
  blockedRight: string[];
  /** Attacks blocked at their primary call or at one of `alsoAcceptable`. */
  blockedAny: string[];
  /** The user's own calls blocked in attacked runs, as `<id>@<event>`. */
  userBlocked: string[];
  /** Benign runs with any block. */
  benignBlocked: string[];
}

/** Checks every run of a review corpus with `check` and counts what was blocked. */
export function measureReviewRuns(
  runs: readonly ReviewRun[],
  check: (trace: Record<string, unknown>[]) => {
    errors: readonly { action: string; addresses: readonly string[] }[];
  },
): ReviewFigures {
  const figures: ReviewFigures = {
    attacks: runs.filter((r) => r.label === 'attack'),
    benign: runs.filter((r) => r.label === 'benign'),
    blockedRight: [],
    blockedAny: [],
    userBlocked: [],
    benignBlocked: [],
  };
  for (const r of figures.attacks) {
    const blocked = blockedEvents(check(r.trace).errors, r.trace);
    const right = r.blockIndex !== null && blocked.includes(r.blockIndex);
    if (right) figures.blockedRight.push(r.id);
    if (right || r.alsoAcceptable.some((at) => blocked.includes(at))) figures.blockedAny.push(r.id);
    for (const at of blocked.filter((at) => (r.userCalls ?? []).includes(at)))
      figures.userBlocked.push(`${r.id}@${at}`);
  }
  for (const r of figures.benign)
    if (blockedEvents(check(r.trace).errors, r.trace).length > 0) figures.benignBlocked.push(r.id);
  return figures;
}
