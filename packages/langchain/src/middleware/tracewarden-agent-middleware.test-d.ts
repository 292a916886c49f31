import { fakeModel } from '@langchain/core/testing';
import { type AgentMiddleware, createAgent, createMiddleware } from 'langchain';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type TracewardenAgentMiddleware,
  tracewardenAgentMiddleware,
} from './tracewarden-agent-middleware.js';

describe('TracewardenAgentMiddleware (typed by shape, without langchain)', () => {
  it('is assignable to langchain’s AgentMiddleware', () => {
    expectTypeOf(tracewardenAgentMiddleware()).toExtend<AgentMiddleware>();
  });

  it('goes into createAgent next to createMiddleware() middleware', () => {
    const middleware: TracewardenAgentMiddleware = tracewardenAgentMiddleware();
    const other = createMiddleware({ name: 'Other' });
    createAgent({ model: fakeModel(), tools: [], middleware: [middleware, other] });
    expectTypeOf(middleware.tracers).toEqualTypeOf<readonly import('@tracewarden/core').Tracer[]>();
  });
});
