import { describe, expect, it } from 'vitest';
import { createTracer } from '../tracing/create-tracer.js';
import { createMemorySink } from './create-memory-sink.js';
import { SinkError } from './sink-error.js';

/** The most recent MESSAGE block's id: the parent `logAct` / `logThink` name in these tests. */
function lastMessageOf(tracer: { blocks(): readonly { id: string; sub_type: string }[] }): string {
  return tracer.blocks().findLast((block) => block.sub_type === 'MESSAGE')?.id as string;
}

describe('createMemorySink', () => {
  it('keeps every block in order and rejects writes after close', async () => {
    const sink = createMemorySink();
    const tracer = createTracer({ sinks: [sink] });
    const message = tracer.logMessage({ role: 'user', content: 'hi' });
    const think = tracer.logThink({
      parent_block_id: lastMessageOf(tracer),
      payload: { text: 'hmm' },
    });
    expect(sink.blocks).toEqual([message, think]);
    await expect(sink.flush()).resolves.toBeUndefined();
    expect(sink.closed).toBe(false);
    await sink.close();
    expect(sink.closed).toBe(true);
    expect(() => sink.write(message)).toThrow(SinkError);
    expect(sink.blocks).toHaveLength(2);
  });
});
