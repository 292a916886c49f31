import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks, startTestServer, type TestServer } from '../__fixtures__/test-server.js';
import { describeStores } from '../__fixtures__/test-stores.js';

describeStores('datasets routes', (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ store: kind });
  });
  afterAll(() => t.stop());

  const base = '/v1/organizations/default/datasets';
  const json = (body: unknown, method = 'POST') => ({
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

  /** Seed 001's events: a user message, an assistant tool call (arguments as JSON text), its output. */
  const emailTrace = [
    { role: 'user', content: 'Tell mom I am running late' },
    {
      role: 'assistant',
      content: 'Sending an email to your mom now.',
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: {
            name: 'send_email',
            arguments: '{"to":"mom@mail.com","subject":"Running late, sorry!"}',
          },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'Email sent successfully.' },
  ];

  describe('datasets (seed 001)', () => {
    it('creates a dataset with metadata, adds stored traces, lists and gets it', async () => {
      await t.post('tr_d1', [blocks.message('tb_m', 'fix the bug')]);
      await t.post('tr_d2', [blocks.message('tb_m', 'add a test')]);
      const created = await t.request(
        base,
        json({ name: 'swe-bench', metadata: { accuracy: 0.42 } }),
      );
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({
        name: 'swe-bench',
        metadata: { accuracy: 0.42 },
        trace_count: 0,
      });
      const taken = await t.request(base, json({ name: 'swe-bench' }));
      expect(taken.status).toBe(409);
      expect(await taken.json()).toMatchObject({ error: { code: 'CONFLICT', http_status: 409 } });

      const added = await t.request(
        `${base}/swe-bench/traces`,
        json({
          traces: [
            { trace_id: 'tr_d1', metadata: { task: 1, resolved: true } },
            { trace_id: 'tr_d2' },
          ],
        }),
      );
      expect(await added.json()).toEqual({ dataset: 'swe-bench', added: 2 });
      // adding again changes nothing; an unknown trace fails the whole request
      const again = await t.request(
        `${base}/swe-bench/traces`,
        json({ traces: [{ trace_id: 'tr_d1' }] }),
      );
      expect(await again.json()).toEqual({ dataset: 'swe-bench', added: 0 });
      const unknown = await t.request(
        `${base}/swe-bench/traces`,
        json({ traces: [{ trace_id: 'tr_d2' }, { trace_id: 'tr_missing' }] }),
      );
      expect(unknown.status).toBe(404);

      const one = await t.request(`${base}/swe-bench`);
      expect(await one.json()).toMatchObject({
        name: 'swe-bench',
        trace_count: 2,
        traces: [
          { trace_id: 'tr_d1', metadata: { task: 1, resolved: true }, annotations: [] },
          { trace_id: 'tr_d2', metadata: {}, annotations: [] },
        ],
      });
      const list = await t.request(base);
      expect(
        ((await list.json()) as { datasets: { name: string }[] }).datasets.map((d) => d.name),
      ).toContain('swe-bench');
      expect((await t.request(`${base}/nothing`)).status).toBe(404);
    });

    it('imports and exports the Invariant Explorer JSONL format (metadata line, raw and annotated traces)', async () => {
      const file = [
        JSON.stringify({ metadata: { agent: 'openhands', accuracy: 0.5 } }),
        JSON.stringify(emailTrace),
        JSON.stringify({
          messages: [
            { role: 'user', content: 'hello' },
            { role: 'assistant', content: 'hi!' },
          ],
          annotations: [{ content: 'friendly', address: 'messages[1].content:0-3' }],
          metadata: { task: 'greet' },
        }),
      ].join('\n');
      const imported = await t.request(`${base}/explorer/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: `${file}\n`,
      });
      expect(imported.status).toBe(201);
      const { trace_ids: ids } = (await imported.json()) as { trace_ids: string[] };
      expect(ids).toHaveLength(2);

      const stitched = await (
        await t.request(`/v1/organizations/default/traces/${ids[0]}/blocks.stitched`)
      ).json();
      expect(stitched).toMatchObject({
        messages: [
          { block: { payload: { role: 'user' } } },
          {
            block: { payload: { role: 'assistant' } },
            tool_calls: [
              {
                block: { payload: { name: 'send_email', arguments: { to: 'mom@mail.com' } } },
                output: 'Email sent successfully.',
              },
            ],
          },
        ],
      });

      const exported = await t.request(`${base}/explorer/export?fidelity=chat`);
      expect(exported.headers.get('content-type')).toContain('application/x-ndjson');
      const lines = (await exported.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines[0]).toEqual({ metadata: { agent: 'openhands', accuracy: 0.5 } });
      expect(lines[1]).toEqual([
        { role: 'user', content: 'Tell mom I am running late' },
        {
          role: 'assistant',
          content: 'Sending an email to your mom now.',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: {
                name: 'send_email',
                arguments: { to: 'mom@mail.com', subject: 'Running late, sorry!' },
              },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'Email sent successfully.' },
      ]);
      expect(lines[2]).toEqual({
        messages: [
          { role: 'user', content: 'hello' },
          { role: 'assistant', content: 'hi!' },
        ],
        annotations: [{ content: 'friendly', address: 'messages[1].content:0-3' }],
        metadata: { task: 'greet' },
      });

      // a lossless export imports back to the same stitched trees
      const lossless = await (await t.request(`${base}/explorer/export`)).text();
      const again = await t.request(`${base}/explorer-copy/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: lossless,
      });
      const copy = ((await again.json()) as { trace_ids: string[] }).trace_ids;
      const shape = async (id: string) => {
        const tree = (await (
          await t.request(`/v1/organizations/default/traces/${id}/blocks.stitched`)
        ).json()) as {
          messages: {
            block: { payload: unknown };
            tool_calls: { block: { payload: unknown }; output?: unknown }[];
          }[];
        };
        return tree.messages.map((m) => ({
          payload: m.block.payload,
          calls: m.tool_calls.map((c) => ({ payload: c.block.payload, output: c.output })),
        }));
      };
      expect(await shape(copy[0] as string)).toEqual(await shape(ids[0] as string));
    });

    it('rejects a bad import whole: a line that is not JSON, an invalid trace, nothing stored', async () => {
      const before = (
        (await (await t.request('/v1/organizations/default/traces?limit=1000')).json()) as {
          traces: unknown[];
        }
      ).traces.length;
      const notJson = await t.request(`${base}/broken/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: `${JSON.stringify(emailTrace)}\n{oops\n`,
      });
      expect(notJson.status).toBe(400);
      expect(await notJson.json()).toMatchObject({
        error: { code: 'INVALID_JSON', details: { line: 2 } },
      });
      const invalid = await t.request(`${base}/broken/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: `${JSON.stringify(emailTrace)}\n${JSON.stringify([{ role: 'user', content: 42 }])}\n`,
      });
      expect(invalid.status).toBe(422);
      expect(await invalid.json()).toMatchObject({
        error: { code: 'VALIDATION', details: { line: 2, trace_index: 1 } },
      });
      expect((await t.request(`${base}/broken`)).status).toBe(404);
      const after = (
        (await (await t.request('/v1/organizations/default/traces?limit=1000')).json()) as {
          traces: unknown[];
        }
      ).traces.length;
      expect(after).toBe(before);
    });
  });

  describe('Invariant Explorer push API', () => {
    it('POST /api/v1/push/trace stores each trace through core converters and adds them to the dataset', async () => {
      const response = await t.request(
        '/api/v1/push/trace',
        json({
          messages: [emailTrace, [{ role: 'user', content: 'second' }]],
          annotations: [[{ content: 'sent mail', address: 'messages[2].content' }], []],
          metadata: [{ run: 1 }, { run: 2 }],
          dataset: 'pushed',
        }),
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as { id: string[]; dataset: string };
      expect(body.dataset).toBe('pushed');
      expect(body.id).toHaveLength(2);
      const dataset = await (await t.request(`${base}/pushed`)).json();
      expect(dataset).toMatchObject({
        trace_count: 2,
        traces: [
          { trace_id: body.id[0], metadata: { run: 1 }, annotations: [{ content: 'sent mail' }] },
          { trace_id: body.id[1], metadata: { run: 2 } },
        ],
      });
      const blocksOf = await (
        await t.request(`/v1/organizations/default/traces/${body.id[0]}/blocks`)
      ).json();
      expect(
        (blocksOf as { blocks: { sub_type: string }[] }).blocks.map((b) => b.sub_type),
      ).toEqual(['MESSAGE', 'MESSAGE', 'TOOL_CALL', 'TOOL_RESULT']);

      const noDataset = await t.request(
        '/api/v1/push/trace',
        json({ messages: [[{ role: 'user', content: 'x' }]] }),
      );
      expect(await noDataset.json()).toMatchObject({ dataset: null });
      const bad = await t.request('/api/v1/push/trace', json({ messages: 'nope' }));
      expect(bad.status).toBe(422);
      expect((await t.request('/api/v1/push/trace')).status).toBe(405);
    });

    it('refuses a trace with no events (422 naming its index), in a push and in an import, storing nothing', async () => {
      const pushed = await t.request(
        '/api/v1/push/trace',
        json({ messages: [[{ role: 'user', content: 'kept?' }], []], dataset: 'with-empty' }),
      );
      expect(pushed.status).toBe(422);
      expect(await pushed.json()).toMatchObject({
        error: { code: 'VALIDATION', details: { trace_index: 1 } },
      });
      const imported = await t.request(`${base}/with-empty/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: `${JSON.stringify({ metadata: { a: 1 } })}\n[]\n${JSON.stringify([{ role: 'user', content: 'x' }])}\n`,
      });
      expect(imported.status).toBe(422);
      expect(await imported.json()).toMatchObject({
        error: { code: 'VALIDATION', details: { trace_index: 0 } },
      });
      // all or nothing: no dataset was made, no trace stored
      expect((await t.request(`${base}/with-empty`)).status).toBe(404);
    });
  });
});
