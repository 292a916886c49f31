import { describe, expect, it } from 'vitest';
import { createTracer } from '../tracing/index.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';
import { normalizeFinishReason } from './normalize-finish-reason.js';

describe('normalizeFinishReason', () => {
  it("maps each provider's values onto OpenAI's names", () => {
    const cases: [string, string][] = [
      // OpenAI chat, the AI SDK's unified reasons
      ['stop', 'stop'],
      ['length', 'length'],
      ['tool_calls', 'tool_calls'],
      ['function_call', 'tool_calls'],
      ['content_filter', 'content_filter'],
      ['tool-calls', 'tool_calls'],
      ['content-filter', 'content_filter'],
      ['error', 'error'],
      ['other', 'other'],
      ['unknown', 'other'],
      // the Responses API (incomplete_details.reason, else status)
      ['completed', 'stop'],
      ['max_output_tokens', 'length'],
      ['failed', 'error'],
      ['incomplete', 'other'],
      // Anthropic, Bedrock
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['tool_use', 'tool_calls'],
      ['max_tokens', 'length'],
      ['refusal', 'content_filter'],
      ['guardrail_intervened', 'content_filter'],
      // Gemini, Cohere (upper case)
      ['STOP', 'stop'],
      ['MAX_TOKENS', 'length'],
      ['SAFETY', 'content_filter'],
      ['MALFORMED_FUNCTION_CALL', 'error'],
      ['COMPLETE', 'stop'],
      ['TOOL_CALL', 'tool_calls'],
      // Mistral
      ['model_length', 'length'],
      // no provider's: not an object's own key either
      ['constructor', 'other'],
      ['toString', 'other'],
    ];
    for (const [raw, expected] of cases)
      expect([raw, normalizeFinishReason(raw)]).toEqual([raw, expected]);
  });

  it('an answer with tool calls that says it stopped proposed tool calls; nothing else moves', () => {
    expect(normalizeFinishReason('STOP', true)).toBe('tool_calls');
    expect(normalizeFinishReason('completed', true)).toBe('tool_calls');
    expect(normalizeFinishReason('length', true)).toBe('length');
    expect(normalizeFinishReason('tool_calls', false)).toBe('tool_calls');
    expect(normalizeFinishReason(undefined, true)).toBeUndefined();
    expect(normalizeFinishReason('')).toBeUndefined();
  });
});

describe('the recorded finish reason', () => {
  function answer(
    finish: { finishReason?: string; providerFinishReason?: string },
    stream = false,
  ) {
    const tracer = createTracer();
    const handle = createModelCallRecorder({ tracer }).start({
      provider: 'p',
      model: 'm',
      messages: [{ role: 'user', content: 'go' }],
      stream,
    });
    if (stream) {
      handle.chunk({ text: 'ok' });
      handle.chunk(finish);
      handle.finish();
    } else handle.finish({ text: 'ok', ...finish });
    return tracer.blocks().at(-1)?.metadata;
  }

  it("keeps the provider's value beside the normalised one, streamed or not", () => {
    for (const stream of [false, true]) {
      expect(answer({ finishReason: 'end_turn' }, stream)).toMatchObject({
        finish_reason: 'stop',
        provider_finish_reason: 'end_turn',
      });
      // a framework's unified value with the provider's own (the AI SDK's { unified, raw })
      expect(
        answer({ finishReason: 'content-filter', providerFinishReason: 'SAFETY' }, stream),
      ).toMatchObject({ finish_reason: 'content_filter', provider_finish_reason: 'SAFETY' });
    }
    expect(answer({})).not.toHaveProperty('finish_reason');
    expect(answer({})).not.toHaveProperty('provider_finish_reason');
  });

  it('records tool_calls for an answer with calls whose provider said it stopped', () => {
    const tracer = createTracer();
    createModelCallRecorder({ tracer })
      .start({ provider: 'p', model: 'm', messages: [{ role: 'user', content: 'go' }] })
      .finish({
        text: null,
        toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }],
        finishReason: 'STOP',
      });
    const message = tracer.blocks().find((block) => block.payload.role === 'assistant');
    expect(message?.metadata).toMatchObject({
      finish_reason: 'tool_calls',
      provider_finish_reason: 'STOP',
    });
  });
});
