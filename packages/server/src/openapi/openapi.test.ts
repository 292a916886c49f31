import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks, startTestServer, type TestServer } from '../__fixtures__/test-server.js';
import { describeStores } from '../__fixtures__/test-stores.js';
import { checkBody, requestSchemas } from './index.js';

describeStores('OpenAPI document', (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ store: kind });
    await t.post('tr_1', [blocks.message('tb_m')]);
    await t.request('/v1/organizations/default/datasets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ds' }),
    });
  });
  afterAll(() => t.stop());

  interface Document {
    openapi: string;
    paths: Record<string, Record<string, unknown>>;
    components: { schemas: Record<string, { oneOf?: { required: string[] }[] }> };
  }

  describe('GET /v1/openapi.json', () => {
    it('publishes the request schemas the routes check, and core block and event schemas', async () => {
      expect((await t.request('/v1/openapi.json', { key: null })).status).toBe(401);
      const response = await t.request('/v1/openapi.json');
      expect(response.status).toBe(200);
      const document = (await response.json()) as Document;
      expect(document.openapi).toBe('3.1.0');
      for (const [name, schema] of Object.entries(requestSchemas)) {
        expect(document.components.schemas[name]).toEqual(schema);
      }
      // a posted block may leave out what the server fills in
      for (const variant of document.components.schemas.BlockInput?.oneOf ?? []) {
        expect(variant.required).toEqual(expect.arrayContaining(['sub_type', 'payload']));
        expect(variant.required).not.toContain('id');
      }
      expect(document.components.schemas.Block?.oneOf?.[0]?.required).toContain('id');
      expect(document.components.schemas.ChatEvent).toBeDefined();
    });

    it('documents exactly the routes that exist', async () => {
      const document = (await (await t.request('/v1/openapi.json')).json()) as Document;
      for (const [template, operations] of Object.entries(document.paths)) {
        const path = template
          .replace('{org}', 'default')
          .replace('{traceId}', 'tr_1')
          .replace('{name}', 'ds');
        for (const method of Object.keys(operations)) {
          if (method === 'delete') continue;
          const response = await t.request(path, {
            method: method.toUpperCase(),
            headers: { 'content-type': 'application/json' },
            ...(method === 'post' ? { body: '{}' } : {}),
          });
          // a POST with an empty object is refused by its schema, never "no such route"
          expect([200, 400, 415, 422], `${method} ${path}`).toContain(response.status);
        }
      }
    });

    it('rejects bodies that do not fit their schema with VALIDATION naming the field', async () => {
      expect(checkBody(requestSchemas.PostBlocks, { blocks: 'x' })).toEqual({
        path: 'blocks',
        message: 'blocks must be array, got string',
      });
      expect(checkBody(requestSchemas.AddDatasetTraces, { traces: [{ trace_id: 1 }] })?.path).toBe(
        'traces.0.trace_id',
      );
      expect(
        checkBody(requestSchemas.PushTrace, { messages: [[{ role: 'user' }]] }),
      ).toBeUndefined();
      const response = await t.request('/v1/organizations/default/datasets/ds/traces', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ traces: [{ metadata: {} }] }),
      });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({
        error: { code: 'VALIDATION', details: { field: 'traces.0.trace_id' } },
      });
    });
  });
});
