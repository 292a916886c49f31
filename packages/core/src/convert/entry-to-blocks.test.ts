import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import type { ToolCallBlock, ToolResultBlock, TraceEntry } from '../model/index.js';
import {
  BlockSchema,
  createSequentialIds,
  ToolCallStatusSchema,
  TraceEntrySchema,
} from '../model/index.js';
import { blocksToEntry } from './blocks-to-entry.js';
import { entryToBlocks, type GuardedCallRecord, guardedCallToBlocks } from './entry-to-blocks.js';

const options = () => ({ traceId: 'tr_1', parentBlockId: 'tb_msg', ids: createSequentialIds() });

const entry: TraceEntry = {
  call: {
    call_id: '6f1c2a1e-0000-4000-8000-000000000001',
    tool_name: 'search_web',
    args: [],
    kwargs: { query: 'weather in Bogotá' },
    timestamp: '2025-01-01T12:00:00.000Z',
    session_id: 'session-1',
    metadata: { user: 'ana' },
  },
  result: {
    call_id: '6f1c2a1e-0000-4000-8000-000000000001',
    tool_name: 'search_web',
    status: 'success',
    return_value: { results: ['22°C'] },
    exception: null,
    exception_type: null,
    execution_time_ms: 12.5,
    retry_count: 1,
    validations: [{ valid: true, kind: 'schema', message: 'ok', details: {} }],
    hallucination: null,
    cost: 0.001,
    timestamp: '2025-01-01T12:00:00.013Z',
    metadata: { attempts: 2 },
  },
};

describe('entryToBlocks', () => {
  it('maps a seed 004 entry to a TOOL_CALL and a TOOL_RESULT under it', () => {
    const [call, result] = entryToBlocks(entry, options());
    expect(call).toMatchObject({
      id: 'tb_000001',
      trace_id: 'tr_1',
      block_type: 'ACT',
      sub_type: 'TOOL_CALL',
      parent_block_id: 'tb_msg',
      payload: {
        call_id: entry.call.call_id,
        name: 'search_web',
        arguments: { query: 'weather in Bogotá' },
      },
      metadata: { timestamp: entry.call.timestamp, session_id: 'session-1', user: 'ana' },
      created_at: '2025-01-01T12:00:00.000Z',
    });
    expect(call.payload).not.toHaveProperty('args');
    expect(result).toMatchObject({
      block_type: 'OBSERVE',
      sub_type: 'TOOL_RESULT',
      parent_block_id: call.id,
      payload: { call_id: entry.result.call_id, output: { results: ['22°C'] } },
      metadata: {
        status: 'success',
        execution_time_ms: 12.5,
        retry_count: 1,
        cost: 0.001,
        attempts: 2,
      },
      created_at: '2025-01-01T12:00:00.013Z',
    });
    expect(BlockSchema.safeParse(call).success).toBe(true);
    expect(BlockSchema.safeParse(result).success).toBe(true);
  });

  it('puts the exception in output when a call failed without a value, and reads zone-less timestamps as UTC', () => {
    const failed: TraceEntry = {
      call: { ...entry.call, args: [1, 'two'], timestamp: '2025-01-01T12:00:00.123456' },
      result: {
        ...entry.result,
        status: 'timeout',
        return_value: null,
        exception: 'timed out after 5s',
        exception_type: 'agentguard.errors.ToolTimeoutError',
      },
    };
    const [call, result] = entryToBlocks(failed, options());
    expect(call.payload.args).toEqual([1, 'two']);
    expect(call.created_at).toBe('2025-01-01T12:00:00.123Z');
    expect(result.payload.output).toBe('timed out after 5s');
    expect(result.metadata).toMatchObject({
      exception_type: 'agentguard.errors.ToolTimeoutError',
      output_source: 'exception',
    });
    expect(blocksToEntry([call, result])).toStrictEqual(failed);
  });

  it('nests record metadata that would collide with its own keys', () => {
    const colliding: TraceEntry = {
      call: { ...entry.call, metadata: { timestamp: 'user value' } },
      result: { ...entry.result, metadata: { status: 'user status' } },
    };
    const [call, result] = entryToBlocks(colliding, options());
    expect(call.metadata.call_metadata).toEqual({ timestamp: 'user value' });
    expect(result.metadata.status).toBe('success');
    expect(result.metadata.result_metadata).toEqual({ status: 'user status' });
    expect(blocksToEntry([call, result])).toStrictEqual(colliding);
  });
});

describe('blocksToEntry', () => {
  it('gives back the entry', () => {
    expect(blocksToEntry(entryToBlocks(entry, options()))).toStrictEqual(entry);
  });

  it('fills defaults for blocks a tracer logged directly', () => {
    const call = {
      id: 'tb_c',
      trace_id: 'tr_1',
      block_type: 'ACT',
      sub_type: 'TOOL_CALL',
      parent_block_id: 'tb_m',
      payload: { call_id: 'c', name: 'f', arguments: { a: 1 } },
      metadata: {},
      raw: null,
      extra: {},
      created_at: '2025-01-01T00:00:00.000Z',
      updated_at: '2025-01-01T00:00:00.000Z',
    } as ToolCallBlock;
    const result = {
      ...call,
      id: 'tb_r',
      block_type: 'OBSERVE',
      sub_type: 'TOOL_RESULT',
      parent_block_id: 'tb_c',
      payload: { call_id: 'c', output: 'done' },
    } as unknown as ToolResultBlock;
    const back = blocksToEntry([call, result]);
    expect(TraceEntrySchema.safeParse(back).success).toBe(true);
    expect(back.result).toMatchObject({
      status: 'success',
      return_value: 'done',
      retry_count: 0,
      cost: null,
    });
  });

  it('rejects blocks of the wrong sub types with VALIDATION', () => {
    const [call, result] = entryToBlocks(entry, options());
    expect(() => blocksToEntry([result as never, call as never])).toThrow(TraceError);
  });
});

describe('entry round trip (property)', () => {
  it('blocksToEntry(entryToBlocks(e)) equals e', () => {
    const json = fc.jsonValue({ maxDepth: 2 });
    const metadata = fc.dictionary(
      fc.oneof(
        fc.string({ maxLength: 6 }),
        fc.constantFrom('timestamp', 'status', 'cost', 'call_metadata', 'result_metadata'),
      ),
      json,
      { maxKeys: 3 },
    );
    const timestamp = fc
      .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
      .map((date) => date.toISOString());
    const arbitraryEntry = fc.record({
      call: fc.record({
        call_id: fc.uuid(),
        tool_name: fc.constantFrom('search', 'sql'),
        args: fc.array(json, { maxLength: 2 }),
        kwargs: fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 3 }),
        timestamp,
        session_id: fc.option(fc.string({ maxLength: 6 }), { nil: null }),
        metadata,
      }),
      result: fc.record(
        {
          call_id: fc.uuid(),
          tool_name: fc.constantFrom('search', 'other'),
          status: fc.constantFrom(...ToolCallStatusSchema.options),
          return_value: json,
          exception: fc.option(fc.string({ maxLength: 6 }), { nil: null }),
          exception_type: fc.option(fc.string({ maxLength: 6 }), { nil: null }),
          execution_time_ms: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e6 }),
          retry_count: fc.nat(5),
          validations: fc.array(
            fc.record({
              valid: fc.boolean(),
              kind: fc.constantFrom('schema', 'hallucination', 'semantic', 'custom' as const),
              message: fc.string({ maxLength: 6 }),
              details: fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 2 }),
            }),
            { maxLength: 2 },
          ),
          hallucination: fc.option(
            fc.record({
              is_hallucinated: fc.boolean(),
              confidence: fc.double({ min: 0, max: 1, noNaN: true }),
              reason: fc.string({ maxLength: 6 }),
              signals: fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 2 }),
            }),
            { nil: null },
          ),
          cost: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
          timestamp,
          metadata,
        },
        {
          requiredKeys: [
            'call_id',
            'tool_name',
            'status',
            'return_value',
            'exception',
            'exception_type',
            'execution_time_ms',
            'retry_count',
            'validations',
            'hallucination',
            'cost',
            'timestamp',
          ],
        },
      ),
    });
    fc.assert(
      fc.property(arbitraryEntry, (value) => {
        const original = structuredClone(value) as TraceEntry;
        const blocks = entryToBlocks(original, options());
        expect(BlockSchema.safeParse(blocks[0]).success).toBe(true);
        expect(BlockSchema.safeParse(blocks[1]).success).toBe(true);
        expect(blocks[1].parent_block_id).toBe(blocks[0].id);
        expect(blocksToEntry(blocks)).toStrictEqual(original);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a Date#toISOString timestamp as is, and reads any other form through Date', () => {
    const at = (timestamp: string) =>
      entryToBlocks({ ...entry, call: { ...entry.call, timestamp } }, options())[0].created_at;
    expect(at('2024-02-29T23:59:59.999Z')).toBe('2024-02-29T23:59:59.999Z');
    expect(at('2025-01-31T12:00:00Z')).toBe('2025-01-31T12:00:00.000Z');
    expect(at('2025-01-31T12:00:00.5+02:00')).toBe('2025-01-31T10:00:00.500Z');
    // not a real day in a canonical-looking string: the same answer Date gives
    for (const odd of ['2025-02-29T00:00:00.000Z', '2025-04-31T00:00:00.000Z']) {
      const time = Date.parse(odd);
      if (!Number.isNaN(time)) expect(at(odd)).toBe(new Date(time).toISOString());
    }
  });
});

describe('guardedCallToBlocks', () => {
  const json = fc.jsonValue();
  const isoDate = fc
    .integer({ min: 0, max: 4102444800000 })
    .map((ms) => new Date(ms).toISOString());
  const record: fc.Arbitrary<GuardedCallRecord> = fc.record({
    callId: fc.uuid(),
    toolName: fc.string({ minLength: 1 }),
    args: fc.array(json, { maxLength: 3 }),
    kwargs: fc.dictionary(fc.string(), json, { maxKeys: 3 }),
    callTimestamp: isoDate,
    sessionId: fc.option(fc.string()),
    status: fc.constantFrom(...ToolCallStatusSchema.options),
    returnValue: fc.option(json),
    executionTimeMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
    retryCount: fc.nat(5),
    validations: fc.constant([]),
    hallucination: fc.constant(null),
    cost: fc.option(fc.double({ min: 0, max: 10, noNaN: true })),
    resultTimestamp: isoDate,
    guard: fc.record({
      attempts: fc.array(fc.record({ attempt: fc.nat(4), outcome: fc.constant('success') }), {
        maxLength: 2,
      }),
      decisions: fc.array(fc.dictionary(fc.string(), json, { maxKeys: 2 }), { maxLength: 2 }),
    }),
    uniqueCallId: fc.boolean(),
    parentBlockId: fc.constant(''),
    callBlockId: fc.constant(''),
    resultBlockId: fc.constant(''),
  });

  it('makes the very blocks entryToBlocks makes of the equivalent entry (property)', () => {
    fc.assert(
      fc.property(record, (r) => {
        const equivalent: TraceEntry = {
          call: {
            call_id: r.callId,
            tool_name: r.toolName,
            args: r.args,
            kwargs: r.kwargs,
            timestamp: r.callTimestamp,
            session_id: r.sessionId,
            metadata: {},
          },
          result: {
            call_id: r.callId,
            tool_name: r.toolName,
            status: r.status as TraceEntry['result']['status'],
            return_value: r.returnValue,
            exception: null,
            exception_type: null,
            execution_time_ms: r.executionTimeMs,
            retry_count: r.retryCount,
            validations: [],
            hallucination: null,
            cost: r.cost,
            timestamp: r.resultTimestamp,
            metadata: { guard: r.guard },
          },
        };
        const viaEntry = entryToBlocks(equivalent, options());
        const ids = createSequentialIds();
        const callBlockId = ids.blockId();
        const direct = guardedCallToBlocks(r, 'tr_1', 'tb_msg', callBlockId, ids.blockId(), {});
        expect(direct).toStrictEqual(viaEntry);
        for (const block of direct) expect(BlockSchema.safeParse(block).success).toBe(true);
      }),
    );
  });
});
