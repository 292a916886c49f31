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

  it('works when spread into a wrapper of your own', async () => {
    const sink = createMemorySink();
    const seen: string[] = [];
    const tracer = createTracer({
      sinks: [
        {
          ...sink,
          write: (block) => {
            seen.push(block.id);
            sink.write(block);
          },
        },
      ],
    });
    const message = tracer.logMessage({ role: 'user', content: 'hi' });
    await tracer.shutdown();
    expect(seen).toEqual([message.id]);
    expect(sink.blocks).toEqual([message]);
    expect(sink.closed).toBe(true);
    expect({ ...sink }).toMatchObject({ closed: true, blocks: [message] });
  });
});
