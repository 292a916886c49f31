import type {
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

/** Usage of every scripted step: 10 input tokens (4 cached), 5 output (1 reasoning). */
export const usage: LanguageModelV4Usage = {
  inputTokens: { total: 10, noCache: 6, cacheRead: 4, cacheWrite: undefined },
  outputTokens: { total: 5, text: 4, reasoning: 1 },
};

/** One scripted model step: text, reasoning and tool calls. */
export interface Step {
  text?: string;
  reasoning?: string;
  calls?: { id: string; name: string; input: Record<string, unknown> }[];
}

/** A whole generate result for one step. */
export function generated(step: Step): LanguageModelV4GenerateResult {
  const content: LanguageModelV4GenerateResult['content'] = [];
  if (step.reasoning !== undefined) content.push({ type: 'reasoning', text: step.reasoning });
  if (step.text !== undefined) content.push({ type: 'text', text: step.text });
  for (const call of step.calls ?? [])
    content.push({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.name,
      input: JSON.stringify(call.input),
    });
  return {
    content,
    finishReason: step.calls?.length
      ? { unified: 'tool-calls', raw: 'tool_calls' }
      : { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
    response: { id: 'resp-1', modelId: 'mock-model-id', timestamp: new Date(0) },
  };
}

/** The stream parts of one step, text split in `pieces`, tool inputs in two deltas. */
export function streamParts(step: Step, pieces = 2): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: 'resp-1', modelId: 'mock-model-id' },
  ];
  if (step.reasoning !== undefined) {
    parts.push({ type: 'reasoning-start', id: 'r1' });
    parts.push({ type: 'reasoning-delta', id: 'r1', delta: step.reasoning });
    parts.push({ type: 'reasoning-end', id: 'r1' });
  }
  if (step.text !== undefined) {
    parts.push({ type: 'text-start', id: 't1' });
    const size = Math.ceil(step.text.length / pieces);
    for (let i = 0; i < step.text.length; i += size)
      parts.push({ type: 'text-delta', id: 't1', delta: step.text.slice(i, i + size) });
    parts.push({ type: 'text-end', id: 't1' });
  }
  for (const call of step.calls ?? []) {
    const input = JSON.stringify(call.input);
    const half = Math.floor(input.length / 2);
    parts.push({ type: 'tool-input-start', id: call.id, toolName: call.name });
    parts.push({ type: 'tool-input-delta', id: call.id, delta: input.slice(0, half) });
    parts.push({ type: 'tool-input-delta', id: call.id, delta: input.slice(half) });
    parts.push({ type: 'tool-input-end', id: call.id });
    parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input });
  }
  parts.push({
    type: 'finish',
    finishReason: step.calls?.length
      ? { unified: 'tool-calls', raw: 'tool_calls' }
      : { unified: 'stop', raw: 'stop' },
    usage,
  });
  return parts;
}

/** A mock model answering `steps` in order, generated or streamed. */
export function scriptedModel(steps: Step[]): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: steps.map(generated),
    doStream: steps.map((step) => ({
      stream: simulateReadableStream({ chunks: streamParts(step) }),
    })),
  });
}
