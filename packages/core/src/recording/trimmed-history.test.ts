import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTracer } from '../tracing/create-tracer.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';
import type { NeutralMessage } from './types.js';

// A chat app that sends the system prompt (or not) and the last `window` messages of its
// history: every message and answer is recorded once, as when the whole history is re-sent.
function record(
  questions: readonly string[],
  window: number,
  system: boolean,
): { role: string; content: unknown }[] {
  const tracer = createTracer();
  const recorder = createModelCallRecorder({ tracer, onRecordingError: () => {} });
  const history: NeutralMessage[] = [];
  questions.forEach((question, turn) => {
    history.push({ role: 'user', content: question });
    const messages: NeutralMessage[] = [
      ...(system ? [{ role: 'system', content: 'be brief' } as NeutralMessage] : []),
      ...structuredClone(history.slice(-window)),
    ];
    const answer = `answer ${turn}`;
    recorder.start({ provider: 'p', model: 'm', messages }).finish({ text: answer, toolCalls: [] });
    history.push({ role: 'assistant', content: answer });
  });
  return tracer
    .blocks()
    .filter((block) => block.sub_type === 'MESSAGE')
    .map((block) => {
      const payload = block.payload as { role: string; content: unknown };
      return { role: payload.role, content: payload.content };
    });
}

describe('a history trimmed from the front', () => {
  it('property: any window of two or more messages records each question and answer once, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('yes', 'no', 'why?', 'go on', 'thanks'), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer({ min: 2, max: 8 }),
        fc.boolean(),
        (questions, window, system) => {
          const expected = [
            ...(system ? [{ role: 'system', content: 'be brief' }] : []),
            ...questions.flatMap((question, turn) => [
              { role: 'user', content: question },
              { role: 'assistant', content: `answer ${turn}` },
            ]),
          ];
          expect(record(questions, window, system)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
