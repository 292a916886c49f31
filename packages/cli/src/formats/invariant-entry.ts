import { isObject } from './is-object.js';

/**
 * What an Invariant trace entry that is not a chat message is:
 * - `tool-list`: an MCP tool list `{ "tools": [...] }` (one `Tool` event per entry for a policy)
 * - `tool-call`: a bare tool call at the top level (`{ "type": "function", "function": {...}, "id" }`,
 *   no `role`), a `ToolCall` event of its own
 */
export type InvariantEntryKind = 'tool-list' | 'tool-call';

/**
 * @internal Tells an Invariant trace entry that the policy engine reads but the chat-event model
 * (`parseTrace`, blocks) has no place for: an MCP tool list or a bare top-level tool call
 * (reference: invariant-policy-semantics.md, Events). Only entries without a string `role`;
 * a call is told by a `function` object or `type: "function"`, narrower than the engine's "any
 * `type` string", so that another API's items (`{ "type": "function_call" }`) are not taken for one.
 * @param value - one entry of a trace
 * @returns its kind, or undefined for a chat message or anything else
 * @example
 * ```ts
 * invariantEntryKind({ tools: [{ name: 'add' }] }); // 'tool-list'
 * invariantEntryKind({ type: 'function', id: '1', function: { name: 'f', arguments: {} } }); // 'tool-call'
 * ```
 */
export function invariantEntryKind(value: unknown): InvariantEntryKind | undefined {
  if (!isObject(value) || typeof value.role === 'string' || 'role' in value) return undefined;
  if (Array.isArray(value.tools)) return 'tool-list';
  if (isObject(value.function) || value.type === 'function') return 'tool-call';
  return undefined;
}
