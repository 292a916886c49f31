import type { MessageRole } from '../model/index.js';

const assistantLike = new Set(['assistant', 'model', 'ai', 'bot']);
const systemLike = new Set(['system', 'developer']);

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
