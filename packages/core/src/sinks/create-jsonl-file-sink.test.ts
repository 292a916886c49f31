import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TracewardenError } from '../errors/index.js';
import { guard } from '../guards/guard.js';
import { type Block, createSequentialIds } from '../model/index.js';
import { createTracer } from '../tracing/create-tracer.js';
import { TracerFlushError } from '../tracing/tracer-flush-error.js';
import { createJsonlFileSink } from './create-jsonl-file-sink.js';
import { SinkError } from './sink-error.js';

/** The most recent MESSAGE block's id: the parent `logAct` / `logThink` name in these tests. */
function lastMessageOf(tracer: { blocks(): readonly { id: string; sub_type: string }[] }): string {
  return tracer.blocks().findLast((block) => block.sub_type === 'MESSAGE')?.id as string;
}

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'tracewarden-jsonl-sink-'));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

function readBack(path: string): unknown[] {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line));
}

function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function logCalls(tracer: ReturnType<typeof createTracer>, count: number): void {
  tracer.logMessage({ role: 'user', content: 'start ü 🚀' });
  for (let i = 0; i < count; i++) {
    tracer.logAct({
      parent_block_id: lastMessageOf(tracer),
      payload: {
        call_id: `c${i}`,
        name: 'search',
        arguments: { q: `query ${i}`, note: 'line\nbreak' },
      },
    });
    tracer.logObserve({ payload: { call_id: `c${i}`, output: { hits: i } } });
  }
}

describe('createJsonlFileSink', () => {
  it('buffers writes without touching the disk, then flush puts every block on disk', async () => {
    const path = join(directory, 'nested', 'deeper', 'trace.jsonl');
    const sink = createJsonlFileSink(path);
    const tracer = createTracer({ sinks: [sink], ids: createSequentialIds() });
    logCalls(tracer, 3);
    expect(sink.pendingBlocks).toBe(7);
    // nothing written yet: the buffer is far below 64 KiB
    expect(await exists(path)).toBe(false);
    await tracer.flush();
    expect(sink.pendingBlocks).toBe(0);
    expect(readBack(path)).toEqual(tracer.blocks());
    expect(sink.path).toBe(path);
  });

  it('appends in the background once past bufferBytes, in order, exactly once', async () => {
    const path = join(directory, 'trace.jsonl');
    const sink = createJsonlFileSink(path, { bufferBytes: 512 });
    const tracer = createTracer({ sinks: [sink] });
    logCalls(tracer, 200);
    await tracer.flush();
    expect(readBack(path)).toEqual(tracer.blocks());
    // a second flush with nothing new writes nothing more
    logCalls(createTracer({ sinks: [] }), 1);
    await sink.flush();
    expect(readBack(path)).toHaveLength(401);
  });

  it('writes a block as it was at write(), whatever the caller changes in it afterwards', async () => {
    const path = join(directory, 'trace.jsonl');
    const tracer = createTracer({ sinks: [createJsonlFileSink(path)] });
    const message = tracer.logMessage({ role: 'user', content: 'hi', metadata: { tags: ['a'] } });
    const args = { q: 'before', filters: ['x'] };
    const call = tracer.logAct({
      parent_block_id: message.id,
      payload: { call_id: 'c1', name: 'search', arguments: args },
    });
    const output = { hits: [1] };
    tracer.logObserve({ payload: { call_id: 'c1', output } });
    // the tracer freezes blocks, not the values they hold: these change the blocks in memory
    (message.metadata.tags as string[]).push('b');
    args.q = 'after';
    args.filters.push('y');
    output.hits.push(2);
    await tracer.flush();
    const written = readBack(path) as Block[];
    expect(written[0]?.metadata).toEqual({ tags: ['a'] });
    expect(written[1]?.id).toBe(call.id);
    expect(written[1]?.payload).toMatchObject({ arguments: { q: 'before', filters: ['x'] } });
    expect(written[2]?.payload).toMatchObject({ output: { hits: [1] } });
  });

  it('writes a guarded call as it was when recorded, whatever changes in its values afterwards', async () => {
    const path = join(directory, 'trace.jsonl');
    const tracer = createTracer({ sinks: [createJsonlFileSink(path)] });
    tracer.logMessage({ role: 'user', content: 'hi' });
    const options = { depth: 1 };
    const result = { rows: ['r1'] };
    const tool = guard(async (_query: string, _options: { depth: number }) => result, {
      name: 'lookup',
      tracer,
    });
    await expect(tool('q', options)).resolves.toBe(result);
    options.depth = 2;
    result.rows.push('r2');
    await tracer.flush();
    const [, call, output] = readBack(path) as Block[];
    expect(call?.payload).toMatchObject({ name: 'lookup', args: ['q', { depth: 1 }] });
    expect(output?.payload).toMatchObject({ output: { rows: ['r1'] } });
  });

  it('makes the directory again when it is removed between appends', async () => {
    const path = join(directory, 'runs', 'trace.jsonl');
    const sink = createJsonlFileSink(path);
    const tracer = createTracer({ sinks: [sink] });
    tracer.logMessage({ role: 'user', content: 'one' });
    await tracer.flush();
    rmSync(join(directory, 'runs'), { recursive: true });
    const second = tracer.logMessage({ role: 'user', content: 'two' });
    await tracer.flush();
    expect(readBack(path)).toEqual([second]);
  });

  it('appends to an existing file', async () => {
    const path = join(directory, 'trace.jsonl');
    const first = createTracer({ sinks: [createJsonlFileSink(path)] });
    first.logMessage({ role: 'user', content: 'one' });
    await first.shutdown();
    const second = createTracer({ sinks: [createJsonlFileSink(path)] });
    second.logMessage({ role: 'user', content: 'two' });
    await second.shutdown();
    expect(readBack(path)).toEqual([...first.blocks(), ...second.blocks()]);
  });

  it('rejects flush with SINK_WRITE_FAILED, keeps the lines, and writes them once the path is fixed', async () => {
    const path = join(directory, 'trace.jsonl');
    mkdirSync(path); // a directory where the file should be
    const reported: SinkError[] = [];
    const sink = createJsonlFileSink(path, { onError: (error) => reported.push(error) });
    const tracer = createTracer({ sinks: [sink] });
    logCalls(tracer, 2);

    const error = await sink.flush().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SinkError);
    expect(TracewardenError.isInstance(error)).toBe(true);
    const sinkError = error as SinkError;
    expect(sinkError.code).toBe('SINK_WRITE_FAILED');
    expect(sinkError.path).toBe(path);
    expect(sinkError.pendingBlocks).toBe(5);
    expect(sinkError.message).toContain(path);
    expect(sinkError.message).toMatch(/EISDIR|illegal operation/i);
    expect(sinkError.cause).toBeDefined();
    expect(reported).toEqual([sinkError]);
    expect(sink.pendingBlocks).toBe(5);

    // the tracer's flush reports it too, as a TracerFlushError holding the sink error
    const tracerError = await tracer.flush().catch((caught: unknown) => caught);
    expect(tracerError).toBeInstanceOf(TracerFlushError);
    expect((tracerError as TracerFlushError).errors[0]).toBeInstanceOf(SinkError);

    // more blocks arrive meanwhile; then the cause is fixed
    tracer.logThink({
      parent_block_id: lastMessageOf(tracer),
      payload: { text: 'still recording' },
    });
    rmSync(path, { recursive: true });
    await tracer.flush();
    expect(sink.pendingBlocks).toBe(0);
    expect(readBack(path)).toEqual(tracer.blocks());
  });

  it('reports a failed background append and stops retrying in the background until flush', async () => {
    const path = join(directory, 'trace.jsonl');
    mkdirSync(path);
    const reported: SinkError[] = [];
    const sink = createJsonlFileSink(path, {
      bufferBytes: 256,
      onError: (error) => reported.push(error),
    });
    const tracer = createTracer({ sinks: [sink] });
    logCalls(tracer, 50);
    await expect(sink.flush()).rejects.toMatchObject({ code: 'SINK_WRITE_FAILED' });
    // one background failure, then the flush's own failure
    expect(reported.length).toBe(2);
    rmSync(path, { recursive: true });
    await sink.flush();
    expect(readBack(path)).toEqual(tracer.blocks());
  });

  it('closes: flushes, then rejects writes with SINK_CLOSED', async () => {
    const path = join(directory, 'trace.jsonl');
    const sink = createJsonlFileSink(path);
    const tracer = createTracer({ sinks: [sink] });
    const block = tracer.logMessage({ role: 'user', content: 'hi' });
    await tracer.shutdown();
    expect(readBack(path)).toEqual([block]);
    let caught: unknown;
    try {
      sink.write(block as Block);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SinkError);
    expect((caught as SinkError).code).toBe('SINK_CLOSED');
    await expect(sink.close()).resolves.toBeUndefined();
  });

  it('lets a failed close be retried once the path is fixed', async () => {
    const path = join(directory, 'trace.jsonl');
    mkdirSync(path);
    const sink = createJsonlFileSink(path);
    const tracer = createTracer({ sinks: [sink] });
    tracer.logMessage({ role: 'user', content: 'hi' });
    await expect(tracer.shutdown()).rejects.toBeInstanceOf(TracerFlushError);
    rmSync(path, { recursive: true });
    await sink.close();
    expect(readBack(path)).toEqual(tracer.blocks());
  });

  it('syncs to disk when asked', async () => {
    const path = join(directory, 'trace.jsonl');
    const sink = createJsonlFileSink(path, { sync: true });
    const tracer = createTracer({ sinks: [sink] });
    logCalls(tracer, 1);
    await tracer.shutdown();
    expect(readBack(path)).toEqual(tracer.blocks());
  });
});
