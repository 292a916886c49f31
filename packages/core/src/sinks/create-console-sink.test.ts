import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createSequentialIds } from '../model/index.js';
import { createTracer } from '../tracing/create-tracer.js';
import { TracerFlushError } from '../tracing/tracer-flush-error.js';
import { createConsoleSink } from './create-console-sink.js';
import { SinkError } from './sink-error.js';

/** The most recent MESSAGE block's id: the parent `logAct` / `logThink` name in these tests. */
function lastMessageOf(tracer: { blocks(): readonly { id: string; sub_type: string }[] }): string {
  return tracer.blocks().findLast((block) => block.sub_type === 'MESSAGE')?.id as string;
}

function capture() {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  return { stream, text: () => chunks.join('') };
}

describe('createConsoleSink', () => {
  it('prints the stitched tree on flush, and nothing when nothing new arrived', async () => {
    const { stream, text } = capture();
    const tracer = createTracer({
      sinks: [createConsoleSink({ stream })],
      ids: createSequentialIds(),
    });
    tracer.logMessage({ role: 'user', content: 'hi' });
    tracer.logThink({
      parent_block_id: lastMessageOf(tracer),
      payload: { text: 'say hello back' },
    });
    expect(text()).toBe('');
    await tracer.flush();
    expect(text()).toBe('trace tr_000001\n└─ user: hi\n   └─ think: say hello back\n');
    await tracer.flush();
    expect(text()).toBe('trace tr_000001\n└─ user: hi\n   └─ think: say hello back\n');
    tracer.logMessage({ role: 'assistant', content: 'hello' });
    await tracer.shutdown();
    expect(text().split('trace tr_000001')).toHaveLength(3);
    expect(text().endsWith('└─ assistant: hello\n')).toBe(true);
  });

  it('prints each trace it received, colored when asked', async () => {
    const { stream, text } = capture();
    const sink = createConsoleSink({ stream, color: true });
    const ids = createSequentialIds();
    const first = createTracer({ sinks: [sink], ids });
    const second = createTracer({ sinks: [sink], ids });
    first.logMessage({ role: 'user', content: 'one' });
    second.logMessage({ role: 'user', content: 'two' });
    await sink.flush();
    expect(text()).toContain('\u001b[');
    expect(text()).toContain('tr_000001');
    expect(text()).toContain('tr_000002');
  });

  it('rejects flush with SINK_WRITE_FAILED when the stream fails, and prints again on the next flush', async () => {
    let fail = true;
    const written: string[] = [];
    // a terminal-like stream whose write fails while `fail` is set (a Node Writable would be
    // destroyed by its first error)
    const stream = {
      write(text: string, callback: (error?: Error | null) => void) {
        if (fail) callback(new Error('stream broken'));
        else {
          written.push(text);
          callback();
        }
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    const tracer = createTracer({
      sinks: [createConsoleSink({ stream })],
      ids: createSequentialIds(),
    });
    tracer.logMessage({ role: 'user', content: 'hi' });
    const error = await tracer.flush().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TracerFlushError);
    expect((error as TracerFlushError).errors[0]).toBeInstanceOf(SinkError);
    expect(((error as TracerFlushError).errors[0] as SinkError).code).toBe('SINK_WRITE_FAILED');
    expect(written).toEqual([]);
    fail = false;
    await tracer.flush();
    expect(written).toEqual(['trace tr_000001\n└─ user: hi\n']);
  });
});
