import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { setupForTest } from '../__fixtures__/setup.js';

const assistantStatuses = (blocks: readonly { payload: unknown; metadata: unknown }[]) =>
  blocks
    .filter((block) => (block.payload as { role?: unknown }).role === 'assistant')
    .map((block) => (block.metadata as { status?: unknown }).status);

describe('a stream handed to the caller and never read', () => {
  it('is ended by timeoutSeconds: recorded as timeout, its budget reservation given back', async () => {
    const { client, tracer } = await setupForTest(
      { turns: Array.from({ length: 3 }, () => ({ text: 'hello' })) },
      {
        guards: { budget: { maxCostPerCall: 0.0004, maxCostPerSession: 0.001 } },
        timeoutSeconds: 0.1,
      },
    );
    for (const question of ['q0', 'q1'])
      await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: question }],
        stream: true,
      });
    await sleep(300);
    expect(assistantStatuses(tracer.blocks())).toEqual(['timeout', 'timeout']);
    // both reservations (0.0004 each of 0.001) were given back: a third call is admitted
    const answer = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'q2' }],
    });
    expect(answer.choices[0]?.message.content).toBe('hello');
    expect(assistantStatuses(tracer.blocks())).toEqual(['timeout', 'timeout', 'success']);
  });

  it("is ended by the caller's signal: recorded as cancelled", async () => {
    const { client, tracer } = await setupForTest({ turns: [{ text: 'hello' }] });
    const controller = new AbortController();
    await client.chat.completions.create(
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'q' }], stream: true },
      { signal: controller.signal },
    );
    controller.abort();
    await sleep(50);
    expect(assistantStatuses(tracer.blocks())).toEqual(['cancelled']);
  });
});
