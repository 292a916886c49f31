import type {
  ModelCallResponse,
  ModelToolCall,
  ModelUsage,
  NeutralMessage,
} from '@tracewarden/core';
import type { Response, ResponseUsage } from 'openai/resources/responses/responses';

type Item = Record<string, unknown>;

function textOfParts(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  let found = false;
  for (const part of content as Item[]) {
    if (typeof part?.text === 'string') {
      text += part.text;
      found = true;
    } else if (typeof part?.refusal === 'string') {
      text += part.refusal;
      found = true;
    }
  }
  return found ? text : undefined;
}

/**
 * Whether a Responses-API item is a call the caller's code runs, the calls a policy checks and
 * refuse mode removes: a `function_call` or a `custom_tool_call`.
 * @internal
 */
export function isResponsesToolCallItem(item: Item | undefined): boolean {
  return item?.type === 'function_call' || item?.type === 'custom_tool_call';
}

/**
 * The neutral call of a Responses-API item the caller's code runs: a `function_call` (its
 * arguments as sent) or a `custom_tool_call` (a free-form tool: `{ input }`, as the chat adapter
 * records a chat custom call); `undefined` for any other item.
 * @internal
 */
export function responsesToolCall(item: Item): ModelToolCall | undefined {
  if (item.type === 'function_call')
    return {
      id: String(item.call_id),
      name: String(item.name),
      arguments: String(item.arguments ?? ''),
    };
  if (item.type === 'custom_tool_call')
    return {
      id: String(item.call_id),
      name: String(item.name),
      arguments: { input: typeof item.input === 'string' ? item.input : '' },
    };
  return undefined;
}

function outputContent(content: unknown): NeutralMessage['content'] {
  if (typeof content === 'string' || content === null || content === undefined)
    return content ?? null;
  return content as NeutralMessage['content'];
}

/**
 * Responses-API input (plus `instructions`) in the neutral shape. The output items of a
 * previous response that are sent back (reasoning, an assistant message, function and custom
 * tool calls) form one assistant message, exactly as that response was recorded;
 * `function_call_output` and `custom_tool_call_output` items become tool messages.
 * @internal
 */
export function responsesInputToNeutral(input: unknown, instructions: unknown): NeutralMessage[] {
  const messages: NeutralMessage[] = [];
  if (typeof instructions === 'string' && instructions !== '')
    messages.push({ role: 'system', content: instructions });
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return messages;
  }
  if (!Array.isArray(input)) return messages;
  // One response's items come as reasoning, then a message, then function calls: a reasoning
  // item or a message starts the next response's assistant message (a response whose calls were
  // all refused leaves no function_call_output between it and the next one); function calls
  // join the message they follow.
  let group: NeutralMessage | undefined;
  for (const item of input as Item[]) {
    if (typeof item !== 'object' || item === null) continue;
    const type = item.type;
    if (type === 'reasoning') {
      group = undefined;
      continue;
    }
    const proposed = responsesToolCall(item);
    if (proposed !== undefined) {
      const call = {
        id: proposed.id,
        type: 'function' as const,
        function: { name: proposed.name, arguments: proposed.arguments },
      };
      if (group !== undefined) (group.tool_calls ??= []).push(call);
      else {
        group = { role: 'assistant', content: null, tool_calls: [call] };
        messages.push(group);
      }
      continue;
    }
    group = undefined;
    if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const output = item.output;
      messages.push({
        role: 'tool',
        tool_call_id: String(item.call_id),
        content: typeof output === 'string' ? output : (outputContent(output) ?? ''),
      });
      continue;
    }
    if ((type === 'message' || type === undefined) && typeof item.role === 'string') {
      if (item.role === 'assistant') {
        group = { role: 'assistant', content: textOfParts(item.content) ?? null };
        messages.push(group);
      } else messages.push({ role: item.role, content: outputContent(item.content) ?? null });
    }
    // Other items (item references, built-in tool calls): not conversation messages.
  }
  return messages;
}

/** Names of the offered tools. @internal */
export function responsesToolNames(tools: unknown): { name: string }[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  return (tools as Item[]).map((tool) => ({
    name: typeof tool.name === 'string' ? tool.name : String(tool.type ?? 'unknown'),
  }));
}

/** Neutral usage of a response. @internal */
export function responsesUsage(usage: ResponseUsage | null | undefined): ModelUsage | undefined {
  if (usage === null || usage === undefined) return undefined;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    totalTokens: usage.total_tokens,
    cachedInputTokens: usage.input_tokens_details?.cached_tokens,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens,
  };
}

/**
 * The neutral response of a Responses-API response: message text, reasoning (summary, else
 * reasoning text) and the calls the caller's code runs (function and custom tool calls).
 * @internal
 */
export function responsesResponse(
  response: Response,
  requestId: string | null | undefined,
): ModelCallResponse {
  let text: string | null = null;
  const reasoning: string[] = [];
  const calls: ModelToolCall[] = [];
  for (const item of (response.output ?? []) as unknown as Item[]) {
    if (item.type === 'message') {
      const piece = textOfParts(item.content);
      if (piece !== undefined) text = (text ?? '') + piece;
    } else if (item.type === 'reasoning') {
      const summary = (item.summary as Item[] | undefined) ?? [];
      const parts = summary.length > 0 ? summary : ((item.content as Item[] | undefined) ?? []);
      for (const part of parts)
        if (typeof part.text === 'string' && part.text !== '') reasoning.push(part.text);
    } else {
      const call = responsesToolCall(item);
      if (call !== undefined) calls.push(call);
    }
  }
  const result: ModelCallResponse = {
    text,
    reasoning: reasoning.length > 0 ? reasoning.join('\n\n') : null,
    toolCalls: calls,
    usage: responsesUsage(response.usage),
    model: response.model,
    responseId: response.id,
    requestId,
    raw: response,
  };
  const finish = response.incomplete_details?.reason ?? response.status;
  if (typeof finish === 'string') result.finishReason = finish;
  return result;
}
