import { isRecord } from '../validation/is-record.js';
import type { ProviderToolCall } from './types.js';

type Item = Record<string, unknown>;

/** The fields of a hosted tool's item that are its input; the rest but `id`/`type` is its output. */
const hostedCallInputs: Readonly<Record<string, { name: string; input: readonly string[] }>> = {
  web_search_call: { name: 'web_search', input: ['action'] },
  file_search_call: { name: 'file_search', input: ['queries'] },
  code_interpreter_call: { name: 'code_interpreter', input: ['code', 'container_id'] },
  image_generation_call: { name: 'image_generation', input: [] },
  tool_search_call: { name: 'tool_search', input: ['arguments'] },
};

/**
 * Whether a `shell_call` ran in a container OpenAI hosts (`environment: container_reference`):
 * OpenAI ran it, and its output comes in the same response.
 */
function isHostedShellCall(item: Item): boolean {
  return (
    item.type === 'shell_call' &&
    isRecord(item.environment) &&
    item.environment.type === 'container_reference'
  );
}

/**
 * The calls OpenAI ran itself in a Responses-API output (hosted tools), each with its result,
 * in output order, for {@link ModelCallResponse.providerToolCalls}: `web_search_call`
 * (`web_search`, its `action` as arguments), `file_search_call` (`file_search`, `{ queries }`),
 * `code_interpreter_call` (`code_interpreter`, `{ code, container_id }`),
 * `image_generation_call` (`image_generation`; the image itself, base64, is left out of the
 * result), `tool_search_call`, `mcp_call` (the MCP tool's name and arguments, its `output`, or
 * its `error` as a failure) and a `shell_call` in a hosted container (`shell`, its `action`;
 * its result the `shell_call_output` of the same output). The result of the others is the
 * item's other fields (`status`, `results`, `outputs`, ...). Other items are skipped. Shared by
 * the adapters that see OpenAI's items (the OpenAI adapter; LangChain's `ChatOpenAI` keeps them
 * in `additional_kwargs.tool_outputs`).
 * @param output - the response's output items (or any list of them)
 * @returns the hosted calls, possibly none
 * @example
 * ```ts
 * openAIHostedToolCalls([{ type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } }]);
 * // [{ id: 'ws_1', name: 'web_search', arguments: { type: 'search', query: 'x' }, output: { status: 'completed' } }]
 * ```
 */
export function openAIHostedToolCalls(output: readonly unknown[]): ProviderToolCall[] {
  const calls: ProviderToolCall[] = [];
  let hostedShell: Map<string, ProviderToolCall> | undefined;
  for (const entry of output) {
    if (!isRecord(entry)) continue;
    const item = entry;
    const type = String(item.type);
    if (type === 'mcp_call') {
      const failed = item.error !== undefined && item.error !== null;
      calls.push({
        id: typeof item.id === 'string' ? item.id : undefined,
        name: String(item.name ?? 'mcp'),
        arguments: typeof item.arguments === 'string' ? item.arguments : {},
        output: failed ? item.error : (item.output ?? null),
        ...(failed ? { isError: true } : {}),
      });
    } else if (isHostedShellCall(item)) {
      const action = item.action;
      const call: ProviderToolCall = {
        id: typeof item.call_id === 'string' ? item.call_id : undefined,
        name: 'shell',
        arguments: isRecord(action) ? action : {},
      };
      if (typeof item.call_id === 'string') (hostedShell ??= new Map()).set(item.call_id, call);
      calls.push(call);
    } else if (type === 'shell_call_output' && hostedShell?.has(String(item.call_id))) {
      (hostedShell.get(String(item.call_id)) as ProviderToolCall).output = item.output ?? null;
    } else if (Object.hasOwn(hostedCallInputs, type)) {
      const { name, input } = hostedCallInputs[type] as { name: string; input: readonly string[] };
      let args: Record<string, unknown> = {};
      const result: Record<string, unknown> = {};
      for (const key of Object.keys(item)) {
        if (key === 'id' || key === 'type') continue;
        // the generated image (base64, often megabytes): its presence, not its bytes
        if (type === 'image_generation_call' && key === 'result') continue;
        if (input.includes(key)) {
          const value = item[key];
          // a spread defines the keys (a `__proto__` key of the response stays a key)
          if (isRecord(value)) args = { ...args, ...value };
          else if (value !== undefined) args[key] = value;
        } else result[key] = item[key];
      }
      calls.push({
        id: typeof item.id === 'string' ? item.id : undefined,
        name,
        arguments: args,
        output: result,
        ...(item.status === 'failed' ? { isError: true } : {}),
      });
    }
  }
  return calls;
}
