import { afterAll, beforeAll, it } from 'vitest';
import { startTestServer, type TestServer } from './__fixtures__/test-server.js';
import { startServer } from './server/index.js';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

let t: TestServer;
const out: unknown[] = [];
beforeAll(async () => { t = await startTestServer({ store: 'sqlite' }); });
afterAll(async () => { writeFileSync('/tmp/s21/server-review/limits.json', JSON.stringify(out, null, 1)); await t.stop(); });

const P = (tr: string, s = '/blocks') => `/v1/organizations/default/traces/${tr}${s}`;
function trimBody(b: any): any { const s = JSON.stringify(b); return s && s.length > 1500 ? s.slice(0, 1500) : b; }
async function rec(label: string, path: string, init: RequestInit & { key?: string | null } = {}, base?: TestServer) {
  const started = Date.now();
  let r: Response;
  try { r = await (base ?? t).request(path, init); } catch (e) { out.push({ label, fetchError: String(e), cause: String((e as any).cause) }); return; }
  const text = await r.text();
  let body: unknown = text;
  try { body = JSON.parse(text); } catch {}
  out.push({ label, status: r.status, ms: Date.now() - started, body: trimBody(body) });
}
const post = (label: string, tr: string, body: unknown, headers: Record<string,string> = { 'content-type': 'application/json' }) =>
  rec(label, P(tr), { method: 'POST', headers, body: typeof body === 'string' || body instanceof Uint8Array ? body as any : JSON.stringify(body) });
const m = { id: 'm', sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' } };
const c = { id: 'c', sub_type: 'TOOL_CALL', parent_block_id: 'm', payload: { call_id: 'k', name: 'f', arguments: {} } };
let n = 0;
const tr = () => `tr_${n++}`;

it('limits', async () => {
  await post('msg-64k-exact', tr(), [{ sub_type: 'MESSAGE', payload: { role: 'user', content: 'a'.repeat(65536) } }]);
  await post('msg-64k+1', tr(), [{ sub_type: 'MESSAGE', payload: { role: 'user', content: 'a'.repeat(65537) } }]);
  await post('msg-euro', tr(), [{ sub_type: 'MESSAGE', payload: { role: 'user', content: '€'.repeat(21846) } }]);
  await post('msg-parts-over', tr(), [{ sub_type: 'MESSAGE', payload: { role: 'user', content: [{ type: 'text', text: 'a'.repeat(65530) }] } }]);
  await post('think-32k+1', tr(), [m, { id: 't', sub_type: 'THINK', parent_block_id: 'm', payload: { text: 'a'.repeat(32769) } }]);
  await post('think-32k', tr(), [m, { id: 't', sub_type: 'THINK', parent_block_id: 'm', payload: { text: 'a'.repeat(32768) } }]);
  await post('args-obj-over', tr(), [m, { ...c, payload: { call_id: 'k', name: 'f', arguments: { a: 'b'.repeat(262144) } } }]);
  await post('args-str-over', tr(), [m, { ...c, payload: { call_id: 'k', name: 'f', arguments: JSON.stringify({ a: 'b'.repeat(262140) }) } }]);
  await post('result-over', tr(), [m, c, { id: 'r', sub_type: 'TOOL_RESULT', parent_block_id: 'c', payload: { call_id: 'k', output: 'a'.repeat(2097153) } }]);
  await post('result-exact', tr(), [m, c, { id: 'r', sub_type: 'TOOL_RESULT', parent_block_id: 'c', payload: { call_id: 'k', output: 'a'.repeat(2097152) } }]);
  await post('result-delta-over', tr(), [m, c, { id: 'r', sub_type: 'TOOL_RESULT', parent_block_id: 'c', payload: { call_id: 'k', delta: 'a'.repeat(2097153) } }]);
  await post('result-exact-ctrl', tr(), [m, c, { id: 'r', sub_type: 'TOOL_RESULT', parent_block_id: 'c', payload: { call_id: 'k', output: '\u0001'.repeat(2097152) } }]);
  await post('result-over-obj', tr(), [m, c, { id: 'r', sub_type: 'TOOL_RESULT', parent_block_id: 'c', payload: { call_id: 'k', output: { x: 'a'.repeat(2097152) } } }]);
  // other payload fields unlimited?
  await post('msg-other-field-huge', tr(), [{ sub_type: 'MESSAGE', payload: { role: 'user', content: 'x', name: 'n'.repeat(5_000_000) } }]);
  await post('huge-id', tr(), [{ id: 'i'.repeat(5_000_000), sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' } }]);
  // body limit
  await post('body-9MiB', tr(), [{ sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' }, extra: { big: 'z'.repeat(9 * 1024 * 1024) } }]);
  await post('blocks-10001', tr(), Array.from({ length: 10001 }, () => ({ sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' } })));
  await post('blocks-10000', tr(), Array.from({ length: 10000 }, () => ({ sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' } })));
  await post('gzip-bomb', tr(), gzipSync(Buffer.from(JSON.stringify({ blocks: [{ sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' }, extra: { z: 'a'.repeat(80 * 1024 * 1024) } }] }))), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  await post('gzip-ok', tr(), gzipSync(Buffer.from(JSON.stringify({ blocks: [m] }))), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  // deep nesting
  const deepArr = (d: number) => '['.repeat(d) + ']'.repeat(d);
  const deepObj = (d: number) => '{"a":'.repeat(d) + '1' + '}'.repeat(d);
  const wrap = (field: string, val: string) => `{"blocks":[{"id":"m","sub_type":"MESSAGE","payload":{"role":"user","content":"x"}},{"id":"c","sub_type":"TOOL_CALL","parent_block_id":"m","payload":{"call_id":"k","name":"f","arguments":{}}},{"id":"r","sub_type":"TOOL_RESULT","parent_block_id":"c","payload":${val}}]}`;
  for (const d of [1001, 20000, 500000]) {
    await post(`deep-output-arr-${d}`, tr(), wrap('payload', `{"call_id":"k","output":${deepArr(d)}}`));
    await post(`deep-output-obj-${d}`, tr(), wrap('payload', `{"call_id":"k","output":${deepObj(d)}}`));
    await post(`deep-raw-${d}`, tr(), wrap('payload', `{"call_id":"k","output":1},"raw":${deepArr(d)}`));
    await post(`deep-extra-${d}`, tr(), wrap('payload', `{"call_id":"k","output":1},"extra":{"x":${deepArr(d)}}`));
    await post(`deep-metadata-${d}`, tr(), wrap('payload', `{"call_id":"k","output":1},"metadata":{"x":${deepObj(d)}}`));
    await post(`deep-payload-other-${d}`, tr(), wrap('payload', `{"call_id":"k","output":1,"zz":${deepArr(d)}}`));
    await post(`deep-unknown-top-${d}`, tr(), wrap('payload', `{"call_id":"k","output":1},"zz":${deepArr(d)}`));
    await post(`deep-body-${d}`, tr(), deepArr(d));
    await post(`deep-blocks-${d}`, tr(), `{"blocks":${deepArr(d)}}`);
  }
  await post('deep-output-1000', tr(), wrap('payload', `{"call_id":"k","output":${deepArr(999)}}`));
  // many blocks, trace cap
  await rec('healthz-after', '/healthz', { key: null });
});

it('env-tuned', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zz-review-'));
  for (const env of [{ LIMIT_MSG_BYTES: '100' }, { LIMIT_MSG_BYTES: 'abc' }, { LIMIT_MSG_BYTES: '0' }, { LIMIT_TOOL_RESULT_BYTES: '64KB' }]) {
    try {
      const s = await startServer({ port: 0, dataDir: mkdtempSync(join(dir, 'x')), env });
      const key = s.initialApiKey!.key;
      const r = await fetch(`${s.url}${P('tr_env')}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ blocks: [{ sub_type: 'MESSAGE', payload: { role: 'user', content: 'a'.repeat(101) } }] }) });
      out.push({ label: 'env ' + JSON.stringify(env), status: r.status, body: await r.json() });
      await s.close();
    } catch (e) { out.push({ label: 'env ' + JSON.stringify(env), status: "startError", body: String(e) }); }
  }
});
