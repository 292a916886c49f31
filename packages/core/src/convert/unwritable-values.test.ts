import { describe, expect, it } from 'vitest';
import type { Block } from '../model/index.js';
import { renderTree } from '../sinks/render-tree.js';
import { stitchBlocks } from '../stitching/index.js';
import { unwritableValueNote } from '../text/json-text-or-note.js';
import { blocksToEvents } from './blocks-to-events.js';

// A tool output nested deeper than JSON.stringify can go (a 200 KB file of `[[[…]]]`): `view`
// and `convert` crashed with "Maximum call stack size exceeded" (String() of an array recurses
// through join as deep); a null-prototype object has no string form at all.
function deep(depth: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

const at = '2025-01-31T12:00:00.000Z';
function trace(output: unknown): Block[] {
  const base = {
    trace_id: 'tr_1',
    metadata: {},
    extra: {},
    raw: null,
    created_at: at,
    updated_at: at,
  };
  return [
    {
      ...base,
      id: 'tb_m',
      block_type: 'MESSAGE',
      sub_type: 'MESSAGE',
      parent_block_id: null,
      payload: { role: 'assistant', content: null },
    },
    {
      ...base,
      id: 'tb_c',
      block_type: 'ACT',
      sub_type: 'TOOL_CALL',
      parent_block_id: 'tb_m',
      payload: { call_id: 'call_1', name: 'read', arguments: {} },
    },
    {
      ...base,
      id: 'tb_r',
      block_type: 'OBSERVE',
      sub_type: 'TOOL_RESULT',
      parent_block_id: 'tb_c',
      payload: { call_id: 'call_1', output },
    },
  ] as unknown as Block[];
}

describe('values with no JSON or string form', () => {
  it.each([
    ['an array nested 100,000 deep', deep(100_000)],
    [
      'a null-prototype object with a cycle',
      (() => {
        const value = Object.create(null) as Record<string, unknown>;
        value.self = value;
        return value;
      })(),
    ],
  ])('%s: renderTree and blocksToEvents write a note instead of throwing', (_name, output) => {
    const blocks = trace(output);
    expect(() => renderTree(stitchBlocks(blocks))).not.toThrow();
    const events = blocksToEvents(blocks);
    const tool = events.find((event) => (event as { role?: string }).role === 'tool') as {
      content: unknown;
    };
    expect(tool.content).toBe(unwritableValueNote);
  });
});
