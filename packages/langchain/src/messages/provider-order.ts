/**
 * The calls in the order the provider gave them, when its raw calls (`additional_kwargs.tool_calls`,
 * as `@langchain/openai` keeps them) name each by a distinct id: LangChain splits the calls whose
 * arguments parsed from the others, and `wrapOpenAI` records them in the model's order.
 * @internal
 */
export function inProviderOrder<Call extends { id: string }>(calls: Call[], raw: unknown): Call[] {
  if (!Array.isArray(raw) || raw.length !== calls.length) return calls;
  const order = new Map<string, number>();
  raw.forEach((call: { id?: unknown } | null, index) => {
    if (typeof call?.id === 'string' && call.id !== '') order.set(call.id, index);
  });
  if (order.size !== calls.length || calls.some((call) => !order.has(call.id))) return calls;
  return calls.sort((a, b) => (order.get(a.id) as number) - (order.get(b.id) as number));
}
