import { type Block, stitchBlocks } from '@tracewarden/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../__fixtures__/test-server.js';
import { describeStores } from '../__fixtures__/test-stores.js';

describeStores('stitched view', (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ store: kind });
  });
  afterAll(() => t.stop());

  /** A valid trace as a list of blocks (parents before children), with timestamps given. */
  const traceArbitrary = fc
    .array(
      fc.record({
        calls: fc.array(
          fc.record({ results: fc.nat({ max: 3 }), seqs: fc.boolean(), thinkFirst: fc.boolean() }),
          { maxLength: 3 },
        ),
        thinks: fc.nat({ max: 2 }),
        role: fc.constantFrom('user', 'assistant', 'system'),
      }),
      { minLength: 1, maxLength: 5 },
    )
    .chain((messages) => {
      const out: Record<string, unknown>[] = [];
      let n = 0;
      const at = () => new Date(Date.UTC(2025, 0, 1) + (n % 7) * 1000).toISOString();
      messages.forEach((message, m) => {
        const messageId = `tb_${String(n++).padStart(4, '0')}`;
        out.push({
          id: messageId,
          sub_type: 'MESSAGE',
          created_at: at(),
          payload: { role: message.role, content: `m${m}` },
        });
        for (let k = 0; k < message.thinks; k++) {
          out.push({
            id: `tb_${String(n++).padStart(4, '0')}`,
            sub_type: 'THINK',
            parent_block_id: messageId,
            created_at: at(),
            payload: { text: `t${k}` },
          });
        }
        message.calls.forEach((call, c) => {
          const callId = `call_${m}_${c}`;
          const id = `tb_${String(n++).padStart(4, '0')}`;
          out.push({
            id,
            sub_type: 'TOOL_CALL',
            parent_block_id: messageId,
            created_at: at(),
            payload: { call_id: callId, name: 'tool', arguments: { c } },
          });
          for (let r = 0; r < call.results; r++) {
            out.push({
              id: `tb_${String(n++).padStart(4, '0')}`,
              sub_type: 'TOOL_RESULT',
              parent_block_id: id,
              created_at: at(),
              payload: call.seqs
                ? { call_id: callId, delta: `d${r}`, seq: call.results - r }
                : { call_id: callId, output: `o${r}` },
            });
          }
        });
      });
      // split into batches at arbitrary points, each batch in any order
      return fc.tuple(
        fc.constant(out),
        fc.array(fc.nat({ max: out.length }), { maxLength: 4 }),
        fc.infiniteStream(fc.nat()),
      );
    });

  describe('stitched view (property)', () => {
    it("any sequence of valid batches gives core's stitchBlocks over all the blocks", async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(traceArbitrary, async ([all, cuts, shuffles]) => {
          const traceId = `tr_prop_${run++}`;
          const bounds = [...new Set([0, ...cuts, all.length])].sort((a, b) => a - b);
          const random = shuffles[Symbol.iterator]();
          for (let i = 0; i + 1 < bounds.length; i++) {
            const batch = all.slice(bounds[i], bounds[i + 1]);
            // any order within a batch (the server orders parents first)
            for (let j = batch.length - 1; j > 0; j--) {
              const k = (random.next().value as number) % (j + 1);
              [batch[j], batch[k]] = [
                batch[k] as Record<string, unknown>,
                batch[j] as Record<string, unknown>,
              ];
            }
            const response = await t.post(traceId, batch);
            expect(response.status).toBe(201);
            // a retry of the same batch changes nothing
            if (i === 0) expect((await t.post(traceId, batch)).status).toBe(200);
          }
          const stitched = await (
            await t.request(`/v1/organizations/default/traces/${traceId}/blocks.stitched`)
          ).json();
          const stored = (await (
            await t.request(`/v1/organizations/default/traces/${traceId}/blocks?limit=1000`)
          ).json()) as { blocks: Block[] };
          expect(stored.blocks).toHaveLength(all.length);
          // the stored blocks are the given ones, normalised
          const byId = new Map(stored.blocks.map((block) => [block.id, block]));
          for (const given of all) expect(byId.get(given.id as string)).toMatchObject(given);
          const expected = JSON.parse(
            JSON.stringify(stitchBlocks(stored.blocks.slice().reverse(), { traceId })),
          );
          expect(stitched).toEqual(expected);
          expect(expected.orphans).toEqual({ tool_calls: [], tool_results: [] });
        }),
        { numRuns: 40 },
      );
    });
  });
});
