// A random UUID per process (renewed when the counter runs out) whose last group is a counter.
let prefix = '';
let counter = 0;
const counterLimit = 2 ** 48;
/** `prefix` and the counter's first 10 hex digits: changes once every 256 ids. */
let head = '';
/** The counter's last two hex digits, `'00'` to `'ff'`. */
const lowDigits = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
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
  if (prefix === '' || counter === counterLimit - 1) {
    prefix = crypto.randomUUID().slice(0, 24);
    counter = 0;
    head = `${prefix}0000000000`;
  }
  counter++;
  const low = counter % 256;
  // the 10 high digits only change when the low two wrap: one concatenation per id
  if (low === 0)
    head =
      prefix +
      Math.floor(counter / 256)
        .toString(16)
        .padStart(10, '0');
  return head + lowDigits[low];
}
