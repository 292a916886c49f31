import {
  errorMessage,
  errorType,
  type ToolCallStatus,
  ToolCallStatusSchema,
} from '@tracewarden/core';
import { type LooseMessage, messageType, toolContentOf } from './messages-to-neutral.js';

/**
 * Whether a value is a LangChain `ToolMessage` (read by its fields, across package copies). Its
 * `tool_call_id` may be absent: a model may leave a call's id out (LangChain's `ToolCall.id` is
 * optional), and the tool node's answer then carries none.
 * @internal
 */
export function isToolMessage(
  value: unknown,
): value is LooseMessage & { tool_call_id: string | undefined } {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as LooseMessage;
  const id = message.tool_call_id;
  return (
    (typeof id === 'string' || id === undefined || id === null) && messageType(message) === 'tool'
  );
}

/** The call id a tool's output answers (a `ToolMessage`'s `tool_call_id`), if any. @internal */
export function toolCallIdOf(output: unknown): string | undefined {
  return isToolMessage(output) ? (output.tool_call_id ?? undefined) : undefined;
}

/** A value as a JSON-safe output (strings and JSON values as they are). */
/** @internal */
export function jsonSafe(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  if (value === null) return null;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : (JSON.parse(text) as unknown);
  } catch {
    return String(value);
  }
}

/** What a tool run produced, as recorded in its TOOL_RESULT. @internal */
export interface ToolOutcome {
  /** The output the model reads (a `ToolMessage`'s content) or the value the tool returned. */
  output: unknown;
  /** `success`, or `failure` for an error `ToolMessage`. */
  status: ToolCallStatus;
  /** The `ToolMessage`'s artifact, when it has one. */
  extra?: Record<string, unknown> | undefined;
}

/**
 * The TOOL_RESULT of a tool's output: a `ToolMessage`'s content (its artifact in `extra`, an
 * error status as `failure`), or the raw value a tool invoked with plain arguments returned.
 * A LangGraph `Command` is read for the `ToolMessage` it carries.
 * @internal
 */
export function toolOutcomeOf(output: unknown, callId?: string): ToolOutcome {
  const message = toolMessageIn(output, callId);
  if (message === undefined) return { output: jsonSafe(output), status: 'success' };
  const outcome: ToolOutcome = {
    output: jsonSafe(toolContentOf(message.content)),
    status: message.status === 'error' ? 'failure' : 'success',
  };
  if (message.artifact !== undefined) outcome.extra = { artifact: jsonSafe(message.artifact) };
  return outcome;
}

/** The `ToolMessage` itself, or the one a LangGraph `Command` update carries for `callId`. */
function toolMessageIn(
  output: unknown,
  callId: string | undefined,
): (LooseMessage & { tool_call_id: string | undefined }) | undefined {
  if (isToolMessage(output)) return output;
  const update = (output as { update?: { messages?: unknown } } | null)?.update;
  const messages = update?.messages;
  if (!Array.isArray(messages)) return undefined;
  return messages.find(
    (message): message is LooseMessage & { tool_call_id: string | undefined } =>
      isToolMessage(message) && (callId === undefined || message.tool_call_id === callId),
  );
}

/** A seed-004 ToolCallStatus for an error: a guard error's own status, else `failure`. @internal */
export function errorStatusOf(error: unknown): ToolCallStatus {
  const parsed = ToolCallStatusSchema.safeParse((error as { status?: unknown } | null)?.status);
  return parsed.success && parsed.data !== 'success' ? parsed.data : 'failure';
}

/** `{ type, message, code? }` of an error, for a TOOL_RESULT's metadata. @internal */
export function errorSummaryOf(error: unknown): Record<string, unknown> {
  const summary: Record<string, unknown> = { type: errorType(error), message: errorMessage(error) };
  if (!(error instanceof Error)) return summary;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') summary.code = code;
  return summary;
}

/** The text the model reads for a failed tool (as `executeToolCalls` reports it). @internal */
export function errorOutputOf(error: unknown): string {
  return `Error: ${errorMessage(error)}`;
}

/**
 * What an agent's tool node sends the model for a tool that threw: `createAgent`'s default
 * `handleToolErrors` (`${error}\n Please fix your mistakes.`, which LangGraph's prebuilt tool
 * node matches for a plain `Error`).
 * @internal
 */
export function toolNodeErrorText(error: unknown): string {
  return `${String(error)}\n Please fix your mistakes.`;
}
