import { describe, expect, it } from 'vitest';
import { parseTrace } from '../model/index.js';
import { createTracer } from '../tracing/create-tracer.js';
import { validateBlocks } from '../validation/index.js';
import { blocksToEvents } from './blocks-to-events.js';

describe('blocksToEvents: a tool output that looks like content parts but is not', () => {
  it('writes the Assistants API text parts ({ type, text: { value } }) as JSON text that parses back', () => {
    const tracer = createTracer();
    const message = tracer.logMessage({ role: 'assistant', content: null });
    const call = tracer.logAct({
      parent_block_id: message.id,
      payload: { call_id: 'c1', name: 'read_thread', arguments: {} },
    });
    const output = [{ type: 'text', text: { value: 'Meeting moved to 3pm', annotations: [] } }];
    tracer.logObserve({ parent_block_id: call.id, payload: { call_id: 'c1', output } });
    const blocks = tracer.blocks();
    expect(validateBlocks(blocks).errors).toEqual([]);
    const events = blocksToEvents(blocks);
    // what is written is read back: convert never writes what validate rejects
    const trace = parseTrace(events);
    const tool = trace.find((event) => event.role === 'tool');
    expect(tool?.content).toBe(JSON.stringify(output));
    // real content parts stay parts
    const parts = [{ type: 'text', text: 'ok' }];
    const second = createTracer();
    const m = second.logMessage({ role: 'assistant', content: null });
    const c = second.logAct({
      parent_block_id: m.id,
      payload: { call_id: 'c2', name: 'read', arguments: {} },
    });
    second.logObserve({ parent_block_id: c.id, payload: { call_id: 'c2', output: parts } });
    const back = parseTrace(blocksToEvents(second.blocks()));
    expect(back.find((event) => event.role === 'tool')?.content).toEqual(parts);
  });
});
