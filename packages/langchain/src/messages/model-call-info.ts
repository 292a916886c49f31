import type { Serialized } from '@langchain/core/load/serializable';
import type { LooseMessage } from './messages-to-neutral.js';

/** What the recorder needs to know about a model from a LangChain run's start. @internal */
export interface ModelCallInfo {
  /** `ls_provider` (`openai`, ...), else `langchain`. */
  provider: string;
  /** `ls_model_name`, else the invocation's `model`, else the class name. */
  model: string;
  /** The chat model's class (`ChatOpenAI`), recorded as the call's `api`. */
  className: string;
  /** Names of the tools offered, when the invocation lists them. */
  tools: { name: string }[] | undefined;
  /** How many answers the invocation asks for (`n`, `candidateCount`); 1 when it does not say. */
  answers: number;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Names of tool definitions in any of the formats LangChain providers send. */
function toolNames(tools: unknown): { name: string }[] | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  const names: { name: string }[] = [];
  for (const tool of tools as { name?: unknown; function?: { name?: unknown } }[]) {
    const name = stringOf(tool?.function?.name) ?? stringOf(tool?.name);
    if (name !== undefined) names.push({ name });
  }
  return names.length === 0 ? undefined : names;
}

/**
 * Provider, model, class and offered tools of a model run, from the serialized model, the
 * invocation parameters and LangChain's `ls_*` metadata.
 * @internal
 */
export function modelCallInfo(
  llm: Serialized | undefined,
  extraParams: Record<string, unknown> | undefined,
  metadata: Record<string, unknown> | undefined,
): ModelCallInfo {
  const className = stringOf(llm?.id?.at(-1)) ?? 'ChatModel';
  const params = extraParams?.invocation_params as Record<string, unknown> | undefined;
  return {
    provider: stringOf(metadata?.ls_provider) ?? 'langchain',
    model:
      stringOf(metadata?.ls_model_name) ??
      stringOf(params?.model) ??
      stringOf(params?.model_name) ??
      stringOf(params?.modelName) ??
      className,
    className,
    tools: toolNames(params?.tools),
    answers: answersOf(params),
  };
}

/** The answers an invocation asks for: OpenAI's `n`, Google's `candidateCount`. */
function answersOf(params: Record<string, unknown> | undefined): number {
  const n = params?.n ?? params?.candidateCount ?? params?.candidate_count;
  return typeof n === 'number' && n > 1 ? n : 1;
}

/** The request parameters kept in `raw.request` (the invocation parameters). @internal */
export function rawRequestOf(extraParams: Record<string, unknown> | undefined): unknown {
  const params = extraParams?.invocation_params;
  return isEmpty(params) ? undefined : { invocation_params: params };
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value !== 'object') return false;
  for (const _ in value) return false;
  return true;
}

/**
 * The response kept in `raw.response`: what the provider said beyond the blocks (content and
 * tool calls are already recorded as blocks): `response_metadata` (the provider's raw response,
 * for some), `usage_metadata`, `additional_kwargs`, invalid tool calls; `undefined` when empty.
 * @internal
 */
export function rawResponseOf(message: LooseMessage): unknown {
  let raw: Record<string, unknown> | undefined;
  if (!isEmpty(message.response_metadata))
    (raw ??= {}).response_metadata = message.response_metadata;
  if (!isEmpty(message.usage_metadata)) (raw ??= {}).usage_metadata = message.usage_metadata;
  if (!isEmpty(message.additional_kwargs))
    (raw ??= {}).additional_kwargs = message.additional_kwargs;
  if (message.invalid_tool_calls !== undefined && message.invalid_tool_calls.length > 0)
    (raw ??= {}).invalid_tool_calls = message.invalid_tool_calls;
  return raw;
}
