import { HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import {
  type Block,
  createTracer,
  PolicyViolationError,
  recommendedPolicy,
  type Tracer,
} from '@tracewarden/core';
import { emailAgent, type ScriptedServer, startScriptedServer } from '@tracewarden/testing';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TracewardenCallbackHandler } from './handler/index.js';
import { tracewardenAgentMiddleware } from './middleware/index.js';
import { guardTools } from './tools/index.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const describeTool = (name: string): string =>
  emailAgent.tools.find((candidate) => candidate.name === name)?.description ?? name;

/** The email story's tools, recording what ran. */
function storyTools() {
  const ran: string[] = [];
  const getInbox = tool(
    async () => {
      ran.push('get_inbox');
      return JSON.stringify(emailAgent.inbox);
    },
    { name: 'get_inbox', description: describeTool('get_inbox'), schema: z.object({}) },
  );
  const sendEmail = tool(
    async ({ to }: { to: string; subject: string; body: string }) => {
      ran.push(`send_email:${to}`);
      return 'sent';
    },
    {
      name: 'send_email',
      description: describeTool('send_email'),
      schema: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
    },
  );
  return { ran, tools: [getInbox, sendEmail] };
}

/** A real ChatOpenAI client playing the story's turns over HTTP. */
async function storyModel(): Promise<ChatOpenAI> {
  server = await startScriptedServer({ turns: [...emailAgent.turns] });
  return new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'scripted',
    maxRetries: 0,
    configuration: { baseURL: server.url },
  });
}

const question = () => ({ messages: [new HumanMessage(emailAgent.user)] });
const blockedCall = (tracer: Tracer): Block | undefined =>
  tracer
    .blocks()
    .find((block) => block.sub_type === 'TOOL_CALL' && block.payload.call_id === 'call_send');

/** The PolicyViolationError behind an error (createAgent wraps what a middleware throws). */
function violationIn(error: unknown): unknown {
  for (let current = error; current !== undefined && current !== null; ) {
    if (PolicyViolationError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

describe('recommendedPolicy() through the LangChain adapter', () => {
  describe('the agent middleware, with guarded tools', () => {
    it("stops the email story's exfiltration before send_email runs (throw)", async () => {
      const tracer = createTracer();
      const { ran, tools } = storyTools();
      const agent = createAgent({
        model: await storyModel(),
        systemPrompt: emailAgent.system,
        tools: guardTools(tools),
        middleware: [
          tracewardenAgentMiddleware({ tracer, policy: recommendedPolicy(), pricing: false }),
        ],
      });
      const error = await agent.invoke(question()).catch((caught: unknown) => caught);
      expect(violationIn(error)).toBeDefined();
      expect(ran).toEqual(['get_inbox']);
      expect(blockedCall(tracer)?.metadata).toMatchObject({ policy: 'block' });
    });

    it('answers the blocked call with a refusal and lets the model report (refuse)', async () => {
      const tracer = createTracer();
      const { ran, tools } = storyTools();
      const agent = createAgent({
        model: await storyModel(),
        systemPrompt: emailAgent.system,
        tools: guardTools(tools),
        middleware: [
          tracewardenAgentMiddleware({
            tracer,
            policy: recommendedPolicy(),
            onPolicyViolation: 'refuse',
            pricing: false,
          }),
        ],
      });
      const result = await agent.invoke(question());
      expect(ran).toEqual(['get_inbox']);
      const refusal = result.messages.find(
        (message) => message.type === 'tool' && (message as ToolMessage).status === 'error',
      ) as ToolMessage | undefined;
      expect(String(refusal?.content)).toContain('send_email was blocked by policy');
      expect(String(result.messages.at(-1)?.content)).toContain('nothing was sent');
      expect(blockedCall(tracer)?.metadata).toMatchObject({ policy: 'block' });
    });
  });

  describe('the callback handler', () => {
    it("stops the email story's exfiltration before send_email runs (throw)", async () => {
      const tracer = createTracer();
      const { ran, tools } = storyTools();
      const handler = new TracewardenCallbackHandler({
        tracer,
        policy: recommendedPolicy(),
        pricing: false,
      });
      const agent = createAgent({
        model: await storyModel(),
        systemPrompt: emailAgent.system,
        tools,
      });
      const error = await agent
        .invoke(question(), { callbacks: [handler] })
        .catch((caught: unknown) => caught);
      expect(violationIn(error)).toBeDefined();
      expect(ran).toEqual(['get_inbox']);
      expect(blockedCall(tracer)?.metadata).toMatchObject({ policy: 'block' });
    });

    it('refuses the tool run of the blocked call; guarded tools answer it (refuse)', async () => {
      const tracer = createTracer();
      const { ran, tools } = storyTools();
      const handler = new TracewardenCallbackHandler({
        tracer,
        policy: recommendedPolicy(),
        onPolicyViolation: 'refuse',
        pricing: false,
      });
      const agent = createAgent({
        model: await storyModel(),
        systemPrompt: emailAgent.system,
        tools: guardTools(tools),
      });
      const result = await agent.invoke(question(), { callbacks: [handler] });
      expect(ran).toEqual(['get_inbox']);
      expect(JSON.stringify(result.messages.map((message) => message.content))).toContain(
        'send_email was blocked by policy',
      );
      expect(blockedCall(tracer)?.metadata).toMatchObject({ policy: 'block' });
    });
  });
});
