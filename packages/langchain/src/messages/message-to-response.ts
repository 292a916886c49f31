import {
  type ModelCallDelta,
  type ModelCallResponse,
  type ModelToolCall,
  type ModelToolCallDelta,
  type ModelUsage,
  openAIHostedToolCalls,
  type ProviderToolCall,
} from '@tracewarden/core';
import { assistantText, type LooseMessage } from './messages-to-neutral.js';
import { inProviderOrder } from './provider-order.js';

interface LooseUsage {
  input_tokens?: unknown;
  output_tokens?: unknown;
  total_tokens?: unknown;
  input_token_details?: { cache_read?: unknown } | undefined;
  output_token_details?: { reasoning?: unknown } | undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Neutral usage of a LangChain `usage_metadata`, or of the legacy `llmOutput.tokenUsage`.
 * @internal
 */
export function usageOf(usage: unknown, llmOutput?: unknown): ModelUsage | undefined {
  if (typeof usage === 'object' && usage !== null) {
    const loose = usage as LooseUsage;
    const input = count(loose.input_tokens);
    const output = count(loose.output_tokens);
    if (input !== undefined || output !== undefined)
      return {
        inputTokens: input ?? 0,
        outputTokens: output ?? 0,
        totalTokens: count(loose.total_tokens),
        cachedInputTokens: count(loose.input_token_details?.cache_read),
        reasoningTokens: count(loose.output_token_details?.reasoning),
      };
  }
  const tokenUsage = (llmOutput as { tokenUsage?: Record<string, unknown> } | undefined)
    ?.tokenUsage;
  if (typeof tokenUsage === 'object' && tokenUsage !== null) {
    const input = count(tokenUsage.promptTokens);
    const output = count(tokenUsage.completionTokens);
    if (input !== undefined || output !== undefined)
      return {
        inputTokens: input ?? 0,
        outputTokens: output ?? 0,
        totalTokens: count(tokenUsage.totalTokens),
      };
  }
  return undefined;
}

/**
 * The reasoning of an assistant message or chunk: `reasoning` / `thinking` content blocks,
 * else `additional_kwargs.reasoning_content` (OpenAI-compatible chat servers), else the
 * summary of `additional_kwargs.reasoning` (the Responses API in older formats).
 * @internal
 */
export function reasoningOf(message: LooseMessage): string {
  let reasoning = '';
  const content = message.content;
  if (Array.isArray(content)) {
    for (const block of content as { type?: unknown; reasoning?: unknown; thinking?: unknown }[]) {
      if (typeof block !== 'object' || block === null) continue;
      if (block.type === 'reasoning' && typeof block.reasoning === 'string')
        reasoning += block.reasoning;
      else if (block.type === 'thinking' && typeof block.thinking === 'string')
        reasoning += block.thinking;
    }
    if (reasoning !== '') return reasoning;
  }
  const extra = message.additional_kwargs;
  if (extra === undefined) return reasoning;
  if (typeof extra.reasoning_content === 'string') return extra.reasoning_content;
  const summary = (extra.reasoning as { summary?: unknown } | undefined)?.summary;
  if (Array.isArray(summary))
    for (const part of summary as { text?: unknown }[])
      if (typeof part?.text === 'string') reasoning += part.text;
  return reasoning;
}

/**
 * The model's tool calls: parsed ones, then those whose arguments did not parse (in the provider's
 * order when it is known). A call without
 * an id keeps `""` (decision 030): core records it under an id it generates, and the answer the
 * caller re-sends (with `""`) is still known as this one (`messagesToNeutral` reads it alike).
 */
function toolCallsOf(message: LooseMessage): ModelToolCall[] {
  const calls: ModelToolCall[] = [];
  for (const call of message.tool_calls ?? [])
    calls.push({
      id: typeof call.id === 'string' ? call.id : '',
      name: call.name,
      arguments: call.args ?? {},
    });
  const invalid = message.invalid_tool_calls ?? [];
  if (invalid.length === 0) return calls;
  for (const call of invalid)
    calls.push({
      id: typeof call.id === 'string' ? call.id : '',
      name: call.name ?? 'unknown',
      arguments: call.args ?? '',
    });
  return inProviderOrder(calls, message.additional_kwargs?.tool_calls);
}

/** A LangChain v1 standard content block of a tool the provider ran (`server_tool_call*`). */
interface ServerToolBlock {
  type?: unknown;
  id?: unknown;
  name?: unknown;
  args?: unknown;
  toolCallId?: unknown;
  status?: unknown;
  output?: unknown;
}

/** Content block types of provider-run tools, in LangChain's and the providers' own shapes. */
function isServerToolBlockType(type: unknown): boolean {
  return (
    typeof type === 'string' &&
    (type.startsWith('server_tool') || type.endsWith('_tool_result') || type === 'mcp_tool_use')
  );
}

/**
 * The tool calls the provider ran itself (hosted tools), with their results: OpenAI's items as
 * `ChatOpenAI` keeps them (`additional_kwargs.tool_outputs`: web search, file search, code
 * interpreter, MCP, ...), else the message's standard `server_tool_call` /
 * `server_tool_call_result` blocks (`contentBlocks`, translated from any provider's content,
 * Anthropic's `server_tool_use` and `web_search_tool_result` among them). Read only when the
 * message has such content.
 */
function providerToolCallsOf(message: LooseMessage): ProviderToolCall[] {
  const outputs = message.additional_kwargs?.tool_outputs;
  if (Array.isArray(outputs) && outputs.length > 0) return openAIHostedToolCalls(outputs);
  const content = message.content;
  if (!Array.isArray(content)) return [];
  if (!content.some((block) => isServerToolBlockType((block as ServerToolBlock | null)?.type)))
    return [];
  let blocks: unknown;
  try {
    blocks = (message as { contentBlocks?: unknown }).contentBlocks;
  } catch {
    return [];
  }
  if (!Array.isArray(blocks)) return [];
  const calls: ProviderToolCall[] = [];
  for (const block of blocks as (ServerToolBlock | null)[]) {
    if (block?.type === 'server_tool_call') {
      const args = block.args;
      calls.push({
        id: typeof block.id === 'string' ? block.id : undefined,
        name: typeof block.name === 'string' ? block.name : undefined,
        arguments:
          typeof args === 'string'
            ? args
            : typeof args === 'object' && args !== null && !Array.isArray(args)
              ? (args as Record<string, unknown>)
              : {},
      });
    } else if (block?.type === 'server_tool_call_result') {
      const call = calls.find((known) => known.id !== undefined && known.id === block.toolCallId);
      if (call === undefined) continue;
      call.output = block.output ?? null;
      if (block.status === 'error') call.isError = true;
    }
  }
  return calls;
}

function stringField(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The finish reason of an OpenAI Responses API answer (`ChatOpenAI({ useResponsesApi: true })`),
 * as the OpenAI adapter records it: why it is incomplete, else its status (`completed`).
 */
function responsesFinish(metadata: Record<string, unknown> | undefined): string | undefined {
  if (metadata?.object !== 'response') return undefined;
  const incomplete = metadata.incomplete_details;
  const reason =
    typeof incomplete === 'object' && incomplete !== null
      ? (incomplete as { reason?: unknown }).reason
      : undefined;
  return typeof reason === 'string' ? reason : stringField(metadata, 'status');
}

/**
 * The recorder's response for an assistant message (`AIMessage` or an aggregated
 * `AIMessageChunk`): text, reasoning, tool calls with the model's ids, usage, model, finish
 * reason, response id.
 * @param message - the generation's message
 * @param generationInfo - the generation's `generationInfo` (finish reason of some providers)
 * @param llmOutput - the result's `llmOutput` (legacy token usage)
 * @internal
 */
export function messageToResponse(
  message: LooseMessage,
  generationInfo?: Record<string, unknown>,
  llmOutput?: Record<string, unknown>,
): ModelCallResponse {
  const metadata = message.response_metadata;
  const response: ModelCallResponse = {
    text: assistantText(message.content),
    reasoning: reasoningOf(message),
    toolCalls: toolCallsOf(message),
    usage: usageOf(message.usage_metadata, llmOutput),
  };
  const model = stringField(metadata, 'model_name') ?? stringField(metadata, 'model');
  if (model !== undefined) response.model = model;
  const finish =
    stringField(metadata, 'finish_reason') ??
    stringField(metadata, 'stop_reason') ??
    stringField(generationInfo, 'finish_reason') ??
    responsesFinish(metadata);
  if (finish !== undefined) response.finishReason = finish;
  const id =
    typeof message.id === 'string' && !message.id.startsWith('run-') ? message.id : undefined;
  const responseId = stringField(metadata, 'id') ?? id;
  if (responseId !== undefined) response.responseId = responseId;
  const hosted = providerToolCallsOf(message);
  if (hosted.length > 0) response.providerToolCalls = hosted;
  return response;
}

interface LooseToolCallChunk {
  index?: unknown;
  id?: unknown;
  name?: unknown;
  args?: unknown;
}

/**
 * The delta of one streamed token for the recorder: the token's text, the chunk's reasoning
 * and tool-call pieces (for the time to first token and the live budget estimate).
 * @internal
 */
export function tokenDelta(token: string, chunk: unknown): ModelCallDelta {
  const delta: ModelCallDelta = {};
  if (token !== '') delta.text = token;
  const message = (chunk as { message?: LooseMessage } | undefined)?.message;
  if (message === undefined || typeof message !== 'object') return delta;
  const reasoning = reasoningOf(message);
  if (reasoning !== '') delta.reasoning = reasoning;
  const pieces = (message as { tool_call_chunks?: readonly LooseToolCallChunk[] }).tool_call_chunks;
  if (pieces !== undefined && pieces.length > 0) {
    const toolCalls: ModelToolCallDelta[] = [];
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as LooseToolCallChunk;
      const out: ModelToolCallDelta = { index: typeof piece.index === 'number' ? piece.index : i };
      if (typeof piece.id === 'string') out.id = piece.id;
      if (typeof piece.name === 'string') out.name = piece.name;
      if (typeof piece.args === 'string') out.arguments = piece.args;
      toolCalls.push(out);
    }
    delta.toolCalls = toolCalls;
  }
  return delta;
}
