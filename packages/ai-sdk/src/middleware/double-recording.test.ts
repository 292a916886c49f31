import { createTracer, parsePolicy } from '@tracewarden/core';
import { generateText, wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scriptedModel } from '../__fixtures__/mock-model.js';
import { tracewardenMiddleware, tracewardenTelemetry } from '../index.js';

const policy = parsePolicy(`
raise "no deleting" if:
    (call: ToolCall)
    call is tool:delete_all
`);

describe('an enforcing middleware and the telemetry integration on one trace', () => {
  afterEach(() => vi.restoreAllMocks());

  it('says once that each answer is recorded twice (TRACEWARDEN_DOUBLE_RECORDING)', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const shared = createTracer();
    const run = (middlewareTracer: ReturnType<typeof createTracer>) =>
      generateText({
        model: wrapLanguageModel({
          model: scriptedModel([{ text: 'ok' }]),
          middleware: tracewardenMiddleware({ tracer: middlewareTracer, policy }),
        }),
        prompt: 'go',
        telemetry: { integrations: [tracewardenTelemetry({ tracer: shared })] },
      });
    const doubles = () =>
      warn.mock.calls.filter(
        ([, options]) =>
          (options as { code?: string } | undefined)?.code === 'TRACEWARDEN_DOUBLE_RECORDING',
      );
    // a tracer of its own: nothing counts twice, nothing to say
    await run(createTracer());
    expect(doubles()).toEqual([]);
    await run(shared);
    await run(shared);
    expect(doubles()).toHaveLength(1);
    expect(String(doubles()[0]?.[0])).toContain('tracewardenTelemetry alone');
  });
});
