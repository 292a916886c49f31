import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../policy/index.js';
import { createTracer } from '../tracing/index.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';
import type { NeutralMessage } from './types.js';

const policy = parsePolicy(`
# action: warn
raise "tool output mentions evil" if:
    (output: ToolOutput)
    "evil" in output.content
`);

const user = (content: string): NeutralMessage => ({ role: 'user', content });
const calls: NeutralMessage = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: 'call_1', type: 'function', function: { name: 'get_inbox', arguments: '{}' } },
  ],
};
const output: NeutralMessage = {
  role: 'tool',
  tool_call_id: 'call_1',
  content: 'mail from evil corp',
};

describe('rules on what the model read (a warn on a tool output)', () => {
  it('are recorded on the answer to the request that carried the output, once', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer, policy });
    const first = recorder.start({ provider: 'p', model: 'm', messages: [user('inbox?')] });
    first.finish({ text: null, toolCalls: [{ id: 'call_1', name: 'get_inbox', arguments: '{}' }] });
    const second = recorder.start({
      provider: 'p',
      model: 'm',
      messages: [user('inbox?'), calls, output],
    });
    const answered = second.finish({ text: 'One mail.' });
    const third = recorder.start({
      provider: 'p',
      model: 'm',
      messages: [
        user('inbox?'),
        calls,
        output,
        { role: 'assistant', content: 'One mail.' },
        user('thanks'),
      ],
    });
    third.finish({ text: 'You are welcome.' });
    const answers = tracer
      .blocks()
      .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
    expect(answers.map((block) => block.metadata.violations)).toEqual([
      undefined,
      [expect.objectContaining({ message: 'tool output mentions evil', action: 'warn' })],
      undefined,
    ]);
    expect(answers[1]?.id).toBe(answered.messageBlockId);
    // a warn never blocks: the answer is delivered as is
    expect(answered.refused).toBe(false);
  });

  it('find nothing with a policy that only checks tool calls', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({
      tracer,
      policy: { checkToolCall: () => ({ allowed: true, violations: [], truncated: false }) },
    });
    recorder
      .start({ provider: 'p', model: 'm', messages: [user('inbox?'), calls, output] })
      .finish({ text: 'ok' });
    const answer = tracer.blocks().at(-1);
    expect(answer?.metadata.violations).toBeUndefined();
  });
});
