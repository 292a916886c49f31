import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks, startTestServer, type TestServer } from '../__fixtures__/test-server.js';
import { describeStores } from '../__fixtures__/test-stores.js';

describeStores('blocks routes', (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      store: kind,
      limits: {
        maxBodyBytes: 1024 * 1024,
        maxDecompressedBytes: 2 * 1024 * 1024,
        maxBatchBlocks: 50,
        maxTraceBlocks: 60,
      },
    });
  });
  afterAll(() => t.stop());

  const path = (traceId: string, suffix = '/blocks') =>
    `/v1/organizations/default/traces/${traceId}${suffix}`;

  async function storedBlocks(traceId: string) {
    const response = await t.request(path(traceId));
    return ((await response.json()) as { blocks: { id: string }[] }).blocks;
  }

  describe('POST /v1/organizations/:org/traces/:traceId/blocks', () => {
    it('stores a batch, assigns tb_ ids, the trace id and timestamps where absent', async () => {
      const response = await t.post('tr_assign', [
        { sub_type: 'MESSAGE', payload: { role: 'user', content: 'hi' } },
        blocks.message('tb_given', 'hello again'),
      ]);
      expect(response.status).toBe(201);
      const body = (await response.json()) as {
        inserted: number;
        blocks: { id: string; trace_id: string; block_type: string; created_at: string }[];
      };
      expect(body.inserted).toBe(2);
      expect(body.blocks[0]?.id).toMatch(/^tb_[0-9A-Z]{26}$/);
      expect(body.blocks[1]?.id).toBe('tb_given');
      for (const block of body.blocks) {
        expect(block.trace_id).toBe('tr_assign');
        expect(block.block_type).toBe('MESSAGE');
        expect(Number.isNaN(Date.parse(block.created_at))).toBe(false);
      }
    });

    it('accepts TOOL_RESULTs with seq: null (seed 002: "nulls last"), stores them as given, never as duplicates', async () => {
      const nullSeq = (id: string, output: string) => ({
        ...blocks.result(id, 'tb_c', 'call_1', output),
        payload: { call_id: 'call_1', output, seq: null },
      });
      expect(
        (
          await t.post('tr_null_seq', [
            blocks.message('tb_m'),
            blocks.call('tb_c', 'tb_m', 'call_1'),
            nullSeq('tb_n1', 'a'),
            blocks.result('tb_r0', 'tb_c', 'call_1', 'b', 0),
          ])
        ).status,
      ).toBe(201);
      // a second null seq, in a later batch, does not collide with the first
      expect((await t.post('tr_null_seq', [nullSeq('tb_n2', 'c')])).status).toBe(201);
      const stored = (await storedBlocks('tr_null_seq')) as { id: string; payload: unknown }[];
      expect(stored.find((block) => block.id === 'tb_n1')?.payload).toEqual({
        call_id: 'call_1',
        output: 'a',
        seq: null,
      });
      const stitched = (await (
        await t.request(path('tr_null_seq', '/blocks.stitched'))
      ).json()) as {
        messages: { tool_calls: { results: { id: string }[] }[] }[];
      };
      expect(stitched.messages[0]?.tool_calls[0]?.results.map((block) => block.id)).toEqual([
        'tb_r0',
        'tb_n1',
        'tb_n2',
      ]);
    });

    it('takes parents, duplicates and seqs from earlier batches into account', async () => {
      expect((await t.post('tr_cross', [blocks.message('tb_m')])).status).toBe(201);
      expect((await t.post('tr_cross', [blocks.call('tb_c', 'tb_m', 'call_1')])).status).toBe(201);
      expect(
        (await t.post('tr_cross', [blocks.result('tb_r0', 'tb_c', 'call_1', 'a', 0)])).status,
      ).toBe(201);

      const duplicateCall = await t.post('tr_cross', [blocks.call('tb_c2', 'tb_m', 'call_1')]);
      expect(duplicateCall.status).toBe(409);
      expect(((await duplicateCall.json()) as { error: { code: string } }).error.code).toBe(
        'DUPLICATE_CALL_ID',
      );

      const duplicateSeq = await t.post('tr_cross', [
        blocks.result('tb_r0b', 'tb_c', 'call_1', 'b', 0),
      ]);
      expect(duplicateSeq.status).toBe(409);
      expect(await duplicateSeq.json()).toMatchObject({
        error: {
          code: 'DUPLICATE_RESULT_SEQ',
          http_status: 409,
          details: { call_id: 'call_1', seq: 0, block_id: 'tb_r0b' },
        },
      });

      const wrongParent = await t.post('tr_cross', [blocks.think('tb_t', 'tb_c')]);
      expect(wrongParent.status).toBe(409);
      expect(await wrongParent.json()).toMatchObject({
        error: {
          code: 'PARENT_SUBTYPE_MISMATCH',
          http_status: 409,
          details: { parent_block_id: 'tb_c' },
        },
      });

      const orphan = await t.post('tr_cross', [blocks.result('tb_x', 'tb_missing', 'call_1')]);
      expect(orphan.status).toBe(422);
      expect(((await orphan.json()) as { error: { code: string } }).error.code).toBe('VALIDATION');

      // a parent in another trace is not a parent
      const crossTrace = await t.post('tr_other', [blocks.call('tb_c9', 'tb_m', 'call_9')]);
      expect(crossTrace.status).toBe(422);

      expect((await storedBlocks('tr_cross')).map((block) => block.id)).toEqual([
        'tb_m',
        'tb_c',
        'tb_r0',
      ]);
    });

    it('a parent of the wrong sub type in the same batch is a PARENT_SUBTYPE_MISMATCH, whatever the order', async () => {
      const cases = [
        // a TOOL_CALL under a TOOL_RESULT, a THINK under a TOOL_RESULT, a TOOL_CALL under a THINK
        [blocks.call('tb_c2', 'tb_r', 'call_2'), 'tb_r'],
        [blocks.think('tb_t2', 'tb_r'), 'tb_r'],
        [blocks.call('tb_c3', 'tb_t', 'call_3'), 'tb_t'],
      ] as const;
      for (const [index, [child, parent]] of cases.entries()) {
        const trace = `tr_batch_parent_${index}`;
        const valid = [
          blocks.message('tb_m'),
          blocks.call('tb_c', 'tb_m', 'call_1'),
          blocks.result('tb_r', 'tb_c', 'call_1', 'ok'),
          blocks.think('tb_t', 'tb_m'),
        ];
        for (const batch of [
          [...valid, child],
          [child, ...valid],
        ]) {
          const response = await t.post(trace, batch);
          expect(response.status).toBe(409);
          expect(await response.json()).toMatchObject({
            error: { code: 'PARENT_SUBTYPE_MISMATCH', details: { parent_block_id: parent } },
          });
        }
      }
      // parents listed after their children are still found in the batch
      const reversed = await t.post('tr_batch_reversed', [
        blocks.result('tb_r', 'tb_c', 'call_1', 'ok'),
        blocks.call('tb_c', 'tb_m', 'call_1'),
        blocks.message('tb_m'),
      ]);
      expect(reversed.status).toBe(201);
    });

    it("takes a bare array of blocks (seed 002's example) as the batch", async () => {
      const response = await t.request(path('tr_bare'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([
          { block_type: 'MESSAGE', sub_type: 'MESSAGE', payload: { role: 'user', content: 'hi' } },
        ]),
      });
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ trace_id: 'tr_bare', inserted: 1 });
      const notBlocks = await t.request(path('tr_bare'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '"blocks"',
      });
      expect(notBlocks.status).toBe(422);
    });

    it('answers every error in exactly the seed shape', async () => {
      const response = await t.post('tr_shape', [
        { sub_type: 'MESSAGE', payload: { role: 'robot', content: 'x' } },
      ]);
      expect(response.status).toBe(422);
      const body = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['error']);
      expect(Object.keys(body.error as object)).toEqual([
        'code',
        'http_status',
        'message',
        'details',
      ]);
      expect(body).toMatchObject({
        error: { code: 'VALIDATION', http_status: 422, details: { field: 'role' } },
      });
    });

    it('rejects an oversize payload with the seed PAYLOAD_TOO_LARGE body', async () => {
      await t.post('tr_big', [blocks.message('tb_m'), blocks.call('tb_c', 'tb_m', 'call_1')]);
      const output = 'x'.repeat(40_000);
      const small = await startTestServer({
        store: kind,
        blockLimits: { toolResultBytes: 32_768 },
      });
      try {
        await small.post('tr_big', [blocks.message('tb_m'), blocks.call('tb_c', 'tb_m', 'call_1')]);
        const response = await small.post('tr_big', [
          blocks.result('tb_r', 'tb_c', 'call_1', output),
        ]);
        expect(response.status).toBe(413);
        expect(await response.json()).toEqual({
          error: {
            code: 'PAYLOAD_TOO_LARGE',
            http_status: 413,
            message: 'tool_result output exceeds 32KB limit',
            details: {
              sub_type: 'TOOL_RESULT',
              field: 'output',
              limit_bytes: 32_768,
              actual_bytes: 40_000,
              trace_id: 'tr_big',
              parent_block_id: 'tb_c',
            },
          },
        });
      } finally {
        await small.stop();
      }
    });

    it('honours the seed LIMIT_* variables', async () => {
      const limited = await startTestServer({ store: kind, env: { LIMIT_MSG_BYTES: '10' } });
      try {
        const response = await limited.post('tr_env', [
          blocks.message('tb_m', 'longer than ten bytes'),
        ]);
        expect(response.status).toBe(413);
        expect(await response.json()).toMatchObject({
          error: { code: 'PAYLOAD_TOO_LARGE', details: { limit_bytes: 10, field: 'content' } },
        });
      } finally {
        await limited.stop();
      }
    });

    it('is all or nothing: one bad block stores none of the batch', async () => {
      const response = await t.post('tr_atomic', [
        blocks.message('tb_m'),
        blocks.call('tb_c', 'tb_m', 'call_1'),
        blocks.call('tb_c2', 'tb_m', 'call_1'),
      ]);
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ error: { details: { path: '2' } } });
      expect((await t.request(path('tr_atomic'))).status).toBe(404);
    });

    it('accepts children before their parents within one batch', async () => {
      const response = await t.post('tr_order', [
        blocks.result('tb_r', 'tb_c', 'call_1'),
        blocks.call('tb_c', 'tb_m', 'call_1'),
        blocks.message('tb_m'),
      ]);
      expect(response.status).toBe(201);
      const body = (await response.json()) as { blocks: { id: string }[] };
      expect(body.blocks.map((block) => block.id)).toEqual(['tb_r', 'tb_c', 'tb_m']);
    });

    it('treats a re-sent batch as a no-op success, and the same id with other content as an error', async () => {
      const batch = [
        blocks.message('tb_m'),
        { ...blocks.call('tb_c', 'tb_m', 'call_1'), created_at: '2025-01-01T00:00:00.000Z' },
      ];
      const first = await t.post('tr_retry', batch);
      expect(first.status).toBe(201);
      const firstBody = (await first.json()) as { blocks: unknown[] };
      const again = await t.post('tr_retry', batch);
      expect(again.status).toBe(200);
      const againBody = (await again.json()) as { inserted: number; blocks: unknown[] };
      expect(againBody.inserted).toBe(0);
      expect(againBody.blocks).toEqual(firstBody.blocks);
      // a partly stored batch (the retry of a batch that grew) stores only what is new
      const grown = await t.post('tr_retry', [...batch, blocks.result('tb_r', 'tb_c', 'call_1')]);
      expect(grown.status).toBe(201);
      expect(((await grown.json()) as { inserted: number }).inserted).toBe(1);

      const changed = await t.post('tr_retry', [blocks.message('tb_m', 'something else')]);
      expect(changed.status).toBe(422);
      const changedBody = (await changed.json()) as { error: { details: object } };
      expect(changedBody).toMatchObject({
        error: { code: 'VALIDATION', details: { field: 'id', block_id: 'tb_m' } },
      });
      // a one-block request's error is seed 002's body exactly: no position
      expect(changedBody.error.details).not.toHaveProperty('path');
      expect(await storedBlocks('tr_retry')).toHaveLength(3);
    });

    it('rejects an over-long trace id', async () => {
      const response = await t.post('t'.repeat(257), [blocks.message('tb_m')]);
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({
        error: { code: 'VALIDATION', details: { field: 'trace_id' } },
      });
    });

    it('rejects a one-block request of another trace than the path without a position', async () => {
      const response = await t.post('tr_path1', [{ ...blocks.message('tb_m'), trace_id: 'tr_x' }]);
      expect(response.status).toBe(422);
      const body = (await response.json()) as { error: { details: object } };
      expect(body).toMatchObject({
        error: { code: 'VALIDATION', details: { field: 'trace_id', block_id: 'tb_m' } },
      });
      expect(body.error.details).not.toHaveProperty('path');
    });

    it('rejects a block of another trace than the path', async () => {
      const response = await t.post('tr_path', [
        blocks.message('tb_n'),
        { ...blocks.message('tb_m'), trace_id: 'tr_elsewhere' },
      ]);
      expect(response.status).toBe(422);
      const body = (await response.json()) as { error: { message: string } };
      // `path` is the block's position in the batch, as for every other block error
      expect(body).toMatchObject({
        error: { code: 'VALIDATION', details: { path: '1', field: 'trace_id', block_id: 'tb_m' } },
      });
      // said in the API's terms, not the library's
      expect(body.error.message).toContain('posted to trace "tr_path"');
      expect(body.error.message).not.toContain('validateBlocks');
    });

    it('rejects malformed JSON, a wrong content type or encoding, and a body without blocks', async () => {
      const send = (body: string | Uint8Array, headers: Record<string, string>) =>
        t.request(path('tr_bad'), { method: 'POST', headers, body });
      const malformed = await send('{"blocks": [', { 'content-type': 'application/json' });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({
        error: { code: 'INVALID_JSON', http_status: 400 },
      });

      const text = await send('{"blocks": []}', { 'content-type': 'text/plain' });
      expect(text.status).toBe(415);
      expect(await text.json()).toMatchObject({
        error: {
          code: 'UNSUPPORTED_MEDIA_TYPE',
          http_status: 415,
          details: { field: 'content-type' },
        },
      });

      const brotli = await send('{"blocks": []}', {
        'content-type': 'application/json',
        'content-encoding': 'br',
      });
      expect(brotli.status).toBe(415);

      const noBlocks = await send('{"block": []}', { 'content-type': 'application/json' });
      expect(noBlocks.status).toBe(422);
      expect(await noBlocks.json()).toMatchObject({
        error: { code: 'VALIDATION', details: { field: 'blocks' } },
      });

      const notUtf8 = await send(new Uint8Array([0x7b, 0xff, 0x7d]), {
        'content-type': 'application/json',
      });
      expect(notUtf8.status).toBe(400);
    });

    it('answers 413 for a body over the limit, and still serves the connection after', async () => {
      const huge = JSON.stringify({
        blocks: [blocks.message('tb_m', 'x'.repeat(2 * 1024 * 1024))],
      });
      const response = await t.request(path('tr_huge'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: huge,
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          http_status: 413,
          details: {
            field: 'body',
            limit_bytes: 1024 * 1024,
            actual_bytes: Buffer.byteLength(huge),
          },
        },
      });
      expect((await t.request('/healthz')).status).toBe(200);
    });

    it('accepts gzip bodies and stops a gzip bomb at the decompressed cap', async () => {
      const gzipped = await t.request(path('tr_gzip'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(JSON.stringify({ blocks: [blocks.message('tb_m')] })),
      });
      expect(gzipped.status).toBe(201);

      // 64 MiB of zeros compress to about 64 KiB: under the body limit, far over the decompressed cap
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
      expect(bomb.length).toBeLessThan(1024 * 1024);
      const response = await t.request(path('tr_bomb'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: bomb,
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          details: { field: 'decompressed_body', limit_bytes: 2 * 1024 * 1024 },
        },
      });

      const notGzip = await t.request(path('tr_gzip'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: '{"blocks": []}',
      });
      expect(notGzip.status).toBe(400);
    });

    it('limits blocks per batch and per trace with 413s', async () => {
      const many = Array.from({ length: 51 }, (_, i) => blocks.message(`tb_${i}`));
      const batch = await t.post('tr_many', many);
      expect(batch.status).toBe(413);
      expect(await batch.json()).toMatchObject({
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          details: { field: 'blocks', limit_blocks: 50, actual_blocks: 51 },
        },
      });
      expect((await t.post('tr_many', many.slice(0, 40))).status).toBe(201);
      const over = await t.post(
        'tr_many',
        many
          .slice(40, 51)
          .concat([blocks.message('tb_z')])
          .concat(Array.from({ length: 10 }, (_, i) => blocks.message(`tb_y${i}`))),
      );
      expect(over.status).toBe(413);
      expect(await over.json()).toMatchObject({
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          details: { field: 'blocks', limit_blocks: 60, actual_blocks: 62 },
        },
      });
    });
  });

  describe('GET .../blocks and .../blocks.stitched', () => {
    it('pages through blocks with a keyset cursor', async () => {
      const all = Array.from({ length: 7 }, (_, i) => blocks.message(`tb_p${i}`, `message ${i}`));
      await t.post('tr_pages', all);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor === null ? '?limit=3' : `?limit=3&cursor=${cursor}`;
        const response = await t.request(path('tr_pages') + query);
        expect(response.status).toBe(200);
        const body = (await response.json()) as {
          blocks: { id: string }[];
          next_cursor: string | null;
        };
        seen.push(...body.blocks.map((block) => block.id));
        cursor = body.next_cursor;
        pages++;
      } while (cursor !== null);
      expect(pages).toBe(3);
      expect(seen).toEqual(all.map((block) => block.id));

      expect((await t.request(`${path('tr_pages')}?cursor=nonsense!`)).status).toBe(400);
      expect((await t.request(`${path('tr_pages')}?limit=0`)).status).toBe(400);
      expect((await t.request(path('tr_nothing'))).status).toBe(404);
    });

    it("returns core's stitched tree in the seed's order, with orphans", async () => {
      await t.post('tr_stitch', [
        blocks.message('tb_m'),
        blocks.call('tb_c', 'tb_m', 'call_1'),
        {
          ...blocks.result('tb_r1', 'tb_c', 'call_1', 'b', 1),
          created_at: '2025-01-01T00:00:00.000Z',
        },
        {
          ...blocks.result('tb_r0', 'tb_c', 'call_1', 'a', 0),
          created_at: '2025-01-01T00:00:01.000Z',
        },
        blocks.think('tb_t', 'tb_m'),
      ]);
      const response = await t.request(path('tr_stitch', '/blocks.stitched'));
      expect(response.status).toBe(200);
      const tree = (await response.json()) as {
        trace_id: string;
        messages: {
          block: { id: string };
          thinks: { id: string }[];
          tool_calls: { results: { id: string }[] }[];
        }[];
        orphans: { tool_calls: unknown[]; tool_results: unknown[] };
      };
      expect(tree.trace_id).toBe('tr_stitch');
      expect(tree.messages[0]?.thinks.map((think) => think.id)).toEqual(['tb_t']);
      expect(tree.messages[0]?.tool_calls[0]?.results.map((result) => result.id)).toEqual([
        'tb_r0',
        'tb_r1',
      ]);
      expect(tree.orphans).toEqual({ tool_calls: [], tool_results: [] });
      expect((await t.request(path('tr_none', '/blocks.stitched'))).status).toBe(404);
    });
  });

  describe('GET /v1/organizations/:org/traces and DELETE a trace', () => {
    it('a block cost that is no price (9e12 USD, negative, 1e303) is left out of the total; the trace stays readable', async () => {
      const own = await startTestServer({ store: kind });
      try {
        const priced = (id: string, cost: unknown) => ({
          ...blocks.message(id, 'answer', 'assistant'),
          metadata: { cost },
        });
        const posted = await own.post('tr_cost', [
          blocks.message('tb_q', 'question'),
          priced('tb_a1', 9e12),
          priced('tb_a2', { cost_micro_usd: 9e15 }),
          priced('tb_a3', -5),
          priced('tb_a4', 1e303),
          priced('tb_a5', 0.25),
        ]);
        expect(posted.status).toBe(201);
        const one = await own.request('/v1/organizations/default/traces/tr_cost');
        expect(one.status).toBe(200);
        expect(await one.json()).toMatchObject({ id: 'tr_cost', block_count: 6, cost_usd: 0.25 });
        const list = await own.request('/v1/organizations/default/traces?limit=1');
        expect(list.status).toBe(200);
        // each block keeps the figure it was sent with
        const stored = (await (await own.request(path('tr_cost'))).json()) as {
          blocks: { id: string; metadata: { cost: unknown } }[];
        };
        expect(stored.blocks.find((b) => b.id === 'tb_a1')?.metadata.cost).toBe(9e12);
        // many large but real costs: the total stays a number the list can read
        for (let i = 0; i < 3; i++)
          expect((await own.post('tr_cost', [priced(`tb_big${i}`, 999_999)])).status).toBe(201);
        const total = (await (
          await own.request('/v1/organizations/default/traces/tr_cost')
        ).json()) as {
          cost_usd: number;
        };
        expect(total.cost_usd).toBeCloseTo(0.25 + 3 * 999_999, 5);
      } finally {
        await own.stop();
      }
    });

    it('the first user message preview never ends in half of an emoji', async () => {
      const own = await startTestServer({ store: kind });
      try {
        const text = `a${'😀'.repeat(300)}`;
        expect((await own.post('tr_emoji', [blocks.message('tb_1', text)])).status).toBe(201);
        const one = (await (
          await own.request('/v1/organizations/default/traces/tr_emoji')
        ).json()) as {
          first_user_message: string;
        };
        expect(one.first_user_message).not.toContain('\ufffd');
        expect(one.first_user_message.isWellFormed()).toBe(true);
        expect(text.startsWith(one.first_user_message)).toBe(true);
        expect(one.first_user_message.length).toBe(499);
      } finally {
        await own.stop();
      }
    });

    it('lists traces newest first with counts, first user message, status, cost and violations', async () => {
      const own = await startTestServer({ store: kind });
      try {
        await own.post('tr_a', [blocks.message('tb_1', 'first question')]);
        await own.post('tr_b', [
          {
            ...blocks.message('tb_late', 'later question'),
            created_at: '2025-01-01T00:00:05.000Z',
          },
          {
            ...blocks.message('tb_answer', 'answer', 'assistant'),
            metadata: { status: 'failure', cost: { cost_usd: 0.0015, cost_micro_usd: 1500 } },
          },
        ]);
        await own.post('tr_b', [
          {
            ...blocks.message('tb_early', 'earlier question'),
            created_at: '2025-01-01T00:00:01.000Z',
          },
          {
            ...blocks.call('tb_c', 'tb_answer', 'call_1'),
            metadata: { violations: [{ rule: 'a' }, { rule: 'b' }], cost: 0.0005 },
          },
        ]);
        await own.post('tr_c', [blocks.message('tb_1', 'third')]);
        const response = await own.request('/v1/organizations/default/traces?limit=2');
        const page = (await response.json()) as {
          traces: Record<string, unknown>[];
          next_cursor: string;
        };
        expect(page.traces.map((trace) => trace.id)).toEqual(['tr_c', 'tr_b']);
        expect(page.traces[1]).toMatchObject({
          id: 'tr_b',
          block_count: 4,
          first_user_message: 'earlier question',
          status: 'error',
          error_count: 1,
          cost_usd: 0.002,
          violation_count: 2,
        });
        const next = await own.request(
          `/v1/organizations/default/traces?limit=2&cursor=${page.next_cursor}`,
        );
        const second = (await next.json()) as {
          traces: Record<string, unknown>[];
          next_cursor: null;
        };
        expect(second.traces.map((trace) => trace.id)).toEqual(['tr_a']);
        expect(second.traces[0]).toMatchObject({
          status: 'ok',
          first_user_message: 'first question',
        });
        expect(second.next_cursor).toBeNull();

        const one = await own.request('/v1/organizations/default/traces/tr_a');
        expect(await one.json()).toMatchObject({ id: 'tr_a', block_count: 1 });

        const deleted = await own.request('/v1/organizations/default/traces/tr_b', {
          method: 'DELETE',
        });
        expect(deleted.status).toBe(204);
        expect((await own.request('/v1/organizations/default/traces/tr_b/blocks')).status).toBe(
          404,
        );
        const again = await own.request('/v1/organizations/default/traces/tr_b', {
          method: 'DELETE',
        });
        expect(again.status).toBe(404);
        // the trace id is free again, with a fresh call-id space
        expect(
          (
            await own.post('tr_b', [
              blocks.message('tb_answer'),
              blocks.call('tb_c', 'tb_answer', 'call_1'),
            ])
          ).status,
        ).toBe(201);
      } finally {
        await own.stop();
      }
    });

    it('answers 405 with Allow for a wrong method and 404 for unknown routes', async () => {
      const response = await t.request('/v1/organizations/default/traces', { method: 'POST' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
      expect(await response.json()).toMatchObject({
        error: { code: 'METHOD_NOT_ALLOWED', http_status: 405 },
      });
      const unknown = await t.request('/v1/organizations/default/nothing');
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({
        error: { code: 'NOT_FOUND', http_status: 404 },
      });
    });
  });
});
