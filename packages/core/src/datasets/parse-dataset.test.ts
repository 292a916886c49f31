import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import { parseTrace } from '../model/index.js';
import { rawDataset, rawTrace } from './__fixtures__/dataset-arbitraries.js';
import { parseDataset } from './parse-dataset.js';

const jsonObjectArbitrary = fc
  .dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  .map((value) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>);

function rejection(run: () => unknown): TraceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TraceError);
    return error as TraceError;
  }
  throw new Error('expected a TraceError');
}

describe('parseDataset', () => {
  it('parses { name, metadata, traces } and normalises each trace', () => {
    const dataset = parseDataset({
      name: 'swe-bench',
      metadata: { accuracy: 0.42 },
      traces: [
        [
          { role: 'user', content: 'send it' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                type: 'function',
                function: { name: 'send_email', arguments: '{"to":"mom@mail.com"}' },
              },
            ],
          },
          { role: 'tool', content: 'sent' },
        ],
        { messages: [{ role: 'user', content: 'hi' }], metadata: { task: 7 } },
      ],
    });
    expect(dataset.name).toBe('swe-bench');
    expect(dataset.metadata).toEqual({ accuracy: 0.42 });
    expect(dataset.traces).toHaveLength(2);
    expect(dataset.traces[0]?.metadata).toBeUndefined();
    expect('metadata' in (dataset.traces[0] ?? {})).toBe(false);
    expect(dataset.traces[0]?.messages[1]).toMatchObject({
      tool_calls: [{ id: 'call_1_0', function: { arguments: { to: 'mom@mail.com' } } }],
    });
    expect(dataset.traces[0]?.messages[2]).toMatchObject({ tool_call_id: 'call_1_0' });
    expect(dataset.traces[1]).toEqual({
      messages: [{ role: 'user', content: 'hi' }],
      metadata: { task: 7 },
    });
  });

  it("reads Invariant Explorer's raw event lists: a first { metadata } element is the trace's metadata", () => {
    const dataset = parseDataset([
      [{ metadata: { user_task: 't1' } }, { role: 'user', content: 'hi' }],
      {
        messages: [{ metadata: { a: 1, b: 1 } }, { role: 'user', content: 'yo' }],
        metadata: { b: 2 },
      },
    ]);
    expect(dataset.traces).toEqual([
      { messages: [{ role: 'user', content: 'hi' }], metadata: { user_task: 't1' } },
      { messages: [{ role: 'user', content: 'yo' }], metadata: { a: 1, b: 2 } },
    ]);
    // errors name the event by its position in the file
    const error = rejection(() =>
      parseDataset([[{ metadata: {} }, { role: 'user' }, { role: 7 }]]),
    );
    expect(error.details.path).toBe('0.2.role');
  });

  it('a trace with its metadata as a first event reads as { messages, metadata } (property)', () => {
    fc.assert(
      fc.property(rawTrace, jsonObjectArbitrary, (events, metadata) => {
        let expected: unknown;
        try {
          expected = parseDataset([{ messages: events, metadata }]);
        } catch (error) {
          expect(rejection(() => parseDataset([[{ metadata }, ...events]])).code).toBe(
            (error as TraceError).code,
          );
          return;
        }
        expect(parseDataset([[{ metadata }, ...events]])).toEqual(expected);
      }),
    );
  });

  it('accepts a bare array of traces and `events` for `messages`, with defaults', () => {
    const dataset = parseDataset([{ events: [{ role: 'user', content: 'a' }] }, []], {
      name: 'runs',
    });
    expect(dataset).toEqual({
      name: 'runs',
      metadata: {},
      traces: [{ messages: [{ role: 'user', content: 'a' }] }, { messages: [] }],
    });
    expect(parseDataset({ traces: [] }).name).toBe('dataset');
  });

  it('names the path of each problem', () => {
    const cases: [unknown, string][] = [
      [42, ''],
      [{ traces: 'no' }, 'traces'],
      [{ name: 3, traces: [] }, 'name'],
      [{ metadata: [], traces: [] }, 'metadata'],
      [{ traces: [[{ role: 'user' }], 7] }, 'traces.1'],
      [{ traces: [{ messages: 'x' }] }, 'traces.0.messages'],
      [{ traces: [{ messages: [], metadata: 1 }] }, 'traces.0.metadata'],
      [{ traces: [[{ role: 'user', content: 'ok' }, { role: 5 }]] }, 'traces.0.1.role'],
      [
        {
          traces: [
            {
              messages: [
                { role: 'assistant', tool_calls: [{ function: { name: 'f', arguments: '{bad' } }] },
              ],
            },
          ],
        },
        'traces.0.messages.0.tool_calls.0.function.arguments',
      ],
      [[[{ role: 'user', content: 1 }]], '0.0.content'],
    ];
    for (const [input, path] of cases) {
      const error = rejection(() => parseDataset(input));
      expect(error.code).toBe('VALIDATION');
      expect(error.details.path).toBe(path);
      if (path !== '') expect(error.message).toContain(path.split('.')[0]);
    }
  });

  it('is idempotent and agrees with parseTrace on every trace (property)', () => {
    fc.assert(
      fc.property(rawDataset, (raw) => {
        const dataset = parseDataset(raw);
        expect(parseDataset(dataset)).toEqual(dataset);
        dataset.traces.forEach((trace, index) => {
          const source = raw.traces[index];
          expect(trace.messages).toEqual(
            parseTrace(Array.isArray(source) ? source : source?.messages),
          );
        });
      }),
    );
  });

  it('reports lone surrogates it replaced by their address in the dataset', () => {
    const found: { path: string; count: number }[] = [];
    const dataset = parseDataset(
      {
        traces: [
          [{ role: 'user', content: 'fine' }],
          { messages: [{ metadata: { id: 'r' } }, { role: 'user', content: 'cut \ud83d' }] },
        ],
      },
      { onLoneSurrogates: (event) => found.push(event) },
    );
    expect(dataset.traces[1]?.messages[0]?.content).toBe('cut \ufffd');
    expect(found).toStrictEqual([{ path: 'traces.1.messages.1', count: 1 }]);
  });
});
