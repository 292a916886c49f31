import type { StitchedTrace } from '../stitching/types.js';

/** One tool call of a {@link ComparableTrace}. */
export interface ComparableToolCall {
  call_id: string;
  name: string;
  arguments: unknown;
  /** Whether the policy blocked it (`metadata.policy === 'block'`). */
  blocked: boolean;
  /** The outputs of its results, JSON text parsed. */
  results: { output: unknown; status: unknown; refused: boolean }[];
}

/** One message of a {@link ComparableTrace}. */
export interface ComparableMessage {
  role: string;
  content: unknown;
  thinks: string[];
  tool_calls: ComparableToolCall[];
}

/**
 * A stitched trace with what differs by nature between adapters set aside (block ids,
 * timestamps, timing, usage, raw payloads, adapter-specific metadata): what a conversation
 * looks like, whatever framework recorded it.
 */
export interface ComparableTrace {
  messages: ComparableMessage[];
  orphans: number;
}

/**
 * A tool output as compared across adapters: JSON text parsed, any other value as it is (a
 * result is recorded as the text the model read, or as the tool's value).
 * @param value - a TOOL_RESULT's `output`, or a tool message's content
 * @returns the parsed value
 * @example
 * ```ts
 * expect(parsedOutput('{"ok":true}')).toEqual({ ok: true });
 * ```
 */
export function parsedOutput(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * Reduces a stitched trace to what any adapter must record the same way, for cross-adapter
 * comparisons: roles, contents, reasoning, tool calls with the model's ids and arguments, their
 * results (JSON text parsed) with status and refusal, policy blocks, and the orphan count.
 * @param trace - a stitched trace (`tracer.stitched()`)
 * @returns the comparable shape, for `expect(a).toEqual(b)`
 * @example
 * ```ts
 * expect(comparableTrace(viaAiSdk.stitched())).toEqual(comparableTrace(viaOpenAI.stitched()));
 * ```
 */
export function comparableTrace(trace: StitchedTrace): ComparableTrace {
  return {
    messages: trace.messages.map((message) => {
      const payload = message.block.payload as { role: string; content: unknown };
      return {
        role: payload.role,
        content: payload.content,
        thinks: message.thinks.map((think) => think.payload.text),
        tool_calls: message.tool_calls.map((node) => {
          const metadata = node.block.metadata as { policy?: unknown };
          return {
            call_id: node.block.payload.call_id,
            name: node.block.payload.name,
            arguments: node.block.payload.arguments,
            blocked: metadata.policy === 'block',
            results: node.results.map((result) => {
              const resultMetadata = result.metadata as { status?: unknown; refused?: unknown };
              return {
                output: parsedOutput(result.payload.output),
                status: resultMetadata.status,
                refused: resultMetadata.refused === true,
              };
            }),
          };
        }),
      };
    }),
    orphans:
      trace.orphans.tool_calls.length +
      trace.orphans.tool_results.length +
      (trace.orphans.thinks?.length ?? 0),
  };
}
