import { describe, expectTypeOf, it } from 'vitest';
import type { Block } from '../model/index.js';
import { createBlockValidator } from './create-block-validator.js';
import type { ReadonlyBlock } from './types.js';

describe('the blocks validators return', () => {
  it('are read-only: fields, payload, metadata and extra', () => {
    const validator = createBlockValidator();
    const block = validator.accept({});
    expectTypeOf(validator.acceptLine('')).toEqualTypeOf<ReadonlyBlock>();
    expectTypeOf(validator.get('tb_1')).toEqualTypeOf<ReadonlyBlock | undefined>();
    // @ts-expect-error a validated block's fields cannot be reassigned
    block.id = 'tb_2';
    // @ts-expect-error nor its metadata changed
    block.metadata.model = 'gpt';
    // @ts-expect-error nor its extra
    block.extra.reward = 1;
    if (block.sub_type === 'MESSAGE') {
      // @ts-expect-error nor its payload
      block.payload.content = 'changed';
    }
  });

  it('narrow by sub type and pass where a Block is expected', () => {
    const block = createBlockValidator().accept({});
    if (block.sub_type === 'TOOL_CALL') expectTypeOf(block.payload.call_id).toEqualTypeOf<string>();
    expectTypeOf(block).toExtend<Block>();
  });
});
