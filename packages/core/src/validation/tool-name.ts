/**
 * The longest tool name a TOOL_CALL may carry, in UTF-16 code units (seed 002: "valid name").
 * Providers cap names at 64 (OpenAI) or 128 (Anthropic) characters; MCP and framework names that
 * join a server and a tool run longer, so the limit leaves room for them.
 * @example
 * ```ts
 * import { maxToolNameLength } from '@tracewarden/core';
 * maxToolNameLength; // 256
 * ```
 */
export const maxToolNameLength = 256;

/**
 * Whether a tool name is valid (seed 002's "valid name" of a TOOL_CALL): 1 to
 * {@link maxToolNameLength} characters, at least one that is not whitespace, none a control
 * character. Names with spaces, dots, slashes or non-ASCII letters pass (LangChain and MCP tools
 * carry such names). A loop over char codes: it runs for every tool call validated.
 * @internal
 */
export function isValidToolName(name: string): boolean {
  const length = name.length;
  if (length === 0 || length > maxToolNameLength) return false;
  let visible = false;
  for (let i = 0; i < length; i++) {
    const code = name.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return false;
    if (code > 0x20 && code < 0x7f) visible = true;
  }
  // only spaces and non-ASCII characters: valid when one of them is not whitespace
  return visible || /\S/.test(name);
}
