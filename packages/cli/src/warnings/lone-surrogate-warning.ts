import type { Warning } from './format-warning.js';

/** What `parseTrace` replaced in one chat-event trace (see its `onLoneSurrogates`). */
export interface LoneSurrogatesInTrace {
  /** The trace's label (`#0`, its metadata id). */
  label: string;
  /** Line of its first such event, when known. */
  line: number | undefined;
  /** Lone surrogates replaced, all events together. */
  count: number;
  /** The events that held them, by position in the trace. */
  events: number[];
}

/**
 * Collects the lone surrogates `parseTrace` replaces in one trace, event by event.
 * @returns the callback to give `parseTrace`, and the total once parsing is done
 * @internal
 */
export function collectLoneSurrogates(): {
  onLoneSurrogates: (found: { path: string; count: number }) => void;
  count: number;
  events: number[];
} {
  const collected = {
    count: 0,
    events: [] as number[],
    onLoneSurrogates: (found: { path: string; count: number }) => {
      collected.count += found.count;
      collected.events.push(Number(found.path));
    },
  };
  return collected;
}

/**
 * The warning for one trace whose text held lone UTF-16 surrogates (half of a character, as a
 * truncated export leaves it): each is read, and written, as U+FFFD (decision 003).
 *
 * @param found - the trace and what was replaced in it
 * @param file - the file, as given on the command line
 * @param done - what the command did: `written` (convert), `read` (validate)
 * @returns a `LONE_SURROGATE` warning
 * @example
 * ```ts
 * loneSurrogateWarning({ label: '#0', line: 3, count: 1, events: [2] }, 'run.json', 'written').message;
 * // '1 lone UTF-16 surrogate (half of a character, as where a truncated export cut the text) in event 2, written as U+FFFD (�)'
 * ```
 */
export function loneSurrogateWarning(
  found: LoneSurrogatesInTrace,
  file: string,
  done: 'written' | 'read',
): Warning {
  const many = found.count === 1 ? 'surrogate' : 'surrogates';
  const events =
    found.events.length === 1
      ? `event ${found.events[0]}`
      : `events ${found.events.slice(0, 10).join(', ')}${found.events.length > 10 ? ', ...' : ''}`;
  return {
    code: 'LONE_SURROGATE',
    value: found.label,
    count: found.count,
    file,
    line: found.line,
    address: found.label,
    message: `${found.count.toLocaleString('en-US')} lone UTF-16 ${many} (half of a character, as where a truncated export cut the text) in ${events}, ${done} as U+FFFD (\u{FFFD})`,
  };
}
