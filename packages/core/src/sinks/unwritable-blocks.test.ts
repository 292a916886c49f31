import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import type { Block } from '../model/index.js';
import { createTracer } from '../tracing/create-tracer.js';
import { TracerFlushError } from '../tracing/tracer-flush-error.js';
import { createJsonlFileSink } from './create-jsonl-file-sink.js';
import { createMemorySink } from './create-memory-sink.js';
import type { Sink } from './sink.js';
import { SinkError } from './sink-error.js';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'tracewarden-unwritable-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('blocks that cannot be serialised', () => {
  it('are refused by the tracer, so nothing reaches the sink to be lost', async () => {
    const path = join(directory, 'trace.jsonl');
    const tracer = createTracer({ sinks: [createJsonlFileSink(path)] });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => tracer.logMessage({ role: 'user', content: 'hi', metadata: { cycle } })).toThrow(
      TraceError,
    );
    expect(() => tracer.logMessage({ role: 'user', content: 'hi', metadata: { n: 1n } })).toThrow(
      TraceError,
    );
    tracer.logMessage({ role: 'user', content: 'kept' });
    await tracer.flush();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('written to a file sink directly keep every later flush() failing, saying why', async () => {
    const path = join(directory, 'trace.jsonl');
    const reported: SinkError[] = [];
    const sink = createJsonlFileSink(path, { onError: (error) => reported.push(error) });
    const good = { id: 'tb_1', payload: { ok: true } } as unknown as Block;
    const bad = { id: 'tb_2', payload: { n: 1n } } as unknown as Block;
    sink.write(good);
    expect(() => sink.write(bad)).not.toThrow();
    for (let i = 0; i < 3; i++) {
      const error = await rejectionOf(sink.flush());
      expect(SinkError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'SINK_WRITE_FAILED', droppedBlocks: 1, path });
      expect((error as SinkError).message).toContain('tb_2');
      expect((error as SinkError).message).toContain('BigInt');
    }
    expect(reported).toHaveLength(1);
    // the writable block did arrive
    expect(readFileSync(path, 'utf8')).toBe(`${JSON.stringify(good)}\n`);
  });
});

describe('a tracer flush that fails', () => {
  it('counts failed sinks, not errors', async () => {
    let throwing = true;
    const flaky: Sink = {
      write() {
        if (throwing) throw new Error('flaky write');
      },
      flush: async () => {},
      close: async () => {},
    };
    const tracer = createTracer({ sinks: [flaky, createMemorySink()] });
    for (let i = 0; i < 3; i++) tracer.logMessage({ role: 'user', content: `m${i}` });
    const error = await rejectionOf(tracer.flush());
    expect(TracerFlushError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ failedSinks: 1 });
    expect((error as TracerFlushError).errors).toHaveLength(3);
    expect((error as TracerFlushError).message).toContain('failed in 1 sink of 2');
    throwing = false;
    tracer.logMessage({ role: 'user', content: 'later' });
    await expect(tracer.flush()).resolves.toBeUndefined();
  });
});

describe('a guarded call whose results cannot be written', () => {
  it.each([
    ['with a sink', true],
    ['without a sink (deferred blocks)', false],
  ])('is refused by the tracer %s and reported, not kept unwritable', async (_label, withSink) => {
    const { guard } = await import('../guards/guard.js');
    const warnings: string[] = [];
    const tracer = createTracer(withSink ? { sinks: [createMemorySink()] } : {});
    tracer.logMessage({ role: 'user', content: 'go' });
    const tool = guard(async (n: number) => n, {
      tracer,
      logger: { warn: (message) => warnings.push(message) },
      validators: { output: () => ({ valid: true, details: { big: 10n } }) },
    });
    await expect(tool(1)).resolves.toBe(1);
    const args = guard(async (_n: bigint) => 'ok', {
      tracer,
      logger: { warn: (message) => warnings.push(message) },
    });
    await expect(args(5n)).resolves.toBe('ok');
    expect(tracer.blocks().map((block) => block.sub_type)).toEqual(['MESSAGE']);
    expect(warnings).toHaveLength(2);
    expect(warnings.every((w) => w.includes('BigInt'))).toBe(true);
  });
});
