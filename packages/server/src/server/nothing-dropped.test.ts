import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks, startTestServer, type TestServer } from '../__fixtures__/test-server.js';
import { describeStores } from '../__fixtures__/test-stores.js';

interface ErrorAnswer {
  error: { code: string; http_status: number; message: string; details: Record<string, unknown> };
}

/**
 * What a client sends is stored as sent or refused with a typed error naming what to fix: never
 * cut down, dropped or changed while the request succeeds.
 */
describeStores('nothing a client sends is dropped or changed', (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ store: kind });
  });
  afterAll(() => t.stop());

  const blocksOf = async (traceId: string) => {
    const response = await t.request(`/v1/organizations/default/traces/${traceId}/blocks`);
    return response.status === 404
      ? []
      : ((await response.json()) as { blocks: Record<string, unknown>[] }).blocks;
  };
  const postRaw = (traceId: string, body: string) =>
    t.request(`/v1/organizations/default/traces/${traceId}/blocks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  describe('a payload is bounded as a whole, not only field by field', () => {
    // 64 KB: every field under the limit alone, twenty of them far over it together
    const manyFields = Object.fromEntries(
      Array.from({ length: 20 }, (_, index) => [`f${index}`, 'y'.repeat(60_000)]),
    );

    it('refuses a MESSAGE whose other fields together pass LIMIT_MSG_BYTES (413, seed 002 details)', async () => {
      const response = await t.post('tr_fields', [
        { id: 'tb_m', sub_type: 'MESSAGE', payload: { role: 'user', content: 'x', ...manyFields } },
      ]);
      expect(response.status).toBe(413);
      const body = (await response.json()) as ErrorAnswer;
      expect(body.error).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        http_status: 413,
        details: {
          sub_type: 'MESSAGE',
          field: 'payload',
          limit_bytes: 65_536,
          trace_id: 'tr_fields',
          parent_block_id: null,
        },
      });
      expect(body.error.details.actual_bytes).toBeGreaterThan(20 * 60_000);
      expect(body.error.message).toMatch(/^message payload exceeds 64KB limit/);
      expect(await blocksOf('tr_fields')).toEqual([]);
    });

    it('names the block of a batch, and bounds tool results by LIMIT_TOOL_RESULT_BYTES', async () => {
      const response = await t.post('tr_fields_result', [
        blocks.message('tb_m'),
        blocks.call('tb_c', 'tb_m', 'c1'),
        {
          ...blocks.result('tb_r', 'tb_c', 'c1'),
          payload: {
            call_id: 'c1',
            output: 'ok',
            a: 'y'.repeat(2_000_000),
            b: 'y'.repeat(2_000_000),
          },
        },
      ]);
      expect(response.status).toBe(413);
      const body = (await response.json()) as ErrorAnswer;
      expect(body.error.details).toMatchObject({
        sub_type: 'TOOL_RESULT',
        field: 'payload',
        limit_bytes: 2_097_152,
        path: '2',
      });
    });

    it('still accepts a payload whose measured field and other fields each fit', async () => {
      const response = await t.post('tr_fields_ok', [
        {
          id: 'tb_m',
          sub_type: 'MESSAGE',
          payload: { role: 'user', content: 'x'.repeat(60_000), name: 'n'.repeat(60_000) },
        },
      ]);
      expect(response.status).toBe(201);
    });
  });

  describe('unknown block fields', () => {
    it('refuses a top-level field blocks do not have (422 VALIDATION naming it), storing nothing', async () => {
      const response = await t.post('tr_unknown', [{ ...blocks.message('tb_m'), foo: 'bar' }]);
      expect(response.status).toBe(422);
      const body = (await response.json()) as ErrorAnswer;
      expect(body.error).toMatchObject({
        code: 'VALIDATION',
        details: { sub_type: 'MESSAGE', field: 'foo', trace_id: 'tr_unknown', block_id: 'tb_m' },
      });
      expect(body.error.message).toMatch(/put client data in extra/);
      expect(await blocksOf('tr_unknown')).toEqual([]);
    });

    it('names the position of a block without an id in a batch', async () => {
      const response = await t.post('tr_unknown_batch', [
        blocks.message('tb_m'),
        { sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' }, reward: 1 },
      ]);
      expect(response.status).toBe(422);
      const body = (await response.json()) as ErrorAnswer;
      expect(body.error.details).toEqual({
        sub_type: 'MESSAGE',
        field: 'reward',
        trace_id: 'tr_unknown_batch',
        path: '1',
      });
      expect(body.error.message).toMatch(/^block 1 of the batch has a field "reward"/);
    });

    it('takes a body that is one block (no `blocks`) as a batch of one, as the seed’s helpers log one block at a time', async () => {
      const response = await postRaw(
        'tr_single',
        JSON.stringify({ sub_type: 'MESSAGE', payload: { role: 'user', content: 'one block' } }),
      );
      expect(response.status).toBe(201);
      const stored = await blocksOf('tr_single');
      expect(stored.map((block) => block.payload)).toEqual([
        { role: 'user', content: 'one block' },
      ]);
      // and an unknown field of that one block is still named
      const refused = await postRaw(
        'tr_single_bad',
        JSON.stringify({ sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' }, foo: 1 }),
      );
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as ErrorAnswer).error.details.field).toBe('foo');
    });

    it('refuses a re-sent stored block carrying an unknown field (not a silent 200)', async () => {
      expect((await t.post('tr_unknown_resend', [blocks.message('tb_m')])).status).toBe(201);
      const response = await t.post('tr_unknown_resend', [{ ...blocks.message('tb_m'), x: 1 }]);
      expect(response.status).toBe(422);
    });
  });

  describe('push metadata without a dataset', () => {
    const push = (body: unknown) =>
      t.request('/api/v1/push/trace', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const messages = [[{ role: 'user', content: 'hi' }]];

    it('refuses metadata that no dataset would keep (422 naming metadata)', async () => {
      const before = (await (await t.request('/v1/organizations/default/traces')).json()) as {
        traces: unknown[];
      };
      const response = await push({ messages, metadata: [{ run: 1 }] });
      expect(response.status).toBe(422);
      const body = (await response.json()) as ErrorAnswer;
      expect(body.error).toMatchObject({ code: 'VALIDATION', details: { field: 'metadata' } });
      expect(body.error.message).toMatch(/add "dataset"/);
      const after = (await (await t.request('/v1/organizations/default/traces')).json()) as {
        traces: unknown[];
      };
      expect(after.traces.length).toBe(before.traces.length);
    });

    it('refuses annotations without a dataset the same way', async () => {
      const response = await push({ messages, annotations: [[{ content: 'good' }]] });
      expect(response.status).toBe(422);
      expect(((await response.json()) as ErrorAnswer).error.details.field).toBe('annotations');
    });

    it('accepts empty metadata without a dataset, and metadata with one (kept)', async () => {
      expect((await push({ messages, metadata: [{}] })).status).toBe(200);
      const response = await push({ messages, metadata: [{ run: 2 }], dataset: 'pushed' });
      expect(response.status).toBe(200);
      const dataset = (await (
        await t.request('/v1/organizations/default/datasets/pushed')
      ).json()) as { traces: { metadata: unknown }[] };
      expect(dataset.traces[0]?.metadata).toEqual({ run: 2 });
    });
  });

  describe('integers beyond 2^53', () => {
    it('refuses a block whose metadata holds one, naming its path (not stored rounded)', async () => {
      const response = await postRaw(
        'tr_big_int',
        '{"blocks":[{"id":"tb_m","sub_type":"MESSAGE","payload":{"role":"user","content":"x"},"metadata":{"usage":{"tokens":9007199254740993}}}]}',
      );
      expect(response.status).toBe(422);
      const body = (await response.json()) as ErrorAnswer;
      expect(body.error).toMatchObject({
        code: 'VALIDATION',
        details: { field: 'blocks.0.metadata.usage.tokens' },
      });
      expect(body.error.message).toContain('9007199254740993');
      expect(await blocksOf('tr_big_int')).toEqual([]);
    });

    it('accepts the largest safe integer, long digit strings and large floats as they are', async () => {
      const response = await postRaw(
        'tr_safe_int',
        '{"blocks":[{"id":"tb_m","sub_type":"MESSAGE","payload":{"role":"user","content":"12345678901234567890"},"metadata":{"n":9007199254740991,"m":-9007199254740991,"f":1e300}}]}',
      );
      expect(response.status).toBe(201);
      const [stored] = await blocksOf('tr_safe_int');
      expect(stored?.metadata).toEqual({ n: 9007199254740991, m: -9007199254740991, f: 1e300 });
    });

    it('refuses one in an imported JSONL line, naming the line and the path', async () => {
      const response = await t.request('/v1/organizations/default/datasets/big_ints/import', {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: '{"metadata":{}}\n{"messages":[{"role":"user","content":"hi"}],"metadata":{"id":-12345678901234567890}}\n',
      });
      expect(response.status).toBe(422);
      const body = (await response.json()) as ErrorAnswer;
      expect(body.error.details).toEqual({ field: 'metadata.id', line: 2 });
      expect((await t.request('/v1/organizations/default/datasets/big_ints')).status).toBe(404);
    });
  });
});
