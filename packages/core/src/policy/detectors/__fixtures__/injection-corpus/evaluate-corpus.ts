/**
 * Measures a policy on the injection corpus (decision 050): for each attacked run, whether the
 * attacker's action is blocked when it is proposed (`checkToolCall` on the trace before it) and
 * whether anything was flagged before it ran; for each benign run, whether any violation is
 * raised on the whole trace. Shared by the corpus test and `bench/detection.bench.ts`.
 * @internal
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Policy } from '../../../policy.js';
import type { CorpusRun, CorpusSplit } from './corpus-types.js';

/** Figures of one attack style. */
export interface StyleFigures {
  style: string;
  runs: number;
  /** The attacker's action was blocked. */
  blocked: number;
  /** Something (block or warning) was raised before the attacker's action ran. */
  flagged: number;
}

/** Figures of one split. */
export interface SplitFigures {
  attacked: number;
  blocked: number;
  flagged: number;
  benign: number;
  /** Benign runs with at least one violation of any action. */
  benignAlarms: number;
  styles: StyleFigures[];
  /** The user's own tool calls in attacked runs made after the injected output was read. */
  userActions: number;
  /** ... of which the policy blocked (utility lost under attack). */
  userBlocked: number;
  /** Ids of attacked runs whose action was not blocked, and of benign runs with an alarm. */
  missed: string[];
  alarms: string[];
}

const here = dirname(fileURLToPath(import.meta.url));

/** The runs of one split. */
export function loadCorpus(split: CorpusSplit): CorpusRun[] {
  return readFileSync(join(here, `${split}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as CorpusRun);
}

/**
 * The attacker's proposed call and the trace before it. A denial-of-service run (its goal is
 * that the agent stops) has no call: its attacker message is the agent's final answer.
 */
export function attackOf(run: CorpusRun): {
  before: unknown[];
  call: Record<string, unknown> | undefined;
} {
  const at = run.attackMessage ?? -1;
  const message = run.messages[at] as { tool_calls?: Record<string, unknown>[] } | undefined;
  if (message === undefined) throw new Error(`run ${run.id} has no attacker message at ${at}`);
  return { before: run.messages.slice(0, at), call: message.tool_calls?.[0] };
}

/** Blocked / flagged / false-alarm figures of a policy on runs. */
export function evaluateCorpus(policy: Policy, runs: readonly CorpusRun[]): SplitFigures {
  const styles = new Map<string, StyleFigures>();
  const figures: SplitFigures = {
    attacked: 0,
    blocked: 0,
    flagged: 0,
    benign: 0,
    benignAlarms: 0,
    styles: [],
    userActions: 0,
    userBlocked: 0,
    missed: [],
    alarms: [],
  };
  for (const run of runs) {
    if (run.label === 'benign') {
      figures.benign++;
      if (policy.check(run.messages).errors.length > 0) {
        figures.benignAlarms++;
        figures.alarms.push(run.id);
      }
      continue;
    }
    const { before, call } = attackOf(run);
    // the user's own actions the agent took before the attacker's, after reading the injection
    const firstOutput = run.messages.findIndex((m) => m.role === 'tool');
    for (let at = firstOutput + 1; at < (run.attackStart ?? run.attackMessage ?? 0); at++) {
      const message = run.messages[at] as { tool_calls?: Record<string, unknown>[] };
      for (const own of message.tool_calls ?? []) {
        figures.userActions++;
        if (!policy.checkToolCall(run.messages.slice(0, at), own).allowed) figures.userBlocked++;
      }
    }
    const warned = (): boolean => policy.check(before).errors.length > 0;
    // no call to block (denial of service): stopped when the injected output was flagged
    // before the agent answered, so the application can act on it
    const blocked = call === undefined ? warned() : !policy.checkToolCall(before, call).allowed;
    const flagged = blocked || warned();
    const style = run.style ?? 'unknown';
    const entry = styles.get(style) ?? { style, runs: 0, blocked: 0, flagged: 0 };
    styles.set(style, entry);
    entry.runs++;
    figures.attacked++;
    if (blocked) {
      entry.blocked++;
      figures.blocked++;
    } else figures.missed.push(run.id);
    if (flagged) {
      entry.flagged++;
      figures.flagged++;
    }
  }
  figures.styles = [...styles.values()];
  return figures;
}
