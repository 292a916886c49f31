import { describe, expect, it } from 'vitest';
import { createTracer } from '../tracing/index.js';
import type { Tracer } from '../tracing/types.js';
import { validateBlocks } from '../validation/index.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';
import { recordToolResult } from './record-tool-result.js';
import type { NeutralMessage } from './types.js';

// A human-in-the-loop "edit": the model proposes a call, a person changes its arguments before
// it runs, and the next request re-sends the turn as edited. It is the recorded turn, not a new
// assistant message whose call would take the id again (`e1_2`) and a second copy of the result.

const user: NeutralMessage = { role: 'user', content: 'mail bob' };
const asked = (args: Record<string, unknown>, content: string | null = null): NeutralMessage => ({
  role: 'assistant',
  content,
  tool_calls: [
    {
      id: 'e1',
      type: 'function',
      function: { name: 'send_email', arguments: JSON.stringify(args) },
    },
  ],
});
const output: NeutralMessage = { role: 'tool', tool_call_id: 'e1', content: 'sent' };

function shape(tracer: Tracer) {
  expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  const stitched = tracer.stitched();
  expect(stitched.orphans).toEqual({ tool_calls: [], tool_results: [] });
  return stitched.messages.map((message) => [
    message.block.payload.role,
    message.block.payload.content,
    message.tool_calls.map((call) => [
      call.block.payload.call_id,
      call.block.payload.arguments,
      call.results.map((result) => result.payload.output),
    ]),
  ]);
}

describe('an answer re-sent as a person edited it', () => {
  for (const resultsBy of ['requests', 'tool-end'] as const)
    for (const edit of ['arguments', 'arguments and text'] as const)
      it(`is the recorded turn: one call, one result (${edit} edited; results by ${resultsBy})`, () => {
        const tracer = createTracer();
        const recorder = createModelCallRecorder({ tracer });
        recorder.start({ provider: 'p', model: 'm', messages: [user] }).finish({
          text: null,
          toolCalls: [{ id: 'e1', name: 'send_email', arguments: '{"to":"bob@acme.example"}' }],
        });
        if (resultsBy === 'tool-end')
          recordToolResult(tracer, {
            callId: 'e1',
            output: 'sent',
            metadata: { status: 'success' },
          });
        const edited = asked(
          { to: 'carol@acme.example' },
          edit === 'arguments' ? null : 'Sending it to Carol.',
        );
        const second = [user, edited, output];
        recorder.start({ provider: 'p', model: 'm', messages: second }).finish({ text: 'done' });
        // the whole conversation re-sent once more: nothing new
        recorder
          .start({
            provider: 'p',
            model: 'm',
            messages: [
              ...second,
              { role: 'assistant', content: 'done' },
              { role: 'user', content: 'thanks' },
            ],
          })
          .finish({ text: 'you are welcome' });
        expect(shape(tracer)).toEqual([
          ['user', 'mail bob', []],
          ['assistant', null, [['e1', { to: 'bob@acme.example' }, ['sent']]]],
          ['assistant', 'done', []],
          ['user', 'thanks', []],
          ['assistant', 'you are welcome', []],
        ]);
      });

  it('a turn with other call ids after the same prefix is still a new turn', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    recorder.start({ provider: 'p', model: 'm', messages: [user] }).finish({
      text: null,
      toolCalls: [{ id: 'e1', name: 'send_email', arguments: '{"to":"bob@acme.example"}' }],
    });
    const other: NeutralMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'x9',
          type: 'function',
          function: { name: 'send_email', arguments: '{"to":"eve@x.example"}' },
        },
      ],
    };
    recorder
      .start({
        provider: 'p',
        model: 'm',
        messages: [user, other, { role: 'tool', tool_call_id: 'x9', content: 'sent' }],
      })
      .finish({ text: 'done' });
    expect(shape(tracer)).toEqual([
      ['user', 'mail bob', []],
      ['assistant', null, [['e1', { to: 'bob@acme.example' }, []]]],
      ['assistant', null, [['x9', { to: 'eve@x.example' }, ['sent']]]],
      ['assistant', 'done', []],
    ]);
  });
});
