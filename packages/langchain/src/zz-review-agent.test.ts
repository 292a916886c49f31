import { HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createTracer } from '@tracewarden/core';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TracewardenCallbackHandler, tracewardenAgentMiddleware } from './index.js';
import { ai, dump, inspect } from './zz-review-helpers.js';

const ran: string[] = [];
const weather = tool(async ({ city }: { city: string }) => { ran.push(`w:${city}`); return `Sunny in ${city}`; },
  { name: 'weather', description: 'w', schema: z.object({ city: z.string() }) });
const boom = tool(async () => { ran.push('boom'); throw new Error('kaboom'); },
  { name: 'boom', description: 'b', schema: z.object({}) });

function model3() {
  return fakeModel()
    .respond(ai({ content: '', tool_calls: [
      { name: 'weather', args: { city: 'Paris' }, id: 'c1', type: 'tool_call' },
      { name: 'weather', args: { city: 'Rome' }, id: 'c2', type: 'tool_call' },
    ] }))
    .respond(ai({ content: [{ type: 'reasoning', reasoning: 'need boom' }, { type: 'text', text: 'checking' }], tool_calls: [
      { name: 'boom', args: {}, id: 'c3', type: 'tool_call' },
    ] }))
    .respond(ai({ content: 'done', additional_kwargs: { reasoning_content: 'final thoughts' } }));
}

describe('review: agent loop', () => {
  for (const mode of ['handler', 'middleware'] as const) {
    it(`3-step agent with parallel + error via ${mode}`, async () => {
      const tracer = createTracer();
      const agent = createAgent({ model: model3(), tools: [weather, boom], systemPrompt: 'sys',
        middleware: mode === 'middleware' ? [tracewardenAgentMiddleware({ tracer, pricing: false })] : [] });
      const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
      const res = await agent.invoke({ messages: [new HumanMessage('hi')] }, mode === 'handler' ? { callbacks: [handler] } : {});
      dump(res.messages.map((m) => [m.type, m.content]));
      const r = inspect(tracer, mode);
      dump(r);
      expect(r.errors).toEqual([]);
      expect(r.orphans).toBe(0);
      expect(r.messages.length).toBe(5);
    });
  }
});
