import {
  type ChatEventConversion,
  convertAnthropicMessages,
  hasAnthropicToolParts,
} from './from-anthropic-messages.js';
import { convertResponsesItems, hasResponsesItems } from './from-responses-items.js';

/**
 * Rewrites a trace's events when they are in another API's shape: an OpenAI Responses API item
 * list ({@link fromResponsesItems}) or an Anthropic Messages API run
 * ({@link fromAnthropicMessages}); `undefined` when they are chat events already. What
 * `parseTrace`, `policy.check` and the command line apply before reading a trace.
 * @param events - the trace's events as read
 * @param system - a trace object's top-level `system` (Anthropic's)
 * @returns the rewritten events and where each came from, or `undefined`
 * @example
 * ```ts
 * const rewritten = convertToChatEvents(run.messages, run.system);
 * const events = rewritten?.events ?? run.messages;
 * ```
 */
export function convertToChatEvents(
  events: readonly unknown[],
  system?: unknown,
): ChatEventConversion | undefined {
  // tool_use / tool_result parts are Anthropic's alone (a response's `Message` object, with its
  // `type: 'message'`, is appended to such runs)
  if (hasAnthropicToolParts(events)) return convertAnthropicMessages(events, system);
  if (hasResponsesItems(events)) return convertResponsesItems(events);
  return undefined;
}
