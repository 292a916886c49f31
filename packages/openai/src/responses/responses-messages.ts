import {
  type ModelCallResponse,
  type ModelToolCall,
  type ModelUsage,
  type NeutralMessage,
  openAIHostedToolCalls,
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
 * The TOOL_CALL names of the Responses API's built-in tools whose calls the caller's code
 * carries out, by call item type: each is the `type` of the tool offered (`{ type: 'shell' }`),
 * so offered tools and calls read alike (`computer_use_preview` is recorded as `computer`).
 */
const builtInCallNames: Readonly<Record<string, string>> = {
  shell_call: 'shell',
  local_shell_call: 'local_shell',
  apply_patch_call: 'apply_patch',
  computer_call: 'computer',
};

/** Offered tool types recorded under another name: the name their calls are recorded under. */
const offeredToolNames: Readonly<Record<string, string>> = {
  computer_use_preview: 'computer',
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a `shell_call` ran in a container OpenAI hosts (`environment: container_reference`):
 * it ran before anyone could check it, and its output comes in the same response, so it is not
 * a call the caller's code runs (like `web_search_call`).
 */
function isHostedShellCall(item: Item): boolean {
  return (
    item.type === 'shell_call' &&
    isRecord(item.environment) &&
    item.environment.type === 'container_reference'
  );
}

/**
 * A built-in call's arguments: its `action` (`operation` for `apply_patch_call`) as sent; a
 * `computer_call` with batched `actions` and no `action` is `{ actions }`.
 */
function builtInArguments(item: Item): Record<string, unknown> {
  const value = item.type === 'apply_patch_call' ? item.operation : item.action;
  if (isRecord(value)) return value;
  if (Array.isArray(item.actions)) return { actions: item.actions };
  return {};
}

/**
 * The neutral call of a Responses-API item the caller's code runs: a `function_call` (its
 * arguments as sent), a `custom_tool_call` (a free-form tool: `{ input }`, as the chat adapter
 * records a chat custom call), or a call of a built-in tool the caller carries out
 * (`shell_call`, `local_shell_call`, `apply_patch_call`, `computer_call`: named `shell`,
 * `local_shell`, `apply_patch`, `computer`, with its action as arguments); `undefined` for any
 * other item (a hosted tool's call, a message, ...).
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
  const type = String(item.type);
  if (!Object.hasOwn(builtInCallNames, type) || isHostedShellCall(item)) return undefined;
  return {
    id: String(item.call_id),
    name: builtInCallNames[type] as string,
    arguments: builtInArguments(item),
  };
}

/**
 * Whether a Responses-API item is a call the caller's code runs, the calls a policy checks and
 * refuse mode removes: a `function_call`, a `custom_tool_call`, or a call of a built-in tool the
 * caller carries out (see {@link responsesToolCall}).
 * @internal
 */
export function isResponsesToolCallItem(item: Item | undefined): boolean {
  return item !== undefined && responsesToolCall(item) !== undefined;
}

/**
 * The tool message of a Responses-API output item the caller sends back for a call its code
 * ran: `function_call_output`, `custom_tool_call_output`, and the built-in tools' outputs. An
 * output that is not text is recorded as its JSON (`shell_call_output`'s `output` array, a
 * `computer_call_output` screenshot); a `local_shell_call_output` names its call by `id` (the
 * call's `call_id`), the others by `call_id`.
 */
function toolOutputMessage(item: Item): NeutralMessage | undefined {
  const type = item.type;
  const output = item.output;
  switch (type) {
    case 'function_call_output':
    case 'custom_tool_call_output':
      return {
        role: 'tool',
        tool_call_id: String(item.call_id),
        content: typeof output === 'string' ? output : (outputContent(output) ?? ''),
      };
    case 'local_shell_call_output':
      return {
        role: 'tool',
        tool_call_id: String(typeof item.call_id === 'string' ? item.call_id : item.id),
        content: typeof output === 'string' ? output : JSON.stringify(output ?? null),
      };
    case 'apply_patch_call_output': {
      const message: NeutralMessage = {
        role: 'tool',
        tool_call_id: String(item.call_id),
        content: typeof output === 'string' ? output : '',
      };
      if (item.status === 'failed') message.status = 'failure';
      else if (item.status === 'completed') message.status = 'success';
      return message;
    }
    case 'shell_call_output':
    case 'computer_call_output':
      return {
        role: 'tool',
        tool_call_id: String(item.call_id),
        content: JSON.stringify(output ?? null),
      };
    default:
      return undefined;
  }
}

function outputContent(content: unknown): NeutralMessage['content'] {
  if (typeof content === 'string' || content === null || content === undefined)
    return content ?? null;
  return content as NeutralMessage['content'];
}

/**
 * Responses-API input (plus `instructions`) in the neutral shape. The output items of a
 * previous response that are sent back (reasoning, an assistant message, function, custom and
 * built-in tool calls the caller runs) form one assistant message, exactly as that response was
 * recorded; their outputs (`function_call_output`, `custom_tool_call_output`,
 * `shell_call_output`, `local_shell_call_output`, `apply_patch_call_output`,
 * `computer_call_output`) become tool messages.
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
  // One response's items come as reasoning, then a message, then tool calls: a reasoning
  // item or a message starts the next response's assistant message (a response whose calls were
  // all refused leaves no function_call_output between it and the next one); tool calls
  // (function, custom and the built-in calls the caller runs) join the message they follow.
  let group: NeutralMessage | undefined;
  // calls of a shell OpenAI hosts (recorded from the response, provider-executed): their
  // outputs re-sent as input are no tool results of the caller's
  let hosted: Set<string> | undefined;
  for (const item of input as Item[]) {
    if (typeof item !== 'object' || item === null) continue;
    const type = item.type;
    if (type === 'reasoning') {
      group = undefined;
      continue;
    }
    if (isHostedShellCall(item)) (hosted ??= new Set()).add(String(item.call_id));
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
    const answer = toolOutputMessage(item);
    if (answer !== undefined) {
      if (hosted?.has(String(answer.tool_call_id)) !== true) messages.push(answer);
      continue;
    }
    if ((type === 'message' || type === undefined) && typeof item.role === 'string') {
      if (item.role === 'assistant') {
        group = { role: 'assistant', content: textOfParts(item.content) ?? null };
        messages.push(group);
      } else messages.push({ role: item.role, content: outputContent(item.content) ?? null });
    }
    // Other items (item references, hosted tools' calls): not conversation messages.
  }
  return messages;
}

/**
 * Names of the offered tools: a function's or custom tool's name, else the tool's type (the
 * name its calls are recorded under: `shell`, `apply_patch`, ...; `computer_use_preview` is
 * `computer`).
 * @internal
 */
export function responsesToolNames(tools: unknown): { name: string }[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  return (tools as Item[]).map((tool) => {
    if (typeof tool.name === 'string') return { name: tool.name };
    const type = String(tool.type ?? 'unknown');
    return {
      name: Object.hasOwn(offeredToolNames, type) ? (offeredToolNames[type] as string) : type,
    };
  });
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
 * The error a failed response reports (`status: 'failed'`, `error: { code, message }`), as an
 * Error named by its code (`server_error`), so the call is recorded as failed with it.
 */
function responseFailure(error: unknown): Error {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const failure = new Error(
    typeof message === 'string' && message !== ''
      ? message
      : 'the response failed (status "failed") without an error message',
  );
  failure.name = typeof code === 'string' && code !== '' ? code : 'ResponseFailed';
  return failure;
}

/**
 * The neutral response of a Responses-API response: message text, reasoning (summary, else
 * reasoning text) and the calls the caller's code runs (function and custom tool calls, the
 * built-in calls it carries out: see {@link responsesToolCall}).
 * @internal
 */
export function responsesResponse(
  response: Response,
  requestId: string | null | undefined,
): ModelCallResponse {
  let text: string | null = null;
  const reasoning: string[] = [];
  const calls: ModelToolCall[] = [];
  const output = (response.output ?? []) as unknown as Item[];
  const providerCalls = openAIHostedToolCalls(output);
  for (const item of output) {
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
  if (providerCalls.length > 0) result.providerToolCalls = providerCalls;
  if (response.status === 'failed') result.failure = responseFailure(response.error);
  const finish = response.incomplete_details?.reason ?? response.status;
  if (typeof finish === 'string') result.finishReason = finish;
  return result;
}
