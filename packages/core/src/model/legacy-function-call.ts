// OpenAI's function calling before `tool_calls` (2023), still in published fine-tuning sets and
// agent logs: an assistant message's `function_call` and a `role: 'function'` answer.

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The `tool_calls` an event's legacy `function_call` stands for: one call of type `function`
 * (no id; `parseTrace` gives it one), or `undefined` when the event has no such call (no
 * `function_call` object with a string `name`, or `tool_calls` of its own that hold calls).
 * @param event - a chat event as read
 * @returns the call as `tool_calls` would hold it, or undefined
 * @internal
 */
export function legacyFunctionCalls(event: JsonObject): JsonObject[] | undefined {
  const call = event.function_call;
  if (!isObject(call) || typeof call.name !== 'string') return undefined;
  const calls = event.tool_calls;
  if (Array.isArray(calls) && calls.length > 0) return undefined;
  return [{ type: 'function', function: call }];
}

/** The role of a legacy function call's answer. @internal */
export const legacyFunctionRole = 'function';
