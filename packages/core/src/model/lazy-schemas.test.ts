import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BlockSchema, createBlockSchema } from './blocks.js';
import { ChatEventSchema, TraceSchema } from './chat-events.js';
import { ToolCallStatusSchema } from './tool-records.js';

const block = {
  id: 'tb_1',
  trace_id: 'tr_1',
  block_type: 'MESSAGE',
  sub_type: 'MESSAGE',
  payload: { role: 'user', content: 'hi' },
};

describe('schemas built on first use', () => {
  it('parse as zod schemas do', () => {
    expect(BlockSchema.safeParse(block).success).toBe(true);
    expect(BlockSchema.safeParse({ ...block, sub_type: 'NOPE' }).success).toBe(false);
    expect(ToolCallStatusSchema.options).toContain('circuit_open');
    expect(TraceSchema.parse([{ role: 'user', content: 'x' }])).toHaveLength(1);
    expect(createBlockSchema({ messageBytes: 1 }).safeParse(block).success).toBe(false);
  });

  it('compose with, and are recognised by, the zod an application imports', () => {
    const wrapped = z.object({ event: ChatEventSchema, block: BlockSchema.optional() });
    expect(wrapped.safeParse({ event: { role: 'user', content: 'x' } }).success).toBe(true);
    expect(wrapped.safeParse({ event: { content: 'x' } }).success).toBe(false);
    expect(BlockSchema instanceof z.ZodType).toBe(true);
    let thrown: unknown;
    try {
      ChatEventSchema.parse(5);
    } catch (error) {
      thrown = error;
    }
    expect(thrown instanceof z.ZodError).toBe(true);
  });
});
