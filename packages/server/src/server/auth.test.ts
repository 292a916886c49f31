import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks, startTestServer, type TestServer } from '../__fixtures__/test-server.js';
import { describeStores } from '../__fixtures__/test-stores.js';

describeStores('auth and organization isolation', (kind) => {
  let t: TestServer;
  let acmeKey: string;
  let globexKey: string;

  beforeAll(async () => {
    t = await startTestServer({ store: kind });
    acmeKey = (await t.server.createApiKey({ organization: 'acme' })).key;
    globexKey = (await t.server.createApiKey({ organization: 'globex' })).key;
    for (const [organization, key] of [
      ['acme', acmeKey],
      ['globex', globexKey],
    ] as const) {
      const response = await t.post(
        'tr_shared',
        [blocks.message('tb_m', `${organization} secret`), blocks.call('tb_c', 'tb_m', 'call_1')],
        { organization, key },
      );
      expect(response.status).toBe(201);
      const dataset = await t.request(`/v1/organizations/${organization}/datasets`, {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'shared', metadata: { owner: organization } }),
      });
      expect(dataset.status).toBe(201);
    }
  });
  afterAll(() => t.stop());

  /** Every /v1 route, with a body where it takes one. */
  const routes = (organization: string) => {
    const trace = `/v1/organizations/${organization}/traces/tr_shared`;
    return [
      { method: 'GET', path: `/v1/organizations/${organization}/traces` },
      { method: 'GET', path: trace },
      { method: 'GET', path: `${trace}/blocks` },
      { method: 'GET', path: `${trace}/blocks.stitched` },
      {
        method: 'POST',
        path: `${trace}/blocks`,
        body: JSON.stringify({ blocks: [blocks.message('tb_intruder', 'hello')] }),
      },
      { method: 'DELETE', path: trace },
      { method: 'GET', path: `/v1/organizations/${organization}/datasets` },
      {
        method: 'POST',
        path: `/v1/organizations/${organization}/datasets`,
        body: JSON.stringify({ name: 'intruder' }),
      },
      { method: 'GET', path: `/v1/organizations/${organization}/datasets/shared` },
      {
        method: 'POST',
        path: `/v1/organizations/${organization}/datasets/shared/traces`,
        body: JSON.stringify({ traces: [{ trace_id: 'tr_shared' }] }),
      },
      { method: 'GET', path: `/v1/organizations/${organization}/datasets/shared/export` },
      {
        method: 'POST',
        path: `/v1/organizations/${organization}/datasets/shared/import`,
        body: JSON.stringify([{ role: 'user', content: 'intruder' }]),
      },
      { method: 'DELETE', path: `/v1/organizations/${organization}/datasets/shared` },
    ];
  };

  describe('auth', () => {
    it('answers 401 UNAUTHORIZED without a key, with a malformed, unknown or revoked key', async () => {
      const unknown = `twk_0123456789abcdef_${'A'.repeat(43)}`;
      const wrongSecret = `${acmeKey.slice(0, -1)}${acmeKey.endsWith('A') ? 'B' : 'A'}`;
      const revoked = await t.server.createApiKey({ organization: 'acme', name: 'to revoke' });
      const store = await t.openStore();
      expect(await store.revokeApiKey(revoked.id)).toBe(true);
      await store.close();
      for (const key of [null, 'nonsense', unknown, wrongSecret, revoked.key]) {
        for (const route of [...routes('acme'), { method: 'POST', path: '/api/v1/push/trace' }]) {
          const response = await t.request(route.path, {
            method: route.method,
            key,
            headers: { 'content-type': 'application/json' },
            ...(route.body === undefined ? {} : { body: route.body }),
          });
          expect(response.status, `${route.method} ${route.path} with ${key}`).toBe(401);
          expect(await response.json()).toMatchObject({
            error: { code: 'UNAUTHORIZED', http_status: 401, details: {} },
          });
        }
      }
      const basic = await t.request('/v1/organizations/acme/traces', {
        key: null,
        headers: { authorization: `Basic ${Buffer.from(`x:${acmeKey}`).toString('base64')}` },
      });
      expect(basic.status).toBe(401);
    });

    it('keeps health checks open', async () => {
      expect((await t.request('/healthz', { key: null })).status).toBe(200);
      expect(await (await t.request('/readyz', { key: null })).json()).toEqual({ status: 'ready' });
    });

    it("isolates organizations: each key on the other's paths gets 404 and changes nothing", async () => {
      for (const [owner, intruderKey] of [
        ['acme', globexKey],
        ['globex', acmeKey],
      ] as const) {
        for (const route of [...routes(owner), ...routes('no-such-org')]) {
          const response = await t.request(route.path, {
            method: route.method,
            key: intruderKey,
            headers: { 'content-type': 'application/json' },
            ...(route.body === undefined ? {} : { body: route.body }),
          });
          expect(response.status, `${route.method} ${route.path}`).toBe(404);
          const body = (await response.json()) as { error: { code: string; message: string } };
          expect(body.error.code).toBe('NOT_FOUND');
          // the same answer for an existing and a missing organization
          expect(body.error.message).toBe(`organization "${route.path.split('/')[3]}" not found`);
        }
      }
      for (const [organization, key] of [
        ['acme', acmeKey],
        ['globex', globexKey],
      ] as const) {
        const response = await t.request(
          `/v1/organizations/${organization}/traces/tr_shared/blocks`,
          { key },
        );
        const body = (await response.json()) as {
          blocks: { id: string; payload: { content?: string } }[];
        };
        expect(body.blocks.map((block) => block.id)).toEqual(['tb_m', 'tb_c']);
        expect(body.blocks[0]?.payload.content).toBe(`${organization} secret`);
      }
    });

    it('stores what a key pushes with the Explorer API in its own organization only', async () => {
      const pushed = await t.request('/api/v1/push/trace', {
        method: 'POST',
        key: acmeKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [[{ role: 'user', content: 'acme only' }]],
          dataset: 'shared',
        }),
      });
      const { id } = (await pushed.json()) as { id: string[] };
      const traceId = id[0] as string;
      const own = await t.request(`/v1/organizations/acme/traces/${traceId}/blocks`, {
        key: acmeKey,
      });
      expect(own.status).toBe(200);
      const other = await t.request(`/v1/organizations/globex/traces/${traceId}/blocks`, {
        key: globexKey,
      });
      expect(other.status).toBe(404);
      const otherDataset = await t.request('/v1/organizations/globex/datasets/shared', {
        key: globexKey,
      });
      expect(await otherDataset.json()).toMatchObject({
        metadata: { owner: 'globex' },
        trace_count: 0,
      });
    });

    it('gives each organization its own id spaces (same trace, block and call ids)', async () => {
      const response = await t.post('tr_shared', [blocks.result('tb_r', 'tb_c', 'call_1')], {
        organization: 'globex',
        key: globexKey,
      });
      expect(response.status).toBe(201);
      const list = await t.request('/v1/organizations/acme/traces', { key: acmeKey });
      const traces = ((await list.json()) as { traces: { id: string; block_count: number }[] })
        .traces;
      expect(traces).toContainEqual(expect.objectContaining({ id: 'tr_shared', block_count: 2 }));
    });
  });
});
