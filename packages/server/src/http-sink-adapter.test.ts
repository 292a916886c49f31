import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpSink, createTracer, recommendedPolicy } from '@tracewarden/core';
import { executeToolCalls, wrapOpenAI } from '@tracewarden/openai';
import { emailAgent, startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from './index.js';

// What a user of an adapter gets: wrapOpenAI's tracer sending through createHttpSink to the
// collector, the email story over real HTTP (the scripted model), the collector's stitched
// trace equal to the tracer's own.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('createHttpSink under an adapter', () => {
  for (const stream of [false, true])
    it(`wrapOpenAI's trace of the email story (refused exfiltration) is stored as the tracer stitches it${stream ? ', streamed' : ''}`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'tracewarden-sink-adapter-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const collector = await startServer({ port: 0, dataDir, env: {}, onError: () => undefined });
      cleanups.push(() => collector.close({ timeoutMs: 1000 }));
      const { key } = await collector.createApiKey({ organization: 'agents' });
      const model = await startScriptedServer({ turns: [...emailAgent.turns] });
      cleanups.push(() => model.close());

      const sink = createHttpSink({ url: collector.url, apiKey: key, organization: 'agents' });
      const tracer = createTracer({ sinks: [sink] });
      const client = wrapOpenAI(
        new OpenAI({ baseURL: model.url, apiKey: 'sk-test', maxRetries: 0 }),
        {
          tracer,
          policy: recommendedPolicy(),
          onPolicyViolation: 'refuse',
        },
      );
      const tools = emailAgent.tools.map((tool) => ({
        type: 'function' as const,
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      const sent: string[] = [];
      const implementations = {
        get_inbox: () => emailAgent.inbox,
        send_email: (args: Record<string, unknown>) => {
          sent.push(String(args.to));
          return 'sent';
        },
      };
      const messages: ChatCompletionMessageParam[] = [
        { role: 'system', content: emailAgent.system },
        { role: 'user', content: emailAgent.user },
      ];
      for (let turn = 0; turn < 4; turn++) {
        const message = stream
          ? (
              await client.chat.completions
                .stream({ model: 'gpt-4o-mini', messages, tools })
                .finalChatCompletion()
            ).choices[0]?.message
          : (await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools }))
              .choices[0]?.message;
        if (message === undefined) throw new Error('no message');
        messages.push(message);
        if (!message.tool_calls?.length) break;
        messages.push(...(await executeToolCalls(message, implementations, { tracer })));
      }
      expect(sent).toEqual([]);
      await tracer.flush();
      expect(sink.pendingBlocks).toBe(0);

      const response = await fetch(
        `${collector.url}/v1/organizations/agents/traces/${tracer.traceId}/blocks.stitched`,
        { headers: { authorization: `Bearer ${key}` } },
      );
      expect(response.status).toBe(200);
      const stored = await response.json();
      expect(stored).toEqual(JSON.parse(JSON.stringify(tracer.stitched())));
      // the blocked call is there with its verdict
      expect(JSON.stringify(stored)).toContain('"policy":"block"');
      await sink.close();
    });
});
