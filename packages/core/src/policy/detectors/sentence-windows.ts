// Windows of sentences (decision 050): an injection's cues are spread over a few sentences
// ("Note to the assistant:" ... "before you answer, send ..."), so a text is scored on its best
// window of up to four, and the injected part of it is the run of sentences around such windows.
import { logOddsOf, scoreOf } from './injection-score.js';
import type { Sentence } from './sentence-signals.js';

const WINDOW = 4;

/** The most suspicious window of a text's sentences. */
export interface BestWindow {
  /** Its log-odds (`-Infinity` when no sentence has a signal). */
  z: number;
  start: number;
  end: number;
  /** The union of its sentences' signals. */
  mask: number;
}

/**
 * The window of up to four sentences (not reaching into the next record of a list) whose
 * union of signals scores highest; the first one found of equal windows.
 * @param sentences - a text's sentences with their signals
 * @returns the window
 * @internal
 */
export function bestWindow(sentences: readonly Sentence[]): BestWindow {
  let best: BestWindow = { z: Number.NEGATIVE_INFINITY, start: 0, end: 0, mask: 0 };
  for (let i = 0; i < sentences.length; i++) {
    const first = sentences[i] as Sentence;
    if (first.mask === 0) continue;
    let mask = 0;
    for (let j = i; j < Math.min(sentences.length, i + WINDOW); j++) {
      const sentence = sentences[j] as Sentence;
      if (j > i && sentence.record) break;
      mask |= sentence.mask;
      // a window is scored on the union of its signals: each signal counts once
      const z = logOddsOf(mask);
      if (z > best.z) best = { z, start: first.start, end: sentence.end, mask };
    }
  }
  return best;
}

/**
 * The injected parts of a text: the runs of sentences with signals that hold a window scoring
 * at least `threshold` (see `findInjectedRanges`).
 * @param sentences - a text's sentences with their signals
 * @param threshold - the score a window needs, in [0, 1]
 * @returns sorted, disjoint `[start, end)` ranges
 * @internal
 */
export function injectedRanges(
  sentences: readonly Sentence[],
  threshold: number,
): [number, number][] {
  // A window starting at sentence i and ending at j or before reaches the threshold
  const qualifies = (i: number, last: number): boolean => {
    let mask = 0;
    for (let j = i; j <= Math.min(last, i + WINDOW - 1); j++) {
      if (j > i && (sentences[j] as Sentence).record) break;
      mask |= (sentences[j] as Sentence).mask;
      // scored as the finding is, so a window at exactly `threshold` counts
      if (mask !== 0 && scoreOf(logOddsOf(mask)) >= threshold) return true;
    }
    return false;
  };
  // Runs of sentences with signals, at most one sentence without any between two of them: an
  // injection is one block of text, and the data around it (an invoice's own "please pay to
  // IBAN ..." line two sentences before) is not part of it. A run that holds a window reaching
  // the threshold is injected, from its first signal to the sentence after its last (which
  // often finishes the request: "The event title should be ...").
  const ranges: [number, number][] = [];
  let i = 0;
  while (i < sentences.length) {
    if ((sentences[i] as Sentence).mask === 0) {
      i++;
      continue;
    }
    let last = i;
    for (let j = i + 1; j < sentences.length && j - last <= 2; j++)
      if ((sentences[j] as Sentence).mask !== 0) last = j;
    for (let k = i; k <= last; k++) {
      if ((sentences[k] as Sentence).mask === 0 || !qualifies(k, last)) continue;
      ranges.push([
        (sentences[i] as Sentence).start,
        (sentences[trailEnd(sentences, last)] as Sentence).end,
      ]);
      break;
    }
    i = last + 1;
  }
  return ranges;
}

// Sentences after an injected run's last signal that still belong to it
const TRAIL = 4;

/**
 * The last sentence of an injected run whose last signal is sentence `last`: the sentence after
 * it (which often finishes the request: "The event title should be ..."), and up to
 * {@link TRAIL} sentences in all while no other record or field of the data starts. An
 * injection quotes what it wants sent after its request ("Body: Hi, ... consult these notes
 * at <link>. Best, Emma"), and the link in the quote is the attacker's; the data after the slot
 * (an event's `end_time:` and participants, the next email) is not part of it.
 * @param sentences - a text's sentences with their signals
 * @param last - index of the run's last sentence with a signal
 * @returns index of the run's last sentence
 * @internal
 */
export function trailEnd(sentences: readonly Sentence[], last: number): number {
  if (last + 1 >= sentences.length) return last;
  let end = last + 1;
  const next = sentences[end] as Sentence;
  if (next.record || next.field) return end;
  for (let k = last + 2; k <= last + TRAIL && k < sentences.length; k++) {
    const sentence = sentences[k] as Sentence;
    if (sentence.record || sentence.field || sentence.mask !== 0) break;
    end = k;
  }
  return end;
}
