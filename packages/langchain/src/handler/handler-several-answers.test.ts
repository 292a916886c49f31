import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { ChatOpenAI } from '@langchain/openai';
import { ConfigurationError, createTracer, parsePolicy } from '@tracewarden/core';
import { type ScriptedServer, startScriptedServer } from '@tracewarden/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { expectSoundTrace, responses } from '../__fixtures__/trace-checks.js';
import { TracewardenCallbackHandler } from './tracewarden-callback-handler.js';

const noMail = parsePolicy(`
raise "no mail" if:
    (call: ToolCall)
    call is tool:send_email
`);

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A chat model that answers twice per call without being asked (no `n` in its parameters). */
class TwoAnswers extends BaseChatModel {
  _llmType(): string {
    return 'two-answers';
  }
  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const mail = new AIMessage({
      content: '',
      tool_calls: [
        { name: 'send_email', args: { to: 'x@evil.test' }, id: 'call_2', type: 'tool_call' },
      ],
    });
    return {
      generations: [
        { text: 'fine', message: new AIMessage('fine') },
        { text: '', message: mail },
      ],
    };
  }
}

describe('several answers per call with a policy', () => {
  it('refuses n > 1 before the request is sent: the policy reviews one answer per call', async () => {
    server = await startScriptedServer({ turns: [{ text: 'one' }] });
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, policy: noMail, pricing: false });
    const model = new ChatOpenAI({
      model: 'gpt-4o-mini',
      apiKey: 'sk-test',
      configuration: { baseURL: server.url },
      n: 2,
      maxRetries: 0,
    });
    const error = await model.invoke('Hi', { callbacks: [handler] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as ConfigurationError).path).toBe('n');
    expect((error as Error).message).toMatch(/asked for 2 answers \(n: 2\)/);
    expect(server.requests).toHaveLength(0);
    expect(tracer.blocks()).toHaveLength(0);
  });

  it('fails a call whose model answered several times unasked, recording it as failed', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, policy: noMail, pricing: false });
    const error = await new TwoAnswers({}).invoke('Hi', { callbacks: [handler] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ConfigurationError.isInstance(error)).toBe(true);
    const blocks = expectSoundTrace(tracer);
    // no answer is recorded as reviewed, and the call is a failure naming why
    const [response] = responses(blocks);
    expect(response?.metadata).toMatchObject({
      status: 'failure',
      error: { code: 'INVALID_OPTIONS' },
    });
    expect(JSON.stringify(response?.payload)).not.toContain('fine');
    expect(blocks.some((block) => block.sub_type === 'TOOL_CALL')).toBe(false);
  });

  it('without a policy, records the first answer as before', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const answer = await new TwoAnswers({}).invoke('Hi', { callbacks: [handler] });
    expect(answer.content).toBe('fine');
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.payload).toMatchObject({ role: 'assistant', content: 'fine' });
  });
});
