/** What a value with neither a JSON form nor a string form is written as. @internal */
export const unwritableValueNote = '[a value with no JSON or text form]';

/**
 * A value's JSON text; else its string form; else {@link unwritableValueNote}. Never throws: a
 * value nested too deep for `JSON.stringify` overflows `String()`'s stack too (an array's
 * `join` recurses), and a null-prototype object has no `toString`.
 * @internal
 */
export function jsonTextOrNote(value: unknown): string {
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    // no JSON form: its string form below
  }
  try {
    return String(value);
  } catch {
    return unwritableValueNote;
  }
}
