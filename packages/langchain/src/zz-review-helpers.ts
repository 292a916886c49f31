import { AIMessage } from '@langchain/core/messages';
import { type Tracer, validateBlocks } from '@tracewarden/core';
import { comparableTrace } from '@tracewarden/core/testing';

export function ai(fields: Record<string, unknown>): AIMessage {
  return new AIMessage(fields as never);
}

export function inspect(tracer: Tracer, label = '') {
  const blocks = tracer.blocks();
  const report = validateBlocks(blocks);
  const c = comparableTrace(tracer.stitched());
  const out = { label, errors: report.errors, orphans: c.orphans, messages: c.messages };
  return out;
}

export function dump(x: unknown) {
  console.log(JSON.stringify(x, null, 1));
}
