import { guardTools, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer } from '@tracewarden/core';
import { generateText, streamText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const t0 = Date.now();
async function scenario(label: string, calls: number, mkTools: (tracer: any, state: any) => any, stream = false, telemetryOpts?: any) {
  const turns: any[] = [];
  for (let i = 0; i < calls; i++) turns.push({ toolCalls: [{ id: `call_${i}`, name: 'work', arguments: { i } }] });
  turns.push({ text: 'finished' });
  const srv = await server(turns, { chunkSize: 8 });
  const tracer = createTracer();
  const state: any = { runs: 0 };
  const tools = mkTools(tracer, state);
  const model = telemetryOpts ? providerFor(srv.url)('gpt-4o-mini') : wrapped(srv.url, { tracer });
  const telemetry = telemetryOpts ? { integrations: [tracewardenTelemetry({ tracer, ...telemetryOpts })] } : undefined;
  let out = '';
  const start = Date.now();
  try {
    if (!stream) { const r = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(calls + 2), telemetry }); out = `text=${r.text} errs=${JSON.stringify(r.steps.flatMap((s) => s.content.filter((c: any) => c.type === 'tool-error').map((c: any) => `${c.error?.name}/${c.error?.code}: ${String(c.error?.message).slice(0, 90)}`)))}`; }
    else { const r = streamText({ model, tools, prompt: 'go', stopWhen: stepCountIs(calls + 2), telemetry }); const errs: string[] = []; for await (const p of r.fullStream) if (p.type === 'tool-error') errs.push(`${(p as any).error?.name}/${(p as any).error?.code}`); out = `text=${await r.text} errs=${errs}`; }
  } catch (e: any) { out = `THREW ${e?.name} ${e?.code} ${e?.message?.slice(0, 150)}`; }
  console.log(`\n##### ${label}: ${out} runs=${state.runs} took=${Date.now() - start}ms`);
  const { blocks } = check(label, tracer, { quiet: false });
  const first = blocks.find((b: any) => b.sub_type === 'TOOL_RESULT'); if (first) console.log('   first result metadata:', JSON.stringify(first.metadata).slice(0, 700));
  const res = blocks.filter((b: any) => b.sub_type === 'TOOL_RESULT').map((b: any) => ({ status: b.metadata.status, attempts: b.metadata.attempts?.length ?? b.metadata.attempt_count, decisions: b.metadata.decisions?.map((d: any) => `${d.guard}:${d.action ?? d.decision}`) }));
  console.log('   results meta:', JSON.stringify(res));
  await srv.close();
}
const work = (state: any, f: (i: number, signal?: AbortSignal) => Promise<unknown>) => tool({ inputSchema: z.object({ i: z.number() }), execute: async ({ i }, o) => { state.runs++; return f(i, o.abortSignal); } });

await scenario('retry: fails twice then ok', 1, (tracer, s) => guardTools({ work: work(s, async () => { if (s.runs < 3) throw new Error(`flaky ${s.runs}`); return 'ok'; }) }, { tracer, retry: { maxRetries: 3, initialDelay: 0.01 } }));
//await scenario('retry on write tool (sideEffect write)', 1, (tracer, s) => guardTools({ work: work(s, async () => { if (s.runs < 3) throw new Error(`flaky ${s.runs}`); return 'ok'; }) }, { tracer, retry: { maxRetries: 3, initialDelay: 0.01 }, tools: { work: { sideEffect: 'write' } } }));
await scenario('timeout: tool ignores abort', 1, (tracer, s) => guardTools({ work: work(s, () => new Promise((r) => setTimeout(() => r('late'), 1500))) }, { tracer, timeout: { timeoutSeconds: 0.1 } }));
//await scenario('timeout: tool honours abort', 1, (tracer, s) => guardTools({ work: work(s, (_i, sig) => new Promise((r, j) => { const t = setTimeout(() => r('late'), 1500); sig?.addEventListener('abort', () => { clearTimeout(t); j(sig.reason); }); })) }, { tracer, timeout: { timeoutSeconds: 0.1 } }));
//await scenario('budget: maxCallsPerSession 2, 4 calls', 4, (tracer, s) => guardTools({ work: work(s, async (i) => `r${i}`) }, { tracer, budget: { maxCallsPerSession: 2 } }));
//await scenario('budget: costPerCall 0.4 / session 1.0, 4 calls', 4, (tracer, s) => guardTools({ work: work(s, async (i) => `r${i}`) }, { tracer, budget: { costPerCall: 0.4, maxCostPerSession: 1.0 } }));
//await scenario('rateLimit 2/min, 4 calls, onLimit block?', 4, (tracer, s) => guardTools({ work: work(s, async (i) => `r${i}`) }, { tracer, rateLimit: { callsPerMinute: 2, burst: 2, maxWaitMs: 50 } }));
//await scenario('circuit breaker threshold 2, 4 failing calls', 4, (tracer, s) => guardTools({ work: work(s, async () => { throw new Error('down'); }) }, { tracer, circuitBreaker: { failureThreshold: 2, recoveryTimeout: 30 } }));
await scenario('validators', 1, (tracer, s) => guardTools({ work: work(s, async () => 'bad output') }, { tracer, validators: { output: z.literal('good') } } as any));
await scenario('stream: retry + timeout', 2, (tracer, s) => guardTools({ work: work(s, async (i) => { if (s.runs === 1) throw new Error('flaky'); return `r${i}`; }) }, { tracer, retry: { maxRetries: 2, initialDelay: 0.01 }, timeout: { timeoutSeconds: 1 } }), true);
await scenario('telemetry toolGuards retry', 1, (_t, s) => ({ work: work(s, async () => { if (s.runs < 2) throw new Error('flaky'); return 'ok'; }) }), false, { toolGuards: { retry: { maxRetries: 2, initialDelay: 0.01 } } });
await scenario('telemetry toolGuards timeout (tool ignores abort)', 1, (_t, s) => ({ work: work(s, () => new Promise((r) => setTimeout(() => r('late'), 1500))) }), false, { toolGuards: { timeout: { timeoutSeconds: 0.1 } } });
await scenario('telemetry toolGuards budget calls 1 (3 calls)', 3, (_t, s) => ({ work: work(s, async (i) => `r${i}`) }), false, { toolGuards: { budget: { maxCallsPerSession: 1 } } });
console.log('warnings', warnings, Date.now() - t0);
