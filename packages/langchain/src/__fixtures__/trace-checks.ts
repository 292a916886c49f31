import { type Block, type Tracer, validateBlocks } from '@tracewarden/core';
import { expect } from 'vitest';

/** Asserts a trace is valid (seed 002) and stitches with no orphans; returns its blocks. */
export function expectSoundTrace(tracer: Tracer): readonly Block[] {
  const blocks = tracer.blocks();
  const report = validateBlocks(blocks);
  expect(report.errors).toEqual([]);
  const stitched = tracer.stitched();
  expect(stitched.orphans.tool_calls).toEqual([]);
  expect(stitched.orphans.tool_results).toEqual([]);
  expect(stitched.orphans.thinks ?? []).toEqual([]);
  return blocks;
}

/**
 * The stitched tree reduced to what every adapter must record alike: roles, contents, reasoning,
 * tool calls (name, arguments, call id) and their outputs, in order; ids, timestamps and
 * adapter-specific metadata set aside.
 */
export function conversationOf(tracer: Tracer): unknown[] {
  return tracer.stitched().messages.map((message) => ({
    role: (message.block.payload as { role: string }).role,
    content: (message.block.payload as { content: unknown }).content,
    thinks: message.thinks.map((think) => think.payload.text),
    tool_calls: message.tool_calls.map((call) => ({
      call_id: call.block.payload.call_id,
      name: call.block.payload.name,
      arguments: call.block.payload.arguments,
      results: call.results.map((result) => result.payload.output),
    })),
  }));
}

/** The response MESSAGE blocks (assistant messages with a model call's metadata). */
export function responses(blocks: readonly Block[]): Block[] {
  return blocks.filter(
    (block) => block.sub_type === 'MESSAGE' && block.metadata.status !== undefined,
  );
}
