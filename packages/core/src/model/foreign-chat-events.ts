import { hasAgentTranscriptLines, unwrapAgentTranscript } from './from-agent-transcript.js';
import {
  type ChatEventConversion,
  convertAnthropicMessages,
  hasAnthropicToolParts,
} from './from-anthropic-messages.js';
import { convertResponsesItems, hasResponsesItems } from './from-responses-items.js';

/**
 * Rewrites a trace's events when they are in another API's shape: an OpenAI Responses API item
 * list ({@link fromResponsesItems}), an Anthropic Messages API run
 * ({@link fromAnthropicMessages}), or a Claude Code session file / Agent SDK `stream-json`
 * output ({@link unwrapAgentTranscript}, then as an Anthropic run); `undefined` when they are
 * chat events already. What
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
  // a Claude Code session file: its messages, unwrapped, are an Anthropic run
  if (hasAgentTranscriptLines(events)) {
    const unwrapped = unwrapAgentTranscript(events);
    const converted = convertForeignEvents(unwrapped.events, system);
    if (converted === undefined) return unwrapped;
    return {
      events: converted.events,
      sources: converted.sources.map((at) => (at < 0 ? at : (unwrapped.sources[at] as number))),
    };
  }
  return convertForeignEvents(events, system);
}

function convertForeignEvents(
  events: readonly unknown[],
  system: unknown,
): ChatEventConversion | undefined {
  // tool_use / tool_result parts are Anthropic's alone (a response's `Message` object, with its
  // `type: 'message'`, is appended to such runs)
  if (hasAnthropicToolParts(events)) return convertAnthropicMessages(events, system);
  if (hasResponsesItems(events)) return convertResponsesItems(events);
  return undefined;
}
