// A tool call written into data as the next step of a protocol (decision 050): a tool result
// that says `"next_action": {"tool": "update_shipping_address", "args": {…}}`, or a plain-text
// `NEXT_ACTION:` block with `tool:` and `args:` lines. A tool's output tells what it did; one
// that names the next tool and its arguments speaks to the agent. A key that only names a next
// step of another kind (a payment's `"next_action": {"type": "redirect_to_url"}`) is none.

// the key of the next step: `next_action`, `NEXT_ACTION`, `nextStep`, `pending_tool_call`,
// `required_action`, `next_step_for_agent`
const KEY = `["']?(?:next|pending|required|queued|follow[_ -]?up)[_ -]?(?:actions?|steps?|tool[_ -]?calls?|calls?|tools?|operations?)(?:[_ -]for[_ -](?:the[_ -])?(?:agent|assistant|model|ai|llm))?["']?`;
// ... holding a tool's name (a word of letters, `_`, `.`, `-`), then its arguments: an object
// of one level, or the rest of the line
const CALL = String.raw`\s*[:=]\s*[[{(]?\s*["']?(?:tool|tool[_ -]?name|function|function[_ -]?name|name)["']?\s*[:=]\s*["']?[A-Za-z][\w.-]{1,60}["']?\s*[,;]?\s*["']?(?:args|arguments|parameters|params|input)["']?\s*[:=]\s*(?:\{[^{}]{0,600}\}|[^\n]{0,300})`;
const protocol = new RegExp(`${KEY}${CALL}`, 'gi');
// a cheap look first: most texts have no such key at all
const hint =
  /(?:next|pending|required|queued|follow[_ -]?up)[_ -]?(?:action|step|tool|call|operation)/i;

/**
 * The spans of a text that write a tool call as the next step of a protocol (`"next_action":
 * {"tool": …, "args": {…}}`, a `NEXT_ACTION:` block with `tool:` and `args:`), from the key to
 * the end of the arguments.
 * @param text - any text (a tool output)
 * @returns `[start, end)` spans, in order (empty for most texts)
 * @internal
 */
export function findToolProtocol(text: string): [number, number][] {
  if (!hint.test(text)) return [];
  const out: [number, number][] = [];
  for (const m of text.matchAll(protocol)) out.push([m.index, m.index + m[0].length]);
  return out;
}
