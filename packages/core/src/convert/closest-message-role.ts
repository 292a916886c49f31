import type { MessageRole } from '../model/index.js';

const assistantLike = new Set(['assistant', 'model', 'ai', 'bot']);
const systemLike = new Set(['system', 'developer']);

/**
 * The chat roles the conversion to blocks reads on purpose: the MESSAGE roles, `tool`, and the
 * names {@link closestMessageRole} maps by design (`developer` → system; `model`, `ai`, `bot` →
 * assistant; `function`, `ipython`, `human` → user). Any other role is kept and read as a user
 * message (decision 003), which is what a misspelling such as `asistant` ends up as: tools such
 * as `tracewarden validate` warn about it.
 */
export const knownChatRoles: readonly string[] = Object.freeze([
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
]);

/**
 * Whether the conversion reads `role` on purpose (one of {@link knownChatRoles}). Matching
 * ignores case, as {@link closestMessageRole} does, except for `tool`: a tool output must be
 * exactly `tool` (`"Tool"` is read as a user message).
 *
 * @param role - a chat event's role
 * @returns true for a known role
 * @example
 * ```ts
 * isKnownChatRole('Assistant'); // true
 * isKnownChatRole('asistant'); // false
 * ```
 */
export function isKnownChatRole(role: string): boolean {
  return role === 'tool' || caseless.has(role.toLowerCase());
}

const caseless = new Set(knownChatRoles.filter((role) => role !== 'tool'));

/**
 * The MESSAGE block role (seed 002 allows only `system`, `user`, `assistant`) closest to a chat
 * role: `developer` → `system`; `model`, `ai`, `bot` → `assistant`; everything else (`tool`
 * outputs that answer no call, `function`, `ipython`, `human`, unknown roles) → `user`, the
 * side that speaks to the model. Matching ignores case.
 *
 * @param role - any chat role
 * @returns the closest allowed MESSAGE role
 * @example
 * ```ts
 * closestMessageRole('developer'); // 'system'
 * closestMessageRole('ipython'); // 'user'
 * ```
 */
export function closestMessageRole(role: string): MessageRole {
  const lower = role.toLowerCase();
  if (assistantLike.has(lower)) return 'assistant';
  if (systemLike.has(lower)) return 'system';
  return 'user';
}
