import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type {
  Block,
  MessageBlock,
  SubType,
  ThinkBlock,
  ToolCallBlock,
  ToolResultBlock,
} from '../model/index.js';
import { blockTypeOf } from '../model/index.js';
import { assembleToolOutput } from './assemble-tool-output.js';
import { compareBlocks, compareSequencedBlocks } from './compare-blocks.js';
import { stitchBlocks } from './stitch-blocks.js';
import { stitchTraces } from './stitch-traces.js';
import type { StitchedToolCall, StitchedTrace } from './types.js';

function block(
  sub_type: SubType,
  id: string,
  parent: string | null,
  created_at: string,
  payload: Record<string, unknown>,
  trace_id = 'tr_1',
): Block {
  return {
    id,
    trace_id,
    block_type: blockTypeOf[sub_type],
    sub_type,
    payload,
    parent_block_id: parent,
    metadata: {},
    raw: null,
    extra: {},
    created_at,
    updated_at: created_at,
  } as Block;
}

const t = (second: number) => `2025-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;

function ids(items: readonly { id: string }[]): string[] {
  return items.map((item) => item.id);
}

describe('stitchBlocks', () => {
  it('builds the seed tree: message → thinks, tool calls → results', () => {
    const blocks = [
      block('TOOL_RESULT', 'tb_r', 'tb_c', t(3), {
        call_id: 'call_1',
        output: { forecast: '22°C' },
      }),
      block('THINK', 'tb_t', 'tb_m', t(4), { text: 'decide to show celsius' }),
      block('TOOL_CALL', 'tb_c', 'tb_m', t(2), {
        call_id: 'call_1',
        name: 'get_weather',
        arguments: {},
      }),
      block('MESSAGE', 'tb_m', null, t(1), { role: 'user', content: "what's the weather?" }),
    ];
    const tree = stitchBlocks(blocks);
    expect(tree.trace_id).toBe('tr_1');
    expect(tree.messages).toHaveLength(1);
    const message = tree.messages[0];
    expect(message?.block.id).toBe('tb_m');
    expect(ids(message?.thinks ?? [])).toEqual(['tb_t']);
    expect(message?.tool_calls[0]?.block.id).toBe('tb_c');
    expect(ids(message?.tool_calls[0]?.results ?? [])).toEqual(['tb_r']);
    expect(message?.tool_calls[0]?.output).toEqual({ forecast: '22°C' });
    expect(tree.orphans).toEqual({ tool_calls: [], tool_results: [] });
  });

  it('orders roots by created_at then id, and calls and results by seq (missing last), created_at, id', () => {
    const blocks = [
      block('MESSAGE', 'tb_b', null, t(1), { role: 'user', content: 'b' }),
      block('MESSAGE', 'tb_a', null, t(1), { role: 'user', content: 'a' }),
      block('MESSAGE', 'tb_0', null, t(0), { role: 'system', content: 's' }),
      block('TOOL_CALL', 'tb_c2', 'tb_a', t(5), { call_id: 'c2', name: 'f', arguments: {} }),
      block('TOOL_CALL', 'tb_c1', 'tb_a', t(6), {
        call_id: 'c1',
        name: 'f',
        arguments: {},
        seq: 0,
      }),
      block('TOOL_RESULT', 'tb_r_none_late', 'tb_c2', t(9), { call_id: 'c2', delta: 'x' }),
      block('TOOL_RESULT', 'tb_r_none_early', 'tb_c2', t(8), { call_id: 'c2', delta: 'y' }),
      block('TOOL_RESULT', 'tb_r_seq1', 'tb_c2', t(1), { call_id: 'c2', delta: 'b', seq: 1 }),
      block('TOOL_RESULT', 'tb_r_seq0', 'tb_c2', t(7), { call_id: 'c2', delta: 'a', seq: 0 }),
      block('THINK', 'tb_t2', 'tb_a', t(3), { text: 'two' }),
      block('THINK', 'tb_t1', 'tb_a', t(2), { text: 'one' }),
    ];
    const tree = stitchBlocks(blocks);
    expect(tree.messages.map((m) => m.block.id)).toEqual(['tb_0', 'tb_a', 'tb_b']);
    const message = tree.messages[1];
    expect(ids(message?.thinks ?? [])).toEqual(['tb_t1', 'tb_t2']);
    expect(message?.tool_calls.map((c) => c.block.id)).toEqual(['tb_c1', 'tb_c2']);
    const call = message?.tool_calls[1];
    expect(ids(call?.results ?? [])).toEqual([
      'tb_r_seq0',
      'tb_r_seq1',
      'tb_r_none_early',
      'tb_r_none_late',
    ]);
    expect(call?.output).toBe('abyx');
    expect(message?.tool_calls[0]).not.toHaveProperty('output');
  });

  it('assembles non-string deltas into an array, and lets a result with output win', () => {
    const base = [
      block('MESSAGE', 'tb_m', null, t(0), { role: 'assistant', content: null }),
      block('TOOL_CALL', 'tb_c', 'tb_m', t(1), { call_id: 'c', name: 'f', arguments: {} }),
    ];
    const deltas = stitchBlocks([
      ...base,
      block('TOOL_RESULT', 'tb_r2', 'tb_c', t(2), { call_id: 'c', delta: { rows: 2 }, seq: 1 }),
      block('TOOL_RESULT', 'tb_r1', 'tb_c', t(2), { call_id: 'c', delta: 'first', seq: 0 }),
    ]);
    expect(deltas.messages[0]?.tool_calls[0]?.output).toEqual(['first', { rows: 2 }]);
    const withOutput = stitchBlocks([
      ...base,
      block('TOOL_RESULT', 'tb_r1', 'tb_c', t(2), { call_id: 'c', delta: 'partial', seq: 0 }),
      block('TOOL_RESULT', 'tb_r2', 'tb_c', t(3), { call_id: 'c', output: 'complete' }),
    ]);
    expect(withOutput.messages[0]?.tool_calls[0]?.output).toBe('complete');
  });

  it('collects orphans: calls without a MESSAGE parent, results without a call, thinks without a message', () => {
    const tree = stitchBlocks([
      block('MESSAGE', 'tb_m', null, t(0), { role: 'user', content: 'x' }),
      block('TOOL_CALL', 'tb_c', 'tb_m', t(1), { call_id: 'c', name: 'f', arguments: {} }),
      block('TOOL_CALL', 'tb_lost', 'tb_missing', t(2), { call_id: 'd', name: 'f', arguments: {} }),
      block('TOOL_CALL', 'tb_under_call', 'tb_c', t(3), { call_id: 'e', name: 'f', arguments: {} }),
      block('TOOL_RESULT', 'tb_r_lost', 'tb_nothing', t(4), { call_id: 'z', output: 1 }),
      block('TOOL_RESULT', 'tb_r_of_orphan', 'tb_lost', t(5), { call_id: 'd', output: 2 }),
      block('THINK', 'tb_t_lost', 'tb_c', t(6), { text: 'x' }),
    ]);
    expect(tree.orphans.tool_calls.map((c) => c.block.id)).toEqual(['tb_lost', 'tb_under_call']);
    expect(tree.orphans.tool_calls[0]?.output).toBe(2);
    expect(ids(tree.orphans.tool_results)).toEqual(['tb_r_lost']);
    expect(ids(tree.orphans.thinks ?? [])).toEqual(['tb_t_lost']);
  });

  it('stitches only one trace: options.traceId, else the first block’s', () => {
    const blocks = [
      block('MESSAGE', 'tb_1', null, t(0), { role: 'user', content: 'one' }, 'tr_1'),
      block('MESSAGE', 'tb_2', null, t(0), { role: 'user', content: 'two' }, 'tr_2'),
      block('TOOL_CALL', 'tb_c', 'tb_2', t(1), { call_id: 'c', name: 'f', arguments: {} }, 'tr_1'),
    ];
    const first = stitchBlocks(blocks);
    expect(first.messages.map((m) => m.block.id)).toEqual(['tb_1']);
    expect(first.orphans.tool_calls.map((c) => c.block.id)).toEqual(['tb_c']);
    expect(stitchBlocks(blocks, { traceId: 'tr_2' }).messages.map((m) => m.block.id)).toEqual([
      'tb_2',
    ]);
    expect(stitchBlocks([])).toEqual({
      trace_id: '',
      messages: [],
      orphans: { tool_calls: [], tool_results: [] },
    });
  });

  it('accepts blocks parsed from JSON with fields missing, without crashing', () => {
    const parsed = JSON.parse(
      '[{"id":"tb_m","trace_id":"tr_1","sub_type":"MESSAGE","payload":{"role":"user","content":"x"}},' +
        '{"id":"tb_c","trace_id":"tr_1","sub_type":"TOOL_CALL","parent_block_id":"tb_m"},' +
        '{"trace_id":"tr_1","sub_type":"TOOL_RESULT","parent_block_id":"tb_c","payload":null},' +
        '{"trace_id":"tr_1","sub_type":"SOMETHING_ELSE"},null,3]',
    ) as Block[];
    const tree = stitchBlocks(parsed);
    expect(tree.messages[0]?.tool_calls[0]?.results).toHaveLength(1);
    expect(tree.messages[0]?.tool_calls[0]).not.toHaveProperty('output');
  });

  it('compares timestamps of different formats by time', () => {
    const tree = stitchBlocks([
      block('MESSAGE', 'tb_a', null, '2025-01-01T00:00:00.500Z', {
        role: 'user',
        content: 'later',
      }),
      block('MESSAGE', 'tb_b', null, '2025-01-01T00:00:00Z', { role: 'user', content: 'earlier' }),
      block('MESSAGE', 'tb_c', null, '2025-01-01T01:00:00.100+02:00', {
        role: 'user',
        content: 'earliest',
      }),
    ]);
    expect(tree.messages.map((m) => m.block.id)).toEqual(['tb_c', 'tb_b', 'tb_a']);
  });

  it('breaks a tie between one instant written two ways by id, as the seed orders', () => {
    const tree = stitchBlocks([
      block('MESSAGE', 'tb_m', null, t(0), { role: 'user', content: 'q' }),
      block('TOOL_CALL', 'tb_c', 'tb_m', t(1), { call_id: 'k', name: 'f', arguments: {} }),
      block('TOOL_RESULT', 'tb_b', 'tb_c', '2025-01-01T00:00:02.000Z', {
        call_id: 'k',
        delta: 'B',
      }),
      block('TOOL_RESULT', 'tb_a', 'tb_c', '2025-01-01T00:00:02Z', { call_id: 'k', delta: 'A' }),
      block('TOOL_RESULT', 'tb_d', 'tb_c', '2025-01-01T01:00:02+01:00', {
        call_id: 'k',
        delta: 'D',
      }),
    ]);
    const call = tree.messages[0]?.tool_calls[0];
    expect(call?.results.map((result) => result.id)).toEqual(['tb_a', 'tb_b', 'tb_d']);
    expect(call?.output).toBe('ABD');
  });

  it('orders timestamps in any ISO form by instant, then id: a total order (property)', () => {
    // the same few instants (sub-millisecond digits included) written in several forms
    const instants = ['00:00:01', '00:00:01.0005', '00:00:01.001', '00:00:02'];
    const written = (instant: string, form: number): string => {
      const [hms, digits = ''] = instant.split('.');
      if (form === 0) return `2025-01-01T${hms}.${digits.padEnd(3, '0')}Z`;
      if (form === 1) return `2025-01-01T${hms}${digits === '' ? '' : `.${digits}`}Z`;
      const [h, rest] = [Number(hms?.slice(0, 2)), hms?.slice(2)];
      return `2025-01-01T${String(h + 1).padStart(2, '0')}${rest}${digits === '' ? '' : `.${digits}`}+01:00`;
    };
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(instants.length - 1), fc.nat(2), fc.nat(5)), { maxLength: 12 }),
        (specs) => {
          const blocks = specs.map(([instant, form, id], index) => ({
            id: `tb_${id}`,
            created_at: written(instants[instant] as string, form),
            key: [instant, id, index] as const,
          }));
          const sorted = [...blocks].sort(compareBlocks);
          for (let i = 1; i < sorted.length; i++) {
            const [instantA, idA] = (sorted[i - 1] as (typeof blocks)[number]).key;
            const [instantB, idB] = (sorted[i] as (typeof blocks)[number]).key;
            expect(instantA < instantB || (instantA === instantB && idA <= idB)).toBe(true);
          }
        },
      ),
    );
  });

  it('orders a leap second (23:59:60) by its instant, whatever the input order (property)', () => {
    const stamps = [
      '2024-01-01T23:45:00.000Z',
      '2024-01-01T23:59:59.500Z',
      '2024-01-01T23:59:60.000Z',
      '2024-01-01T23:59:60.500Z',
      '2024-01-02T00:30:00.000+01:00',
      '2024-01-02T00:00:01Z',
    ];
    fc.assert(
      fc.property(
        fc.shuffledSubarray(
          stamps.map((created_at, index) => ({ id: `tb_${index}`, created_at })),
          { minLength: 2 },
        ),
        (blocks) => {
          // by instant: +01:00 is 23:30Z; second 60 comes after 59.5 and before 00:00:01
          const instantOrder = ['tb_4', 'tb_0', 'tb_1', 'tb_2', 'tb_3', 'tb_5'];
          const order = [...blocks].sort(compareBlocks).map((block) => block.id);
          expect(order).toEqual(instantOrder.filter((id) => order.includes(id)));
        },
      ),
    );
  });

  it('is deterministic even with duplicate ids (invalid input)', () => {
    const blocks = [
      block('MESSAGE', 'tb_m', null, t(0), { role: 'user', content: 'first copy' }),
      block('MESSAGE', 'tb_m', null, t(0), { role: 'user', content: 'second copy' }),
      block('THINK', 'tb_t', 'tb_m', t(1), { text: 'x' }),
    ];
    const tree = stitchBlocks(blocks);
    expect(tree.messages).toHaveLength(2);
    expect(stitchBlocks([...blocks].reverse())).toEqual(tree);
  });

  it('gives the same tree for any order of the same blocks (property)', () => {
    fc.assert(
      fc.property(blockSet, fc.integer(), (blocks, seed) => {
        expect(stitchBlocks(shuffle(blocks, seed), { traceId: 'tr_1' })).toEqual(
          stitchBlocks(blocks, { traceId: 'tr_1' }),
        );
      }),
    );
  });

  it('places every block of the trace exactly once (property)', () => {
    fc.assert(
      fc.property(blockSet, (blocks) => {
        const tree = stitchBlocks(blocks, { traceId: 'tr_1' });
        const seen: string[] = [];
        const calls = [...tree.orphans.tool_calls];
        for (const message of tree.messages) {
          seen.push(message.block.id, ...ids(message.thinks));
          calls.push(...message.tool_calls);
        }
        for (const call of calls) seen.push(call.block.id, ...ids(call.results));
        seen.push(...ids(tree.orphans.tool_results), ...ids(tree.orphans.thinks ?? []));
        expect(seen.sort()).toEqual(
          blocks
            .filter((b) => b.trace_id === 'tr_1')
            .map((b) => b.id)
            .sort(),
        );
      }),
    );
  });
});

describe('stitchTraces', () => {
  it('stitches each trace, sorted by trace_id, whatever the order', () => {
    const blocks = [
      block('MESSAGE', 'tb_2', null, t(0), { role: 'user', content: 'two' }, 'tr_2'),
      block('MESSAGE', 'tb_1', null, t(0), { role: 'user', content: 'one' }, 'tr_1'),
      block('TOOL_CALL', 'tb_c', 'tb_2', t(1), { call_id: 'c', name: 'f', arguments: {} }, 'tr_2'),
    ];
    const trees = stitchTraces(blocks);
    expect(trees.map((tree) => tree.trace_id)).toEqual(['tr_1', 'tr_2']);
    expect(trees[1]?.messages[0]?.tool_calls[0]?.block.id).toBe('tb_c');
    expect(stitchTraces([...blocks].reverse())).toEqual(trees);
  });
});

function shuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

// Few distinct timestamps and seqs so that ties are common; some parents dangle; some blocks
// belong to another trace.
const blockSet = fc
  .array(
    fc.record({
      sub_type: fc.constantFrom<SubType>('MESSAGE', 'TOOL_CALL', 'TOOL_RESULT', 'THINK'),
      parent: fc.nat(40),
      second: fc.nat(3),
      seq: fc.option(fc.nat(2), { nil: undefined }),
      output: fc.option(fc.string({ maxLength: 2 }), { nil: undefined }),
      otherTrace: fc.boolean(),
    }),
    { maxLength: 40 },
  )
  .map((specs) =>
    specs.map((spec, index) => {
      const payload: Record<string, unknown> = { call_id: `c${spec.parent}` };
      if (spec.seq !== undefined) payload.seq = spec.seq;
      if (spec.sub_type === 'TOOL_RESULT') {
        if (spec.output === undefined) payload.delta = `d${index}`;
        else payload.output = spec.output;
      }
      return block(
        spec.sub_type,
        `tb_${String(index).padStart(2, '0')}`,
        spec.sub_type === 'MESSAGE' ? null : `tb_${String(spec.parent).padStart(2, '0')}`,
        t(spec.second),
        payload,
        spec.otherTrace && index % 5 === 0 ? 'tr_2' : 'tr_1',
      );
    }),
  );

describe('stitchBlocks against a reference (property)', () => {
  it('equals a plain sort-and-filter stitch, duplicate ids included', () => {
    fc.assert(
      fc.property(blockSet, fc.integer(), (blocks, seed) => {
        const shuffled = shuffle(blocks, seed);
        expect(stitchBlocks(shuffled, { traceId: 'tr_1' })).toStrictEqual(
          referenceStitch(blocks, 'tr_1'),
        );
      }),
      { numRuns: 300 },
    );
  });
});

// The seed's rules written as plainly as possible: quadratic, but obviously right. With
// duplicate ids the parent that sorts first owns the children.
function referenceStitch(blocks: readonly Block[], traceId: string): StitchedTrace {
  const mine = blocks.filter((block) => block.trace_id === traceId);
  const of = (subType: SubType) =>
    mine.filter((block) => block.sub_type === subType).sort(compareBlocks);
  const owner = (subType: SubType, id: string | null) =>
    of(subType).find((block) => block.id === id);
  const callNode = (call: Block): StitchedToolCall => {
    const results = of('TOOL_RESULT')
      .filter((result) => owner('TOOL_CALL', result.parent_block_id) === call)
      .sort(compareSequencedBlocks) as ToolResultBlock[];
    const node: StitchedToolCall = { block: call as ToolCallBlock, results };
    const output = assembleToolOutput(results);
    if (output !== undefined) node.output = output;
    return node;
  };
  const callsUnder = (message: Block | undefined) =>
    of('TOOL_CALL')
      .filter((call) => owner('MESSAGE', call.parent_block_id) === message)
      .sort(compareSequencedBlocks)
      .map(callNode);
  const tree: StitchedTrace = {
    trace_id: traceId,
    messages: of('MESSAGE').map((message) => ({
      block: message as MessageBlock,
      thinks: of('THINK').filter(
        (think) => owner('MESSAGE', think.parent_block_id) === message,
      ) as ThinkBlock[],
      tool_calls: callsUnder(message),
    })),
    orphans: {
      tool_calls: callsUnder(undefined),
      tool_results: of('TOOL_RESULT')
        .filter((result) => owner('TOOL_CALL', result.parent_block_id) === undefined)
        .sort(compareSequencedBlocks) as ToolResultBlock[],
    },
  };
  const orphanThinks = of('THINK').filter(
    (think) => owner('MESSAGE', think.parent_block_id) === undefined,
  ) as ThinkBlock[];
  if (orphanThinks.length > 0) tree.orphans.thinks = orphanThinks;
  return tree;
}
