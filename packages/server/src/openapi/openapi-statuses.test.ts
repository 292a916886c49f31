import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { blocks, startTestServer, type TestServer } from '../__fixtures__/test-server.js';
import { describeStores } from '../__fixtures__/test-stores.js';
import { createOpenApiDocument } from './index.js';

interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, unknown>;
}

type Paths = Record<string, Record<string, Operation>>;

/** A request to send to an operation: the path's parameters, and what else to change. */
interface Probe {
  organization?: string;
  traceId?: string;
  name?: string;
  query?: string;
  key?: null;
  contentType?: string;
  body?: string;
}

const json = (value: unknown) => JSON.stringify(value);
const jsonl = '{"metadata":{}}\n[{"role":"user","content":"hi"}]\n';

/** Requests that reach each operation's answers: fine ones, and each kind of mistake. */
function probesOf(template: string, method: string, operation: Operation): Probe[] {
  const probes: Probe[] = [{}, { key: null }];
  if (template.includes('{org}')) probes.push({ organization: 'someone-else' });
  if (template.includes('{traceId}')) probes.push({ traceId: 'tr_missing' });
  if (template.includes('{name}')) probes.push({ name: 'missing' }, { name: '-not a name' });
  const query = new Set((operation.parameters ?? []).map((parameter) => parameter.name));
  if (query.has('limit')) probes.push({ query: 'limit=0' }, { query: 'limit=1' });
  if (query.has('cursor')) probes.push({ query: 'cursor=bogus' });
  if (query.has('fidelity')) probes.push({ query: 'fidelity=bogus' });
  if (operation.requestBody !== undefined) {
    const lines = 'application/x-ndjson' in operation.requestBody.content;
    const contentType = lines ? 'application/x-ndjson' : 'application/json';
    probes.push(
      { contentType, body: 'not json' },
      { contentType, body: lines ? '{"metadata":{}}\n{"messages":1}\n' : '{}' },
      { contentType: 'text/plain', body: '{}' },
      { contentType, body: `"${'x'.repeat(70_000)}"` },
    );
  }
  if (method === 'post' && template.endsWith('/traces/{traceId}/blocks')) {
    const duplicate = [
      blocks.message('tb_pm'),
      blocks.call('tb_pc1', 'tb_pm', 'same'),
      blocks.call('tb_pc2', 'tb_pm', 'same'),
    ];
    probes.push({ traceId: 'tr_probe', body: json({ blocks: duplicate }) });
  }
  return probes;
}

/** A fine body for each operation that takes one. */
function bodyOf(template: string): string {
  if (template.endsWith('/blocks')) return json({ blocks: [blocks.message('tb_probe')] });
  if (template.endsWith('/datasets')) return json({ name: 'ds' });
  if (template.endsWith('/{name}/traces')) return json({ traces: [{ trace_id: 'tr_1' }] });
  if (template.endsWith('/import')) return jsonl;
  return json({ messages: [[{ role: 'user', content: 'hi' }]] });
}

describeStores('OpenAPI statuses', (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    // a small body limit makes a 413 cheap (the collector warns that it is below LIMIT_*)
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    t = await startTestServer({ store: kind, limits: { maxBodyBytes: 64 * 1024 } });
    warn.mockRestore();
    await t.post('tr_1', [blocks.message('tb_m')]);
  });
  afterAll(() => t.stop());

  it("lists every status each route answers, each error in seed 002's shape", async () => {
    const paths = createOpenApiDocument().paths as Paths;
    const undocumented: string[] = [];
    const seen = new Set<number>();
    // deletes last: the other probes need the trace and the dataset they would remove
    const operations = Object.entries(paths)
      .flatMap(([template, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({ template, method, operation })),
      )
      .sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
    for (const { template, method, operation } of operations) {
      for (const probe of probesOf(template, method, operation)) {
        const path = template
          .replace('{org}', probe.organization ?? 'default')
          .replace('{traceId}', encodeURIComponent(probe.traceId ?? 'tr_1'))
          .replace('{name}', encodeURIComponent(probe.name ?? 'ds'));
        const takesBody = operation.requestBody !== undefined;
        const lines = takesBody && 'application/x-ndjson' in (operation.requestBody?.content ?? {});
        const response = await t.request(`${path}${probe.query ? `?${probe.query}` : ''}`, {
          method: method.toUpperCase(),
          ...(probe.key === null ? { key: null } : {}),
          ...(takesBody
            ? {
                headers: {
                  'content-type':
                    probe.contentType ?? (lines ? 'application/x-ndjson' : 'application/json'),
                },
                body: probe.body ?? bodyOf(template),
              }
            : {}),
        });
        const status = response.status;
        seen.add(status);
        const text = await response.text();
        const shown = { ...probe, ...(probe.body ? { body: probe.body.slice(0, 40) } : {}) };
        const label = `${method.toUpperCase()} ${path} ${JSON.stringify(shown)} -> ${status}`;
        if (!(String(status) in operation.responses)) undocumented.push(label);
        if (status >= 400 && template !== '/readyz') {
          const body = JSON.parse(text) as { error: Record<string, unknown> };
          expect(Object.keys(body.error), label).toEqual([
            'code',
            'http_status',
            'message',
            'details',
          ]);
          expect(body.error.http_status, label).toBe(status);
          expect(typeof body.error.details, label).toBe('object');
        }
      }
    }
    expect(undocumented).toEqual([]);
    // the probes reach every kind of answer (the walk is not vacuous)
    expect([...seen].sort()).toEqual(
      expect.arrayContaining([200, 201, 204, 400, 401, 404, 409, 413, 415, 422]),
    );
  });
});
