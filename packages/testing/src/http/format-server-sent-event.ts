/**
 * Formats one server-sent event: an optional `event:` line, a `data:` line and a blank line.
 *
 * @internal
 * @param data - The payload, serialized as JSON unless it is a string (such as `[DONE]`).
 * @param event - The event name, sent as an `event:` line when given.
 * @returns The event text.
 */
export function formatServerSentEvent(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${payload}\n\n`;
}
