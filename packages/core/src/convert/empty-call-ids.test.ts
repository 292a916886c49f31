import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTrace } from '../model/parse-trace.js';
import { stitchBlocks } from '../stitching/stitch-blocks.js';
import { blocksToEvents } from './blocks-to-events.js';
import { eventsToBlocks } from './events-to-blocks.js';

/** A Gemini-backed agent's run as published: `""` for every tool call id, on both sides. */
const geminiRun = [
  { role: 'user', content: 'What is the weather in Paris and in Rome?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: '', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
    ],
  },
  { role: 'assistant', content: 'Let me check Paris first.' },
  { role: 'tool', tool_call_id: '', content: '18°C, sunny' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: '', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
    ],
  },
  { role: 'tool', tool_call_id: '', content: '24°C, clear' },
  { role: 'assistant', content: 'Paris 18°C, Rome 24°C.' },
];

describe('empty tool call ids ("" means absent)', () => {
  it('parseTrace links each output to its call by the order rule (decision 002)', () => {
    const trace = parseTrace(geminiRun);
    const callIdOf = (index: number) =>
      (trace[index] as { tool_calls?: { id: string }[] }).tool_calls?.[0]?.id;
    const paris = callIdOf(1);
    const rome = callIdOf(4);
    expect(paris).toBe('call_1_0');
    expect(rome).toBe('call_4_0');
    expect(trace[3]?.tool_call_id).toBe(paris);
    expect(trace[5]?.tool_call_id).toBe(rome);
    // idempotent: parsing again changes nothing
    expect(parseTrace(trace)).toEqual(trace);
  });

  it('every tool result arrives under its call after conversion to blocks, and back', () => {
    const blocks = eventsToBlocks(parseTrace(geminiRun), { traceId: 'tr_gemini', startTime: 0 });
    expect(blocks.filter((block) => block.sub_type === 'TOOL_RESULT')).toHaveLength(2);
    const stitched = stitchBlocks(blocks, { traceId: 'tr_gemini' });
    const outputs = stitched.messages.flatMap((message) =>
      message.tool_calls.map((call) => [call.block.payload.arguments, call.output]),
    );
    expect(outputs).toEqual([
      [{ city: 'Paris' }, '18°C, sunny'],
      [{ city: 'Rome' }, '24°C, clear'],
    ]);
    expect(stitched.orphans.tool_results).toHaveLength(0);
    expect(parseTrace(blocksToEvents(blocks))).toEqual(parseTrace(geminiRun));
  });

  it('an output with "" is treated exactly like one without tool_call_id', () => {
    const event = fc.record({
      role: fc.constantFrom('user', 'assistant', 'tool'),
      withCall: fc.boolean(),
      id: fc.constantFrom(undefined, null, ''),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), (shapes) => {
        const build = (emptyAs: 'absent' | 'empty') =>
          shapes.map((shape, i) => {
            if (shape.role === 'tool') {
              const out: Record<string, unknown> = { role: 'tool', content: `out ${i}` };
              if (emptyAs === 'empty') out.tool_call_id = shape.id;
              return out;
            }
            if (shape.role === 'assistant' && shape.withCall)
              return {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    ...(emptyAs === 'empty' ? { id: shape.id } : {}),
                    function: { name: 'f', arguments: '{}' },
                  },
                ],
              };
            return { role: shape.role, content: `text ${i}` };
          });
        const absent = parseTrace(build('absent'));
        const empty = parseTrace(build('empty')).map((event) => {
          // what the input had besides the links is kept as given (null / undefined ids)
          const { tool_call_id: _id, ...rest } = event as Record<string, unknown>;
          return rest;
        });
        const strip = (trace: typeof absent) =>
          trace.map((event) => {
            const { tool_call_id: _id, ...rest } = event as Record<string, unknown>;
            return rest;
          });
        expect(empty).toEqual(strip(absent));
        expect(parseTrace(build('empty')).map((e) => e.tool_call_id)).toEqual(
          absent.map((e) => e.tool_call_id),
        );
      }),
    );
  });
});
