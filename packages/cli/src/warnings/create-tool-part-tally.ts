import type { Trace } from '@tracewarden/core';
import type { ValueLocation } from './create-unknown-value-tally.js';
import type { Warning } from './format-warning.js';

/**
 * Content part types that hold a tool call or its output in another API's shape (Anthropic's
 * Messages API: `tool_use`, `tool_result`; OpenAI's Responses API: `function_call`,
 * `function_call_output`). The chat-event model (seed 000) reads tool calls from `tool_calls`
 * and outputs from `role: "tool"` events only. Anthropic runs are rewritten when read
 * (`foreignEventList`), so what is left here is a part no reader could take: the Responses
 * API's, or an Anthropic part without its `name` / `tool_use_id`; to a policy it is content.
 */
export const toolPartTypes: readonly string[] = [
  'tool_use',
  'tool_result',
  'server_tool_use',
  'mcp_tool_use',
  'mcp_tool_result',
  'function_call',
  'function_call_output',
];

const types = new Set(toolPartTypes);

/** Tallies tool-shaped content parts and says so once per part type. */
export interface ToolPartTally {
  /** Counts the events of a trace holding such parts; `at` locates an event. */
  add(trace: Trace, at: (event: number) => ValueLocation): void;
  /** One `UNREAD_TOOL_PART` warning per part type, in the order first seen. */
  warnings(): Warning[];
  /** The events seen so far that hold such parts. */
  readonly events: number;
}

/**
 * A tally of content parts that are tool calls or outputs in another API's shape, so that
 * `validate` and `check` say that policies and counts do not see them as tool calls, instead of
 * passing such a trace in silence.
 *
 * @returns an empty tally
 * @example
 * ```ts
 * const tally = createToolPartTally();
 * tally.add(trace, (event) => ({ file: 'run.json', address: `#0/${event}` }));
 * tally.warnings()[0]?.code; // 'UNREAD_TOOL_PART'
 * ```
 */
export function createToolPartTally(): ToolPartTally {
  const seen = new Map<string, { count: number; at: ValueLocation }>();
  let events = 0;
  return {
    get events() {
      return events;
    },
    add(trace, at) {
      for (let i = 0; i < trace.length; i++) {
        const content = trace[i]?.content;
        if (!Array.isArray(content)) continue;
        for (const part of content) {
          if (!types.has(part.type)) continue;
          const entry = seen.get(part.type);
          if (entry === undefined) seen.set(part.type, { count: 1, at: at(i) });
          else entry.count++;
          events++;
          break;
        }
      }
    },
    warnings() {
      return [...seen].map(([type, { count, at }]) => ({
        code: 'UNREAD_TOOL_PART' as const,
        value: type,
        count,
        ...at,
        message: `content parts of type "${type}" (${count.toLocaleString('en-US')} ${count === 1 ? 'event' : 'events'}; another API's shape of a tool call or output) are read as message content, not as tool calls or outputs: policies on ToolCall and ToolOutput and tool-call counts do not see them; export the run in the chat shape (tool_calls on the assistant message, role "tool" outputs)`,
      }));
    },
  };
}
