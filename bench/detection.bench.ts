/**
 * Prompt-injection defense (issue 16): `recommendedPolicy()` on the labelled injection corpus
 * (share of attacker actions blocked and of benign runs with any alarm, by attack style, for the
 * dev and held-out splits), then time per proposed tool call on a 100-message trace and per
 * whole-trace check. Target: a proposed call within 5 ms on a 100-message trace.
 *
 * "Warm" re-checks texts the detector has seen (an agent loop re-sends the same outputs at every
 * step, and the detector caches its recent results); "cold" gives every tool output new text,
 * so every output is analysed. The baseline is the same check with a one-rule policy (building
 * the session and appending the trace), measured in the same run.
 *
 * "one new 30 KB output" replaces the last benign output of the trace by a 30 KB file (corpus
 * outputs joined) that the detector has not seen: the cost of the first look at a large output.
 * Its text repeats a few dev outputs (as a long list of records repeats its keys), so the row
 * "distinct texts" does the same with 30 KB of distinct outputs of every split, the harder case.
 *
 * Times are CPU time per operation (ns). Run: `pnpm bench detection` (built packages) or `pnpm bench:source detection`
 */
import { parsePolicy, recommendedPolicy } from '@tracewarden/core';
import {
  attackOf,
  evaluateCorpus,
  loadCorpus,
} from '../packages/core/src/policy/detectors/__fixtures__/injection-corpus/evaluate-corpus.js';
import { type Measurement, report } from './lib.js';

const policy = recommendedPolicy();

/**
 * CPU time per operation (`process.cpuUsage`), the median of `samples` batches: a busy machine
 * disturbs it less than wall time.
 */
function measure(
  name: string,
  fn: () => unknown,
  options: { batch?: number; samples?: number; warmup?: number } = {},
): Measurement {
  const batch = options.batch ?? 100;
  const samples = options.samples ?? 9;
  for (let i = 0; i < (options.warmup ?? batch); i++) fn();
  const results: number[] = [];
  for (let s = 0; s < samples; s++) {
    const start = process.cpuUsage();
    for (let i = 0; i < batch; i++) fn();
    const used = process.cpuUsage(start);
    results.push(((used.user + used.system) * 1000) / batch);
  }
  results.sort((a, b) => a - b);
  return { name, nsPerOp: results[Math.floor(results.length / 2)] ?? 0, ops: batch * samples };
}
const pct = (part: number, whole: number): string =>
  whole === 0 ? '   -' : `${((100 * part) / whole).toFixed(1)}%`.padStart(6);

for (const split of [
  'dev',
  'held-out',
  'fresh',
  'novel',
  'sealed',
  'blind-2',
  'blind-3',
  'blind-4',
  'blind-5',
  'blind-6',
  'blind-7',
  'blind-8',
  'blind-9',
] as const) {
  const runs = loadCorpus(split);
  const figures = evaluateCorpus(policy, runs);
  console.log(`\n## corpus: ${split} split`);
  console.log(
    `${'attack style'.padEnd(34)} ${'runs'.padStart(5)} ${'blocked'.padStart(8)} ${'flagged'.padStart(8)}`,
  );
  for (const style of figures.styles) {
    console.log(
      `${style.style.padEnd(34)} ${String(style.runs).padStart(5)} ${pct(style.blocked, style.runs).padStart(8)} ${pct(style.flagged, style.runs).padStart(8)}`,
    );
  }
  console.log(
    `${'all attacked runs'.padEnd(34)} ${String(figures.attacked).padStart(5)} ${pct(figures.blocked, figures.attacked).padStart(8)} ${pct(figures.flagged, figures.attacked).padStart(8)}`,
  );
  console.log(
    `${'benign runs with any alarm'.padEnd(34)} ${String(figures.benign).padStart(5)} ${pct(figures.benignAlarms, figures.benign).padStart(8)}`,
  );
  console.log(
    `${"user's own actions blocked (attacked)".padEnd(34)} ${String(figures.userActions).padStart(5)} ${pct(figures.userBlocked, figures.userActions).padStart(8)}`,
  );
}

// A 100-message trace made of corpus runs (benign ones, then an attacked one at the end)
const dev = loadCorpus('dev');
const attacked = dev.find((run) => run.style === 'important_instructions') as (typeof dev)[number];
const { before: attackPrefix, call: attackCallOrNone } = attackOf(attacked);
const attackCall = attackCallOrNone as Record<string, unknown>;
const filler = dev.filter((run) => run.label === 'benign').flatMap((run) => run.messages.slice(1));
const trace: Record<string, unknown>[] = [
  ...filler.slice(0, 100 - attackPrefix.length),
  ...(attackPrefix as Record<string, unknown>[]),
];
const messages = trace.length;
const outputs = trace.filter((m) => m.role === 'tool').length;

// cold variants: every tool output's text is new to the detector's cache
let nonce = 0;
function freshTrace(): Record<string, unknown>[] {
  nonce++;
  return trace.map((m) =>
    m.role === 'tool' ? { ...m, content: `${String(m.content)} [${nonce}]` } : m,
  );
}
const coldTraces = Array.from({ length: 200 }, freshTrace);
let cold = 0;
const nextCold = (): Record<string, unknown>[] =>
  coldTraces[cold++ % coldTraces.length] as Record<string, unknown>[];

const baseline = parsePolicy(`
raise "never" if:
    (call: ToolCall)
    call is tool:no_such_tool
`);

// one large output the detector has not seen, in place of the trace's last benign output
const texts = dev.flatMap((run) =>
  run.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)),
);
let large = '';
for (let i = 0; large.length < 30_000; i++) large += `${texts[i % texts.length]}\n`;
// the same size made of distinct outputs of every split: the first texts of the dev split repeat
// (the detector reads each distinct sentence once), a real output repeats its keys only
const distinct = [
  ...new Set(
    (['blind-2', 'sealed', 'novel', 'fresh', 'held-out', 'dev'] as const).flatMap((split) =>
      loadCorpus(split).flatMap((run) =>
        run.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)),
      ),
    ),
  ),
].filter((text) => text.length > 200);
let largeDistinct = '';
for (let i = 0; largeDistinct.length < 30_000; i += 7)
  largeDistinct += `${distinct[i % distinct.length]}\n`;
const lastBenign = trace
  .slice(0, trace.length - attackPrefix.length)
  .findLastIndex((m) => m.role === 'tool');
function largeTrace(text: string): Record<string, unknown>[] {
  nonce++;
  return trace.map((m, i) => (i === lastBenign ? { ...m, content: `${text} [${nonce}]` } : m));
}
const largeTraces = Array.from({ length: 60 }, () => largeTrace(large));
let largeAt = 0;
const nextLarge = (): Record<string, unknown>[] =>
  largeTraces[largeAt++ % largeTraces.length] as Record<string, unknown>[];
const distinctTraces = Array.from({ length: 60 }, () => largeTrace(largeDistinct));
let distinctAt = 0;
const nextDistinct = (): Record<string, unknown>[] =>
  distinctTraces[distinctAt++ % distinctTraces.length] as Record<string, unknown>[];

if (policy.checkToolCall(trace, attackCall).allowed)
  throw new Error('the bench attack is not blocked');

console.log(
  `\ntrace: ${messages} messages, ${outputs} tool outputs, ${JSON.stringify(trace).length} characters`,
);
report('per proposed tool call (checkToolCall on a 100-message trace)', [
  measure('baseline: one-rule policy', () => baseline.checkToolCall(trace, attackCall), {
    batch: 200,
  }),
  measure('recommendedPolicy, warm', () => policy.checkToolCall(trace, attackCall), {
    batch: 200,
  }),
  measure(
    'recommendedPolicy, cold (new output texts)',
    () => policy.checkToolCall(nextCold(), attackCall),
    {
      batch: 20,
      samples: 9,
      warmup: 0,
    },
  ),
  measure(
    'recommendedPolicy, one new 30 KB output',
    () => policy.checkToolCall(nextLarge(), attackCall),
    { batch: 6, samples: 9, warmup: 0 },
  ),
  measure(
    'recommendedPolicy, one new 30 KB output, distinct texts',
    () => policy.checkToolCall(nextDistinct(), attackCall),
    { batch: 6, samples: 9, warmup: 0 },
  ),
]);
report('per whole trace (check on a 100-message trace)', [
  measure('baseline: one-rule policy', () => baseline.check(trace), { batch: 200 }),
  measure('recommendedPolicy, warm', () => policy.check(trace), { batch: 200 }),
  measure('recommendedPolicy, cold (new output texts)', () => policy.check(freshTrace()), {
    batch: 20,
    samples: 9,
    warmup: 0,
  }),
]);
