import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stitchBlocks } from '../stitching/index.js';
import { createTracer, type Tracer } from '../tracing/index.js';
import { validateBlocks } from '../validation/index.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';
import type { NeutralMessage } from './types.js';

const system = (text: string): NeutralMessage => ({ role: 'system', content: text });
const user = (text: string): NeutralMessage => ({ role: 'user', content: text });
const answer = (text: string): NeutralMessage => ({ role: 'assistant', content: text });

/** The recorded messages as `role: content`, calls as `call <id>`, results as `result <id>`. */
function recorded(tracer: Tracer): string[] {
  return tracer.blocks().map((block) => {
    if (block.sub_type === 'TOOL_CALL') return `call ${block.payload.call_id}`;
    if (block.sub_type === 'TOOL_RESULT') return `result ${block.payload.call_id}`;
    return `${block.payload.role}: ${block.payload.content}`;
  });
}

function expectSound(tracer: Tracer): void {
  expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  expect(stitchBlocks(tracer.blocks()).orphans).toEqual({ tool_calls: [], tool_results: [] });
}

describe('a conversation whose system prompt changes between requests', () => {
  it('records the new system prompt, not the history again (the time in the prompt, each call)', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const call = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function' as const, function: { name: 'get_inbox', arguments: '{}' } },
      ],
    };
    const output: NeutralMessage = { role: 'tool', tool_call_id: 'c1', content: '2 mails' };
    const at = (time: string) => system(`You help with mail. It is ${time}.`);
    recorder
      .start({ provider: 'p', model: 'm', messages: [at('10:00'), user('my mail?')] })
      .finish({ text: null, toolCalls: [{ id: 'c1', name: 'get_inbox', arguments: '{}' }] });
    recorder
      .start({ provider: 'p', model: 'm', messages: [at('10:01'), user('my mail?'), call, output] })
      .finish({ text: 'You have 2 mails.' });
    recorder
      .start({
        provider: 'p',
        model: 'm',
        messages: [
          at('10:02'),
          user('my mail?'),
          call,
          output,
          answer('You have 2 mails.'),
          user('thanks'),
        ],
      })
      .finish({ text: 'Welcome.' });
    expect(recorded(tracer)).toEqual([
      'system: You help with mail. It is 10:00.',
      'user: my mail?',
      'assistant: null',
      'call c1',
      'system: You help with mail. It is 10:01.',
      'result c1',
      'assistant: You have 2 mails.',
      'system: You help with mail. It is 10:02.',
      'user: thanks',
      'assistant: Welcome.',
    ]);
    expectSound(tracer);
  });

  it('another conversation on the same trace that opens with the same user message is recorded whole', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    recorder
      .start({ provider: 'p', model: 'm', messages: [system('You are A.'), user('hi')] })
      .finish({ text: 'Hello from A.' });
    recorder
      .start({ provider: 'p', model: 'm', messages: [system('You are B.'), user('hi')] })
      .finish({ text: 'Hello from B.' });
    expect(recorded(tracer)).toEqual([
      'system: You are A.',
      'user: hi',
      'assistant: Hello from A.',
      'system: You are B.',
      'user: hi',
      'assistant: Hello from B.',
    ]);
  });

  it('two conversations on one trace with the same opening and answer, each prompt changing: nothing of either is lost', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const hello = 'Hello! How can I help?';
    for (const who of ['Ann', 'Bob'])
      recorder
        .start({ provider: 'p', model: 'm', messages: [system(`${who} 10:00`), user('hi')] })
        .finish({ text: hello });
    // the same next message in both: only the conversation tells them apart
    for (const who of ['Ann', 'Bob'])
      recorder
        .start({
          provider: 'p',
          model: 'm',
          messages: [system(`${who} 10:01`), user('hi'), answer(hello), user('track my order')],
        })
        .finish({ text: `Tracking for ${who}.` });
    const lines = recorded(tracer);
    expect(lines.filter((line) => line === 'user: track my order')).toHaveLength(2);
    for (const who of ['Ann', 'Bob']) expect(lines).toContain(`assistant: Tracking for ${who}.`);
    expectSound(tracer);
  });

  it('two such conversations whose calls have no ids (Gemini): each result is recorded under its own call', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const call = { id: '', name: 'get_weather', arguments: '{"city":"Paris"}' };
    const proposed: NeutralMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: '',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        },
      ],
    };
    for (const who of ['Ann', 'Bob'])
      recorder
        .start({ provider: 'p', model: 'm', messages: [system(`${who} 10:00`), user('weather?')] })
        .finish({ text: null, toolCalls: [call] });
    for (const [who, weather] of [
      ['Ann', 'sunny'],
      ['Bob', 'rainy'],
    ] as const)
      recorder
        .start({
          provider: 'p',
          model: 'm',
          messages: [
            system(`${who} 10:01`),
            user('weather?'),
            proposed,
            { role: 'tool', tool_call_id: '', content: weather },
          ],
        })
        .finish({ text: `${who}: it is ${weather}.` });
    const calls = tracer.blocks().filter((block) => block.sub_type === 'TOOL_CALL');
    const results = tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(calls).toHaveLength(2);
    expect(results.map((block) => block.payload.output).sort()).toEqual(['rainy', 'sunny']);
    expect(new Set(results.map((block) => block.parent_block_id)).size).toBe(2);
    expectSound(tracer);
  });

  it('going back to an earlier system prompt records nothing twice', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    recorder
      .start({ provider: 'p', model: 'm', messages: [system('mode 1'), user('q1')] })
      .finish({ text: 'a1' });
    recorder
      .start({
        provider: 'p',
        model: 'm',
        messages: [system('mode 2'), user('q1'), answer('a1'), user('q2')],
      })
      .finish({ text: 'a2' });
    recorder
      .start({
        provider: 'p',
        model: 'm',
        messages: [
          system('mode 1'),
          user('q1'),
          answer('a1'),
          user('q2'),
          answer('a2'),
          user('q3'),
        ],
      })
      .finish({ text: 'a3' });
    expect(recorded(tracer)).toEqual([
      'system: mode 1',
      'user: q1',
      'assistant: a1',
      'system: mode 2',
      'user: q2',
      'assistant: a2',
      'system: mode 1',
      'user: q3',
      'assistant: a3',
    ]);
  });

  it('property: whatever system prompt each request carries, every user message and answer is recorded once, and each change of system prompt once', () => {
    fc.assert(
      fc.property(
        // per turn: which of three system prompts the request carries
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 8 }),
        (prompts) => {
          const tracer = createTracer();
          const recorder = createModelCallRecorder({ tracer });
          const history: NeutralMessage[] = [];
          let changes = 0;
          let last: number | undefined;
          prompts.forEach((prompt, turn) => {
            history.push(user(`question ${turn}`));
            if (prompt !== last) changes++;
            last = prompt;
            recorder
              .start({
                provider: 'p',
                model: 'm',
                messages: [system(`prompt ${prompt}`), ...history],
              })
              .finish({ text: `answer ${turn}` });
            history.push(answer(`answer ${turn}`));
          });
          const lines = recorded(tracer);
          for (let turn = 0; turn < prompts.length; turn++) {
            expect(lines.filter((line) => line === `user: question ${turn}`)).toHaveLength(1);
            expect(lines.filter((line) => line === `assistant: answer ${turn}`)).toHaveLength(1);
          }
          expect(lines.filter((line) => line.startsWith('system:'))).toHaveLength(changes);
          expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
        },
      ),
    );
  });
});
