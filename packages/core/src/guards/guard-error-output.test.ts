import { describe, expect, it } from 'vitest';
import type { TraceEntry } from '../model/tool-records.js';
import { createTracer } from '../tracing/create-tracer.js';
import { memoryLogger } from './__fixtures__/fake-time.js';
import { guard } from './guard.js';

// An adapter shows the model a failed tool call in its framework's words (`Error: <message>`);
// the trace must hold what the model read, with the exception kept in the metadata.

function traceWithCall() {
  const tracer = createTracer({ traceId: 'tr_1' });
  const message = tracer.logMessage({ role: 'assistant', content: null });
  tracer.logAct({
    parent_block_id: message.id,
    payload: { call_id: 'call_1', name: 'lookup', arguments: { q: 'x' } },
  });
  return tracer;
}

const failing = guard(
  (_args: { q: string }): string => {
    throw new TypeError('no such page');
  },
  { name: 'lookup' },
);

describe('guard invoke option errorOutput', () => {
  it('records what the model reads for a failed call under the model TOOL_CALL, the exception in metadata', async () => {
    const tracer = traceWithCall();
    const entries: TraceEntry[] = [];
    await expect(
      failing.invoke(
        {
          callId: 'call_1',
          tracer,
          errorOutput: (error) => `Error: ${(error as Error).message}`,
          onEntry: (entry) => entries.push(entry),
        },
        { q: 'x' },
      ),
    ).rejects.toThrow('no such page');
    const results = tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results).toHaveLength(1);
    expect(results[0]?.payload).toEqual({ call_id: 'call_1', output: 'Error: no such page' });
    expect(results[0]?.metadata).toMatchObject({
      status: 'failure',
      exception: 'no such page',
      exception_type: 'TypeError',
    });
    // the entry users and adapters receive is the guard's record, unchanged
    expect(entries[0]?.result).toMatchObject({ return_value: null, exception: 'no such page' });
  });

  it('without errorOutput the output is the exception message, marked as such', async () => {
    const tracer = traceWithCall();
    await expect(failing.invoke({ callId: 'call_1', tracer }, { q: 'x' })).rejects.toThrow();
    const result = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload).toEqual({ call_id: 'call_1', output: 'no such page' });
    expect(result?.metadata).toMatchObject({ output_source: 'exception' });
  });

  it('applies to a call recorded with its own TOOL_CALL, and never to a success', async () => {
    const tracer = createTracer({ traceId: 'tr_1' });
    const errorOutput = (error: unknown) => `Error: ${(error as Error).message}`;
    await expect(failing.invoke({ tracer, errorOutput }, { q: 'x' })).rejects.toThrow();
    const ok = guard((args: { q: string }) => `page ${args.q}`, { name: 'lookup' });
    await ok.invoke({ tracer, errorOutput }, { q: 'y' });
    const outputs = tracer
      .blocks()
      .filter((block) => block.sub_type === 'TOOL_RESULT')
      .map((block) => block.payload.output);
    expect(outputs).toEqual(['Error: no such page', 'page y']);
  });

  it('an errorOutput that throws is reported once per call and the exception message is recorded', async () => {
    const logger = memoryLogger();
    const withLogger = guard(
      (): string => {
        throw new Error('down');
      },
      { name: 'lookup', logger },
    );
    const tracer = traceWithCall();
    await expect(
      withLogger.invoke({
        callId: 'call_1',
        tracer,
        errorOutput: () => {
          throw new Error('bad formatter');
        },
      }),
    ).rejects.toThrow('down');
    const result = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload.output).toBe('down');
    expect(logger.warnings.map((warning) => warning.message)).toEqual([
      'errorOutput of a call of tool "lookup" threw: bad formatter',
    ]);
  });
});
