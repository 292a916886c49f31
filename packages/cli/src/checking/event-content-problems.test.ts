import type * as Core from '@tracewarden/core';
import { describe, expect, it, vi } from 'vitest';
import type { Problem } from '../output/index.js';
import { createStreamValidator } from './create-stream-validator.js';

// Every block read out of the list `eventsToBlocks` makes, counted: a look-up per error that
// scans the list (`blocks.find`) reads n blocks per error, so n²/2 on a file of n events
// without content, where a linear check reads each block a few times.
const reads = vi.hoisted(() => ({ count: 0 }));
vi.mock('@tracewarden/core', async (importOriginal) => {
  const core = await importOriginal<typeof Core>();
  return {
    ...core,
    eventsToBlocks: (...args: Parameters<typeof core.eventsToBlocks>) =>
      new Proxy(core.eventsToBlocks(...args), {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads.count++;
          return Reflect.get(target, key, receiver);
        },
      }),
  };
});

function validate(events: unknown[], toBlocks: boolean): Problem[] {
  const problems: Problem[] = [];
  const validator = createStreamValidator({
    file: 'events.json',
    onProblem: (problem) => problems.push(problem),
    toBlocks,
  });
  validator.add({
    type: 'trace',
    value: events,
    index: 0,
    label: '#0',
    line: 1,
    lineOfEvent: (index) => index + 1,
  });
  validator.finish();
  return problems;
}

/** `n` user events without content, each answered. */
function withoutContent(n: number): unknown[] {
  const events: unknown[] = [{ role: 'system', content: 'sys' }];
  for (let i = 0; i < n; i++)
    events.push({ role: 'user' }, { role: 'assistant', content: `ok ${i}` });
  return events;
}

describe('events without content (one VALIDATION error each on their blocks)', () => {
  it.each([false, true])(
    'are checked in linear work: each block read a few times, not once per error (toBlocks %s)',
    (toBlocks) => {
      const n = 3_000;
      const events = withoutContent(n);
      reads.count = 0;
      const problems = validate(events, toBlocks);
      expect(problems).toHaveLength(toBlocks ? n : 0);
      // a scan per error reads about n * events.length / 2 (9 million here)
      expect(reads.count).toBeGreaterThan(0);
      expect(reads.count).toBeLessThan(10 * events.length);
    },
  );

  it('still name the event, its line and the seed-002 rule under convert --to blocks', () => {
    const problems = validate(
      [
        { role: 'system', content: 'sys' },
        { role: 'user', content: null },
      ],
      true,
    );
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'VALIDATION',
        line: 2,
        address: '#0/1',
        details: expect.objectContaining({ event: 1, field: 'content' }),
      }),
    ]);
    expect(problems[0]?.message).toMatch(
      /^event 1 \(role "user"\) has no content \(content null\), .*seed-002 MESSAGE block needs non-empty content/,
    );
  });

  it.each([
    ['""', ''],
    ['[]', []],
    [
      'only text parts without text',
      [
        { type: 'text', text: '' },
        { type: 'text', text: '' },
      ],
    ],
  ])(
    'count content %s as no content (seeds 000/003: any string, or a list of parts)',
    (shown, content) => {
      const events = [
        { role: 'system', content: 'sys' },
        { role: 'user', content },
        { role: 'assistant', content: 'hi' },
      ];
      expect(validate(events, false)).toEqual([]);
      const problems = validate(events, true);
      expect(problems.map((problem) => [problem.code, problem.address])).toEqual([
        ['VALIDATION', '#0/1'],
      ]);
      expect(problems[0]?.message).toContain(
        `has no content (${shown.startsWith('only') ? shown : `content ${shown}`})`,
      );
    },
  );

  it('leave other content errors of the same blocks reported', () => {
    const problems = validate([{ role: 'user', content: 42 }], false);
    expect(problems.map((problem) => [problem.code, problem.address])).toEqual([
      ['VALIDATION', '#0/0.content'],
    ]);
    expect(problems[0]?.message).not.toContain('has no content');
  });
});
