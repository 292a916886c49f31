// A tool call whose arguments exceed the 256 KB block limit (a file write), with a policy that blocks it.
import { guardTools } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy, renderTree } from '@tracewarden/core';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, warnings } from './lib.ts';
const policy = parsePolicy(`
raise "no writes to /etc" if:
    (call: ToolCall)
    call is tool:write_file
    match("^/etc/.*", call.function.arguments.path)
`);
for (const mode of ['refuse', 'throw'] as const) {
  const srv = await server([
    { toolCalls: [{ id: 'c1', name: 'write_file', arguments: { path: '/etc/passwd', body: 'x'.repeat(300_000) } }] },
    { text: 'ok' },
  ]);
  const tracer = createTracer();
  const written: string[] = [];
  let out = '';
  try {
    const r = await generateText({
      model: wrapped(srv.url, { tracer, policy, onPolicyViolation: mode }),
      prompt: 'write it',
      tools: guardTools({ write_file: tool({ inputSchema: z.object({ path: z.string(), body: z.string() }), execute: async ({ path }) => { written.push(path); return 'written'; } }) }, { tracer }),
      stopWhen: stepCountIs(3),
    });
    out = r.text;
  } catch (e: any) { out = `threw ${e.name}`; }
  console.log(`\n#### ${mode}: ${out}; written=${JSON.stringify(written)}`);
  const { blocks } = check(mode, tracer);
  console.log('   assistant #1 metadata keys:', Object.keys((blocks[1] as any).metadata), 'raw bytes', JSON.stringify((blocks[1] as any).metadata.raw ?? (blocks[1] as any).raw ?? null).length);
  console.log(renderTree(tracer.stitched(), { color: false }));
  await srv.close();
}
console.log(warnings);
