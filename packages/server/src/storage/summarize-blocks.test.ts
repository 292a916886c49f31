import type { Block } from '@tracewarden/core';
import { describe, expect, it } from 'vitest';
import { summarizeBlocks } from './summarize-blocks.js';

const at = '2025-01-31T12:00:00.000Z';
function block(id: string, subType: Block['sub_type'], parent: string | null, metadata: object) {
  return {
    id,
    trace_id: 'tr_1',
    block_type: subType === 'MESSAGE' ? 'MESSAGE' : subType === 'TOOL_RESULT' ? 'OBSERVE' : 'ACT',
    sub_type: subType,
    parent_block_id: parent,
    payload: {},
    metadata,
    raw: null,
    extra: {},
    created_at: at,
    updated_at: at,
  } as unknown as Block;
}

describe('summarizeBlocks: violation_count', () => {
  it("counts a refused call's violations once (its TOOL_RESULT repeats its TOOL_CALL's)", () => {
    const violations = [{ rule: 'no-mail', action: 'block' }];
    const summary = summarizeBlocks([
      block('tb_1', 'MESSAGE', null, {}),
      block('tb_2', 'TOOL_CALL', 'tb_1', { policy: 'block', violations }),
      block('tb_3', 'TOOL_RESULT', 'tb_2', { status: 'failure', refused: true, violations }),
      block('tb_4', 'MESSAGE', null, {
        violations: [{ rule: 'injected-content', action: 'warn' }],
      }),
    ]);
    expect(summary.violations).toBe(2);
  });
});
