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

/**
 * The tool-shaped type of a content part, else `undefined`: the types above; the AI SDK's
 * ModelMessage parts (`tool-call`, `tool-result`, `tool-approval-request`) and UIMessage parts
 * (`tool-<name>`, `dynamic-tool`); Gemini's parts (`{ functionCall }`, `{ functionResponse }`).
 */
function toolPartType(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  const record = part as { type?: unknown; functionCall?: unknown; functionResponse?: unknown };
  const type = record.type;
  if (typeof type === 'string') {
    if (types.has(type) || type === 'dynamic-tool') return type;
    if (type.startsWith('tool-'))
      return type === 'tool-call' || type === 'tool-result' || type.startsWith('tool-approval')
        ? type
        : 'tool-<name>';
  }
  if (record.functionCall !== undefined) return 'functionCall';
  if (record.functionResponse !== undefined) return 'functionResponse';
  return undefined;
}

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
        const event = trace[i] as { content?: unknown; parts?: unknown } | undefined;
        // an event's content, or its `parts` (AI SDK UIMessages, Gemini contents)
        for (const list of [event?.content, event?.parts]) {
          if (!Array.isArray(list)) continue;
          let type: string | undefined;
          for (const part of list) {
            type = toolPartType(part);
            if (type !== undefined) break;
          }
          if (type === undefined) continue;
          const entry = seen.get(type);
          if (entry === undefined) seen.set(type, { count: 1, at: at(i) });
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
