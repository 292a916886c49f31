import type {
  Response,
  ResponseApplyPatchToolCall,
  ResponseComputerToolCall,
  ResponseCustomToolCall,
  ResponseFunctionShellToolCall,
  ResponseFunctionToolCall,
  ResponseOutputItem,
  ResponseOutputMessage,
  ResponseReasoningItem,
  ResponseUsage,
} from 'openai/resources/responses/responses';
import type { PlannedReply } from '../turns/plan-reply.js';

/**
 * A `response` object as sent on the wire: `output_text` is computed by the SDK, never sent, and
 * in-progress snapshots carry `usage: null`.
 *
 * @internal
 */
export type WireResponse = Omit<Response, 'output_text' | 'access_programs' | 'usage'> & {
  usage: ResponseUsage | null;
};

/**
 * A tool call output item of a reply: a `function_call`, a `custom_tool_call`, or a call of a
 * built-in tool the developer's code runs (`shell_call`, `local_shell_call`,
 * `apply_patch_call`, `computer_call`).
 *
 * @internal
 */
export type PlannedToolCallItem =
  | ResponseFunctionToolCall
  | ResponseCustomToolCall
  | ResponseFunctionShellToolCall
  | ResponseOutputItem.LocalShellCall
  | ResponseApplyPatchToolCall
  | ResponseComputerToolCall;

/**
 * The output items of a reply in order: reasoning, message, tool calls (`function_call` items,
 * `custom_tool_call` items for custom tools, the built-in tools' call items).
 *
 * @internal
 */
export interface PlannedOutputItems {
  reasoning: ResponseReasoningItem | undefined;
  message: ResponseOutputMessage | undefined;
  toolCalls: PlannedToolCallItem[];
}

type PlannedToolCall = PlannedReply['toolCalls'][number];

/** The item answering a planned call: the built-in tools' actions as the API sends them. */
function toolCallItem(call: PlannedToolCall, id: string): PlannedToolCallItem {
  // a built-in call's arguments were scripted as an object (serialized by planReply)
  const action = (): Record<string, unknown> =>
    JSON.parse(call.arguments) as Record<string, unknown>;
  switch (call.type) {
    case 'custom':
      return {
        id: `ctc_${id}`,
        type: 'custom_tool_call',
        input: call.arguments,
        call_id: call.id,
        name: call.name,
      };
    case 'shell':
      return {
        id: `sh_${id}`,
        type: 'shell_call',
        status: 'completed',
        call_id: call.id,
        action: {
          timeout_ms: null,
          max_output_length: null,
          ...action(),
        } as ResponseFunctionShellToolCall.Action,
        environment: null,
      };
    case 'local_shell':
      return {
        id: `lsh_${id}`,
        type: 'local_shell_call',
        status: 'completed',
        call_id: call.id,
        action: { type: 'exec', env: {}, ...action() } as ResponseOutputItem.LocalShellCall.Action,
      };
    case 'apply_patch':
      return {
        id: `apc_${id}`,
        type: 'apply_patch_call',
        status: 'completed',
        call_id: call.id,
        operation: action() as unknown as ResponseApplyPatchToolCall['operation'],
      };
    case 'computer':
      return {
        id: `cu_${id}`,
        type: 'computer_call',
        status: 'completed',
        call_id: call.id,
        pending_safety_checks: [],
        action: action() as unknown as NonNullable<ResponseComputerToolCall['action']>,
      };
    default:
      return {
        id: `fc_${id}`,
        type: 'function_call',
        status: 'completed',
        arguments: call.arguments,
        call_id: call.id,
        name: call.name,
      };
  }
}

/**
 * Builds the final output items of a planned reply.
 *
 * @internal
 * @param reply - The planned reply.
 * @returns The items, each `undefined` or empty when the reply has none.
 */
export function buildOutputItems(reply: PlannedReply): PlannedOutputItems {
  const prefix = `${reply.requestNumber}`;
  let index = 0;
  const reasoning: ResponseReasoningItem | undefined =
    reply.reasoning === undefined
      ? undefined
      : {
          id: `rs_scripted${prefix}_${index++}`,
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: reply.reasoning }],
        };
  const message: ResponseOutputMessage | undefined =
    reply.text === undefined
      ? undefined
      : {
          id: `msg_scripted${prefix}_${index++}`,
          type: 'message',
          status: isIncomplete(reply) ? 'incomplete' : 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', annotations: [], logprobs: [], text: reply.text }],
        };
  const toolCalls = reply.toolCalls.map((call) =>
    toolCallItem(call, `scripted${prefix}_${index++}`),
  );
  return { reasoning, message, toolCalls };
}

/**
 * Builds the `response` object for a planned reply.
 *
 * @internal
 * @param reply - The planned reply.
 * @param request - The parsed request body; settings such as `instructions` and `tools` are echoed.
 * @param state - `'final'` for the finished response, `'in_progress'` for the opening snapshots.
 * @returns The JSON body.
 */
export function buildResponse(
  reply: PlannedReply,
  request: Record<string, unknown>,
  state: 'final' | 'in_progress',
): WireResponse {
  const items = buildOutputItems(reply);
  const output: ResponseOutputItem[] = [];
  if (items.reasoning) output.push(items.reasoning);
  output.push(...(reply.hostedItems as unknown as ResponseOutputItem[]));
  if (items.message) output.push(items.message);
  output.push(...items.toolCalls);
  const final = state === 'final';
  const incomplete = isIncomplete(reply);
  return {
    id: responseId(reply),
    object: 'response',
    created_at: reply.created,
    status: !final ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    background: false,
    completed_at: final && !incomplete ? reply.created : null,
    error: null,
    incomplete_details:
      final && incomplete
        ? { reason: reply.finishReason === 'length' ? 'max_output_tokens' : 'content_filter' }
        : null,
    instructions: echo<Response['instructions']>(request.instructions, null),
    max_output_tokens: echo<Response['max_output_tokens']>(request.max_output_tokens, null),
    metadata: echo<Response['metadata']>(request.metadata, {}),
    model: reply.model,
    output: final ? output : [],
    parallel_tool_calls: echo<Response['parallel_tool_calls']>(request.parallel_tool_calls, true),
    previous_response_id: echo<Response['previous_response_id']>(
      request.previous_response_id,
      null,
    ),
    reasoning: echo<Response['reasoning']>(request.reasoning, { effort: null, summary: null }),
    service_tier: 'default',
    temperature: echo<Response['temperature']>(request.temperature, 1),
    text: echo<Response['text']>(request.text, { format: { type: 'text' }, verbosity: 'medium' }),
    tool_choice: echo<Response['tool_choice']>(request.tool_choice, 'auto'),
    tools: echo<Response['tools']>(request.tools, []),
    top_p: echo<Response['top_p']>(request.top_p, 1),
    truncation: 'disabled',
    usage: final ? buildResponseUsage(reply) : null,
  };
}

/**
 * The deterministic response id for a reply (`resp_scripted<request number>`).
 *
 * @internal
 * @param reply - The planned reply.
 * @returns The id.
 */
export function responseId(reply: PlannedReply): string {
  return `resp_scripted${reply.requestNumber}`;
}

/**
 * Whether a reply ends as an `incomplete` response.
 *
 * @internal
 * @param reply - The planned reply.
 * @returns `true` for the `length` and `content_filter` finish reasons.
 */
export function isIncomplete(reply: PlannedReply): boolean {
  return reply.finishReason === 'length' || reply.finishReason === 'content_filter';
}

function buildResponseUsage(reply: PlannedReply): ResponseUsage {
  const { inputTokens, outputTokens, cachedTokens, reasoningTokens } = reply.usage;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: cachedTokens, cache_write_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + outputTokens,
  };
}

// Request settings are echoed unchecked, as the real API would have validated them.
function echo<T>(value: unknown, fallback: Exclude<T, undefined>): Exclude<T, undefined> {
  return value === undefined ? fallback : (value as Exclude<T, undefined>);
}
