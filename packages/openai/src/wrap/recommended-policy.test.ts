import { createTracer, PolicyViolationError, recommendedPolicy } from '@tracewarden/core';
import { emailAgent, type ScriptedServer, startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { executeToolCalls } from '../tools/execute-tool-calls.js';
import { wrapOpenAI } from './wrap-openai.js';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const tools = emailAgent.tools.map((tool) => ({
  type: 'function' as const,
  function: { name: tool.name, description: tool.description, parameters: tool.parameters },
}));

/** The email story through a wrapped real client over HTTP: read the inbox, fall for the injection. */
async function runStory(mode: 'throw' | 'refuse', stream: boolean) {
  const server = await startScriptedServer({ turns: [...emailAgent.turns] });
  servers.push(server);
  const tracer = createTracer();
  const client = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'sk-test', maxRetries: 0 }), {
    tracer,
    policy: recommendedPolicy(),
    onPolicyViolation: mode,
  });
  const sent: string[] = [];
  const read: number[] = [];
  const implementations = {
    get_inbox: () => {
      read.push(1);
      return emailAgent.inbox;
    },
    send_email: (args: Record<string, unknown>) => {
      sent.push(String(args.to));
      return 'sent';
    },
  };
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: emailAgent.system },
    { role: 'user', content: emailAgent.user },
  ];
  const run = async (): Promise<string | null> => {
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
      if (!message.tool_calls?.length) return message.content;
      messages.push(...(await executeToolCalls(message, implementations, { tracer })));
    }
    return null;
  };
  return { run, tracer, sent, read, messages };
}

describe('recommendedPolicy() through wrapOpenAI', () => {
  for (const stream of [false, true])
    it(`stops the email story's exfiltration before send_email runs (throw, ${stream ? 'streamed' : 'not streamed'})`, async () => {
      const { run, tracer, sent, read } = await runStory('throw', stream);
      const thrown = await run().catch((error: unknown) => error);
      // the SDK's stream helper wraps errors it did not raise, with ours as the cause
      const error = thrown instanceof PolicyViolationError ? thrown : (thrown as Error).cause;
      expect(error).toBeInstanceOf(PolicyViolationError);
      expect(read).toHaveLength(1); // get_inbox was allowed
      expect(sent).toEqual([]);
      const call = tracer.findToolCall('call_send');
      expect(call?.metadata.policy).toBe('block');
      expect(call?.metadata.violations).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ action: 'block', rule: 'attacker-action' }),
        ]),
      );
    });

  for (const stream of [false, true])
    it(`replaces the blocked call by a refusal (refuse, ${stream ? 'streamed' : 'not streamed'})`, async () => {
      const { run, tracer, sent, read } = await runStory('refuse', stream);
      const answer = await run();
      expect(read).toHaveLength(1);
      expect(sent).toEqual([]);
      expect(answer).toMatch(/^Tool call send_email was blocked by policy: tool call uses a value/);
      expect(tracer.findToolCall('call_send')?.metadata.policy).toBe('block');
      // the injected email itself is flagged (a warn rule on the tool output), on the answer of
      // the call that read it
      const flagged = tracer
        .blocks()
        .filter((block) => block.sub_type === 'MESSAGE' && block.metadata.violations !== undefined);
      expect(flagged.map((block) => block.metadata.violations)).toEqual([
        expect.arrayContaining([
          expect.objectContaining({ action: 'warn', rule: 'injected-content' }),
        ]),
      ]);
    });
});
