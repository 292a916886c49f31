import {
  type AdapterConformanceHarness,
  adapterConformanceCases,
  type ConformanceServe,
} from '@tracewarden/core/testing';
import { type ScriptedTurn, startScriptedServer } from '@tracewarden/testing';
import { describe, it } from 'vitest';
import { type Attachment, runAgent } from './__fixtures__/agent-harness.js';
import { TracewardenCallbackHandler } from './handler/index.js';
import { tracewardenAgentMiddleware } from './middleware/index.js';

function harness(attachment: Attachment, guarded: boolean): AdapterConformanceHarness {
  return {
    create: (options) =>
      attachment === 'handler'
        ? new TracewardenCallbackHandler(options as never)
        : tracewardenAgentMiddleware(options as never),
    async run(run) {
      await runAgent({ ...run, attachment, guarded });
    },
  };
}

const serve: ConformanceServe = (turns) => startScriptedServer({ turns: turns as ScriptedTurn[] });

for (const attachment of ['handler', 'middleware'] as const)
  for (const guarded of [false, true])
    describe(`adapter conformance: createAgent + ChatOpenAI, ${attachment === 'handler' ? 'TracewardenCallbackHandler' : 'tracewardenAgentMiddleware'}${guarded ? ' + guardTools' : ''}`, () => {
      for (const testCase of adapterConformanceCases(harness(attachment, guarded), serve))
        it(testCase.name, testCase.run);
    });
