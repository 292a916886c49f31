// A random UUID per process (renewed when the counter runs out) whose last group is a counter.
let prefix = '';
let counter = 0;
const counterLimit = 2 ** 48;

/**
 * A new call id for a guarded call, in UUID form (seed 004's `call_id` is a UUID): the first four
 * groups are a random v4 UUID drawn once per process, the last group (12 hex digits) a counter.
 * Ids are unique within the process and collide across processes only if two draw the same
 * 74-bit random prefix. `crypto.randomUUID()` per call costs ~300 ns; this costs a string concat.
 * Not unpredictable: do not use call ids as secrets. Inject `createCallId` for other forms.
 *
 * @returns a UUID-form string such as `'3b241101-e2bb-4255-8caf-000000000001'`
 * @example
 * ```ts
 * nextCallId(); // '3b241101-e2bb-4255-8caf-000000000001'
 * nextCallId(); // '3b241101-e2bb-4255-8caf-000000000002'
 * ```
 */
export function nextCallId(): string {
  if (prefix === '' || counter === counterLimit) {
    prefix = crypto.randomUUID().slice(0, 24);
    counter = 0;
  }
  counter++;
  return prefix + counter.toString(16).padStart(12, '0');
}
