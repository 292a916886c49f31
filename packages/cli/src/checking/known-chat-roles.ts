/**
 * The chat roles the conversion to blocks reads on purpose (`eventsToBlocks` with
 * `closestMessageRole`): the block roles, `tool`, and the other names it maps by design —
 * `developer` → system; `model`, `ai`, `bot` → assistant; `function`, `ipython`, `human` → user.
 * Core exports the block roles (`messageRoles`) but not this list, so it is spelt out here;
 * keep it in step with `closestMessageRole`.
 */
export const knownChatRoles: readonly string[] = [
  'system',
  'developer',
  'user',
  'human',
  'assistant',
  'model',
  'ai',
  'bot',
  'tool',
  'function',
  'ipython',
];

const caseless = new Set(knownChatRoles.filter((role) => role !== 'tool'));

/**
 * Whether the conversion reads `role` on purpose. Any other role is kept and read as a user
 * message (decision 003), which is what a misspelling such as `asistant` ends up as.
 * `closestMessageRole` ignores case; a tool output must be exactly `tool`.
 *
 * @param role - a chat event's role
 * @returns true for a known role
 */
export function isKnownChatRole(role: string): boolean {
  return role === 'tool' || caseless.has(role.toLowerCase());
}
