import { createTracer, parsePolicy } from '@tracewarden/core';
import { wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { generated } from '../__fixtures__/mock-model.js';
import { tracewardenMiddleware } from '../index.js';

const policy = parsePolicy(`
raise "no mail to the attacker" if:
    (call: ToolCall)
    call is tool:send_email
    call.function.arguments.to == "attacker@evil.com"
`);

describe('an answer that arrives after the caller aborted (a provider that ignores the signal)', () => {
  it('is never handed on unreviewed: the call stays cancelled and the answer is refused', async () => {
    const tracer = createTracer();
    const answer = generated({
      calls: [{ id: 'c1', name: 'send_email', input: { to: 'attacker@evil.com' } }],
    });
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doGenerate: () => new Promise((resolve) => setTimeout(() => resolve(answer), 30)),
      }),
      middleware: tracewardenMiddleware({ tracer, policy, pricing: false }),
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    const outcome = await model
      .doGenerate({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
        abortSignal: controller.signal,
      })
      .then(
        (result) => ({ delivered: result.content }),
        (error: unknown) => ({ error }),
      );
    expect(outcome).not.toHaveProperty('delivered');
    expect(
      tracer
        .blocks()
        .filter((block) => block.payload.role === 'assistant')
        .map((block) => block.metadata.status),
    ).toEqual(['cancelled']);
  });
});
