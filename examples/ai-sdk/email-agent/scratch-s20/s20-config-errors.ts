import { guardTools, tracewardenMiddleware, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer, recommendedPolicy } from '@tracewarden/core';
import { generateText, streamText, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import { server, providerFor } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const tries: [string, () => unknown][] = [
  ['policy as a string', () => tracewardenMiddleware({ policy: 'raise "x" if: (call: ToolCall)' as any })],
  ["onPolicyViolation: 'block'", () => tracewardenMiddleware({ onPolicyViolation: 'block' as any })],
  ['typo: timeoutSecond', () => tracewardenMiddleware({ timeoutSecond: 5 } as any)],
  ['guards.budget negative', () => tracewardenMiddleware({ guards: { budget: { maxCostPerSession: -1 } } } as any)],
  ['tracer: {}', () => tracewardenMiddleware({ tracer: {} as any })],
  ['telemetry toolGuards typo', () => tracewardenTelemetry({ toolGuards: { retri: { maxRetries: 2 } } } as any)],
  ['guardTools(array)', () => guardTools([tool({ inputSchema: z.object({}), execute: async () => 1 })] as any)],
  ['guardTools retry typo', () => guardTools({ a: tool({ inputSchema: z.object({}), execute: async () => 1 }) }, { retry: { maxRetry: 2 } } as any)],
  ['middleware passed directly as model', () => generateText({ model: tracewardenMiddleware() as any, prompt: 'x' })],
];
for (const [label, f] of tries) {
  try { const r = f(); if (r instanceof Promise) await r; console.log(`${label}: accepted`); } catch (e: any) { console.log(`${label}: ${e?.name} ${e?.code ?? ''}: ${String(e?.message).slice(0, 220)}`); }
}
// runtime: budget with a model the price table does not know
const srv = await server([{ text: 'a' }, { text: 'b' }]);
for (const stream of [false, true]) {
  const model = wrapLanguageModel({ model: providerFor(srv.url)('my-local-llama'), middleware: tracewardenMiddleware({ tracer: createTracer(), guards: { budget: { maxCostPerSession: 1 } } }) });
  try { if (!stream) await generateText({ model, prompt: 'x', maxRetries: 0 }); else { const r = streamText({ model, prompt: 'x', maxRetries: 0, onError: () => {} }); await r.text; } console.log('unknown price + budget: accepted'); }
  catch (e: any) { console.log(`unknown price + budget (stream=${stream}): ${e?.name} ${e?.code ?? ''}: ${String(e?.message).slice(0, 300)}`); }
}
await srv.close();
