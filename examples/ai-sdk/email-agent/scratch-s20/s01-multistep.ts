import { guardTools } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy } from '@tracewarden/core';
import { emailAgent } from '@tracewarden/testing';
import { generateText, streamText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, warnings } from './lib.ts';

for (const mode of ['generate', 'stream'] as const) for (const pmode of ['refuse', 'throw'] as const) {
  const srv = await server([...emailAgent.turns], { chunkSize: 7 });
  const tracer = createTracer();
  const model = wrapped(srv.url, { tracer, policy: parsePolicy(emailAgent.policy), onPolicyViolation: pmode });
  const sent: unknown[] = [];
  const tools = guardTools({
    get_inbox: tool({ inputSchema: z.object({}), execute: async () => emailAgent.inbox }),
    send_email: tool({ inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }), execute: async (e) => { sent.push(e); return { sent: true }; } }),
  }, { tracer });
  const steps: string[] = [];
  let finished = false;
  const args = {
    model, tools, system: emailAgent.system, prompt: emailAgent.user, stopWhen: stepCountIs(6),
    onStepFinish: (s: any) => steps.push(`${s.finishReason}:${s.toolCalls.length}calls:${s.toolResults.length}res:${s.content.filter((c: any) => c.type === 'tool-error').length}err`),
    onFinish: () => { finished = true; },
  };
  let outcome = '';
  try {
    if (mode === 'generate') { const r = await generateText(args); outcome = `text=${r.text.slice(0, 60)} steps=${r.steps.length} usage=${JSON.stringify(r.totalUsage)}`; }
    else {
      const r = streamText({ ...args, onError: ({ error }: any) => { outcome += `onError:${error?.name}:${error?.code}`; } });
      for await (const _ of r.fullStream) {}
      outcome += ` text=${(await r.text).slice(0, 60)} steps=${(await r.steps).length}`;
    }
  } catch (e: any) { outcome = `threw ${e?.name} ${e?.code} ${e?.message?.slice(0, 100)}`; }
  console.log(`\n##### ${mode} ${pmode}: ${outcome}; steps=${steps.join(',')} finished=${finished} sent=${sent.length}`);
  check(`${mode}/${pmode}`, tracer);
  await srv.close();
}
console.log('warnings', warnings);
