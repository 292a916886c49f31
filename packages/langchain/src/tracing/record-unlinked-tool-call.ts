import type { Tracer } from '@tracewarden/core';
import { lastAnswerOf, noteAnswer } from './conversation-links.js';

/** The latest assistant MESSAGE of a trace, if any (a scan: for traces recorded elsewhere). */
function latestAssistant(tracer: Tracer): string | undefined {
  const blocks = tracer.blocks();
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i];
    if (block?.sub_type === 'MESSAGE' && (block.payload as { role?: unknown }).role === 'assistant')
      return block.id;
  }
  return undefined;
}

/**
 * Tool input (LangChain hands it over as JSON text) as TOOL_CALL arguments: the parsed object,
 * or `{ input }` for a string tool's input.
 * @internal
 */
export function argumentsOf(input: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(input);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // not JSON: a string tool's input
  }
  return { input };
}

/**
 * Records the TOOL_CALL of a tool run no model call proposed in this trace (a plain
 * `tool.invoke(args)`): under the latest assistant message, or under an empty assistant
 * message made for it when the trace has none, so the run is never lost and never an orphan.
 * @internal
 */
export function recordUnlinkedToolCall(
  tracer: Tracer,
  call: { callId: string; name: string; input: string; metadata: Record<string, unknown> },
): void {
  let parent = lastAnswerOf(tracer) ?? latestAssistant(tracer);
  if (parent === undefined) {
    parent = tracer.logMessage({
      role: 'assistant',
      content: null,
      metadata: { synthetic: true, reason: 'tool run outside a model call' },
    }).id;
    noteAnswer(tracer, parent);
  }
  tracer.logAct({
    parent_block_id: parent,
    payload: { call_id: call.callId, name: call.name, arguments: argumentsOf(call.input) },
    metadata: { unlinked: true, ...call.metadata },
  });
}
