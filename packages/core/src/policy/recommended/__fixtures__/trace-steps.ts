/** A chat tool call with its arguments as JSON text, as OpenAI sends them. */
export const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

/** A trace: the user's request, then each call (`c0`, `c1`, ...) with its output. */
export const run = (user: string, steps: [string, Record<string, unknown>, string][]) => [
  { role: 'user', content: user },
  ...steps.flatMap(([name, args, output], i) => [
    { role: 'assistant', content: null, tool_calls: [call(`c${i}`, name, args)] },
    { role: 'tool', tool_call_id: `c${i}`, content: output },
  ]),
];
