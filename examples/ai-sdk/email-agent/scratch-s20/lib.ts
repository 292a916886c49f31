import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { tracewardenMiddleware } from '@tracewarden/ai-sdk';
import { type Block, type Tracer, validateBlocks, stitchBlocks, renderTree } from '@tracewarden/core';
import { startScriptedServer, type ScriptedTurn } from '@tracewarden/testing';
import { wrapLanguageModel } from 'ai';

export const warnings: string[] = [];
process.on('warning', (w) => { warnings.push(`${(w as any).code ?? w.name}: ${w.message}`); });

export async function server(turns: ScriptedTurn[] | any, extra: Record<string, unknown> = {}) {
  return startScriptedServer({ turns, ...extra } as any);
}
export function providerFor(url: string) {
  return createOpenAICompatible({ name: 'openai', baseURL: url, apiKey: 'scripted', includeUsage: true });
}
export function wrapped(url: string, opts: any) {
  return wrapLanguageModel({ model: providerFor(url)('gpt-4o-mini'), middleware: tracewardenMiddleware(opts) });
}
export function summary(blocks: readonly Block[]) {
  return blocks.map((b) => {
    const m = b.metadata as any;
    const p = b.payload as any;
    let s = `${b.sub_type}`;
    if (b.sub_type === 'MESSAGE') s += ` ${p.role} ${JSON.stringify(p.content)?.slice(0, 60)} status=${m.status ?? ''} fin=${m.finish_reason ?? ''} usage=${m.usage ? JSON.stringify(m.usage) : ''}`;
    if (b.sub_type === 'TOOL_CALL') s += ` ${p.name} id=${p.id ?? p.call_id} args=${JSON.stringify(p.arguments)?.slice(0, 80)} policy=${m.policy ?? ''}`;
    if (b.sub_type === 'TOOL_RESULT') s += ` call=${p.call_id ?? p.tool_call_id} status=${m.status} out=${JSON.stringify(p.output)?.slice(0, 100)}`;
    if (b.sub_type === 'THINK') s += ` ${JSON.stringify(p.content ?? p.text)?.slice(0, 60)}`;
    return `  ${b.id.slice(-6)} <- ${(b.parent_block_id ?? '').slice(-6)} ${s}`;
  }).join('\n');
}
export function check(label: string, tracer: Tracer | readonly Block[], opts: { quiet?: boolean } = {}) {
  const blocks = Array.isArray(tracer) ? tracer : (tracer as Tracer).blocks();
  const report = validateBlocks(blocks as Block[]);
  const st = stitchBlocks(blocks as Block[]);
  const orphans = st.orphans.tool_calls.length + st.orphans.tool_results.length;
  console.log(`\n=== ${label}: ${blocks.length} blocks, valid=${report.ok}${report.ok ? '' : ' ' + JSON.stringify(report.errors).slice(0, 600)}, orphans calls=${st.orphans.tool_calls.length} results=${st.orphans.tool_results.length}`);
  if (!opts.quiet) console.log(summary(blocks));
  return { blocks, report, st, orphans };
}
export { renderTree };
