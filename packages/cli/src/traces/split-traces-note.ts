import { defaultMaxOpenTraces } from '../program/shared-options.js';

/**
 * The one note printed when traces of a file came back after they were finished (see
 * `forEachTrace`), instead of a line per trace.
 *
 * @param count - traces handed over in several parts
 * @param maxOpenTraces - the `--max-open-traces` in force
 * @param verb - what was done with each part (`checked`, `shown`, `converted`)
 * @returns the note, without a trailing newline
 * @example
 * ```ts
 * splitTracesNote(3, undefined, 'checked'); // '3 traces were not contiguous ...'
 * ```
 */
export function splitTracesNote(
  count: number,
  maxOpenTraces: number | undefined,
  verb: string,
): string {
  const limit = (maxOpenTraces ?? defaultMaxOpenTraces).toLocaleString('en-US');
  return `${count.toLocaleString('en-US')} trace${count === 1 ? '' : 's'} came back after ${count === 1 ? 'it was' : 'they were'} finished (the file interleaves more than --max-open-traces=${limit} traces, or a trace resumed after more than 10,000 blocks of other traces), so each part was ${verb} on its own and checks across the parts are weakened; raise --max-open-traces above the number of traces written at once, or group each trace's blocks together (as the JSONL sink does)`;
}
