import { afterAll, beforeAll, it } from 'vitest';
import { startTestServer, type TestServer } from './__fixtures__/test-server.js';
import { writeFileSync } from 'node:fs';

let t: TestServer;
const out: unknown[] = [];
beforeAll(async () => { t = await startTestServer({ store: 'sqlite' }); });
afterAll(async () => { writeFileSync('/tmp/s21/server-review/basic.json', JSON.stringify(out, null, 1)); await t.stop(); });

const P = (tr: string, s = '/blocks') => `/v1/organizations/default/traces/${tr}${s}`;
async function rec(label: string, path: string, init: RequestInit & { key?: string | null } = {}) {
  const started = Date.now();
  let r: Response;
  try { r = await t.request(path, init); } catch (e) { out.push({ label, fetchError: String(e), cause: String((e as any).cause) }); return; }
  const text = await r.text();
  let body: unknown = text;
  try { body = JSON.parse(text); } catch {}
  if (typeof body === 'string' && body.length > 400) body = body.slice(0, 400);
  out.push({ label, status: r.status, ct: r.headers.get('content-type'), ms: Date.now() - started, body: trimBody(body) });
}
function trimBody(b: any): any { const s = JSON.stringify(b); return s && s.length > 3000 ? s.slice(0, 3000) : b; }
const post = (label: string, tr: string, body: unknown, headers: Record<string,string> = { 'content-type': 'application/json' }) =>
  rec(label, P(tr), { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

it('probe', async () => {
  // seed example, bare array, with real ids
  await post('seed-bare-array', 'tr_seed', [
    { id: 'tb_msg123', block_type: 'MESSAGE', sub_type: 'MESSAGE', payload: { role: 'user', content: "what's the weather?" } },
    { id: 'tb_call123', block_type: 'ACT', sub_type: 'TOOL_CALL', parent_block_id: 'tb_msg123', payload: { call_id: 'call_1', name: 'get_weather', arguments: { city: 'bogotá' } } },
    { block_type: 'OBSERVE', sub_type: 'TOOL_RESULT', parent_block_id: 'tb_call123', payload: { call_id: 'call_1', output: { forecast: '22°C cloudy' } } },
    { block_type: 'ACT', sub_type: 'THINK', parent_block_id: 'tb_msg123', payload: { text: 'decide to show forecast in celsius' } },
  ]);
  await rec('stitched', P('tr_seed', '/blocks.stitched'));
  await rec('get-blocks', P('tr_seed'));
  await rec('get-blocks-limit1', P('tr_seed') + '?limit=1');
  await rec('get-trace', P('tr_seed', ''));
  await rec('list-traces', '/v1/organizations/default/traces');
  // string arguments: "arguments parsed to JSON"
  await post('args-string', 'tr_args', [
    { id: 'm', sub_type: 'MESSAGE', payload: { role: 'assistant', content: null } },
    { id: 'c', sub_type: 'TOOL_CALL', parent_block_id: 'm', payload: { call_id: 'k', name: 'f', arguments: '{"a":1}' } },
    { id: 'c2', sub_type: 'TOOL_CALL', parent_block_id: 'm', payload: { call_id: 'k2', name: 'f', arguments: '[1]' } },
  ]);
  await post('args-string-ok', 'tr_args2', [
    { id: 'm', sub_type: 'MESSAGE', payload: { role: 'assistant', content: null } },
    { id: 'c', sub_type: 'TOOL_CALL', parent_block_id: 'm', payload: { call_id: 'k', name: 'f', arguments: '{"a":1}' } },
  ]);
  // invariants
  await post('msg-with-parent', 'tr_inv', [
    { id: 'm1', sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' } },
    { id: 'm2', sub_type: 'MESSAGE', parent_block_id: 'm1', payload: { role: 'user', content: 'x' } }]);
  await post('inv-base', 'tr_inv', [
    { id: 'm1', sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' } },
    { id: 'c1', sub_type: 'TOOL_CALL', parent_block_id: 'm1', payload: { call_id: 'k1', name: 'f', arguments: {} } },
    { id: 'r1', sub_type: 'TOOL_RESULT', parent_block_id: 'c1', payload: { call_id: 'k1', output: 'o', seq: 0 } },
    { id: 't1', sub_type: 'THINK', parent_block_id: 'm1', payload: { text: 'hmm' } }]);
  await post('call-under-call', 'tr_inv', [{ id: 'c9', sub_type: 'TOOL_CALL', parent_block_id: 'c1', payload: { call_id: 'k9', name: 'f', arguments: {} } }]);
  await post('think-under-result', 'tr_inv', [{ id: 't9', sub_type: 'THINK', parent_block_id: 'r1', payload: { text: 'x' } }]);
  await post('result-under-msg', 'tr_inv', [{ id: 'r9', sub_type: 'TOOL_RESULT', parent_block_id: 'm1', payload: { call_id: 'k1', output: 'x' } }]);
  await post('result-under-think', 'tr_inv', [{ id: 'r9', sub_type: 'TOOL_RESULT', parent_block_id: 't1', payload: { call_id: 'k1', output: 'x' } }]);
  await post('orphan-call', 'tr_inv', [{ id: 'c8', sub_type: 'TOOL_CALL', parent_block_id: 'nope', payload: { call_id: 'k8', name: 'f', arguments: {} } }]);
  await post('call-no-parent', 'tr_inv', [{ id: 'c8', sub_type: 'TOOL_CALL', payload: { call_id: 'k8', name: 'f', arguments: {} } }]);
  await post('cross-trace-parent', 'tr_other', [{ id: 'c8', sub_type: 'TOOL_CALL', parent_block_id: 'm1', payload: { call_id: 'k8', name: 'f', arguments: {} } }]);
  await post('dup-call-id', 'tr_inv', [{ id: 'c7', sub_type: 'TOOL_CALL', parent_block_id: 'm1', payload: { call_id: 'k1', name: 'f', arguments: {} } }]);
  await post('dup-call-id-inbatch', 'tr_inv', [
    { id: 'c5', sub_type: 'TOOL_CALL', parent_block_id: 'm1', payload: { call_id: 'kk', name: 'f', arguments: {} } },
    { id: 'c6', sub_type: 'TOOL_CALL', parent_block_id: 'm1', payload: { call_id: 'kk', name: 'f', arguments: {} } }]);
  await post('dup-seq', 'tr_inv', [{ id: 'r7', sub_type: 'TOOL_RESULT', parent_block_id: 'c1', payload: { call_id: 'k1', output: 'x', seq: 0 } }]);
  await post('result-callid-mismatch', 'tr_inv', [{ id: 'r6', sub_type: 'TOOL_RESULT', parent_block_id: 'c1', payload: { call_id: 'zz', output: 'x' } }]);
  await post('resend-same', 'tr_inv', [{ id: 't1', sub_type: 'THINK', parent_block_id: 'm1', payload: { text: 'hmm' } }]);
  await post('resend-diff', 'tr_inv', [{ id: 't1', sub_type: 'THINK', parent_block_id: 'm1', payload: { text: 'other' } }]);
  await post('same-id-other-trace', 'tr_other2', [{ id: 'm1', sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' } }]);
  // payload validation
  const one = (label: string, b: unknown) => post(label, 'tr_val_' + label, [b]);
  await one('bad-role', { sub_type: 'MESSAGE', payload: { role: 'tool', content: 'x' } });
  await one('empty-content', { sub_type: 'MESSAGE', payload: { role: 'user', content: '' } });
  await one('no-content-assistant', { sub_type: 'MESSAGE', payload: { role: 'assistant' } });
  await one('empty-content-assistant', { sub_type: 'MESSAGE', payload: { role: 'assistant', content: '' } });
  await one('content-number', { sub_type: 'MESSAGE', payload: { role: 'user', content: 5 } });
  await one('bad-block-type', { sub_type: 'MESSAGE', block_type: 'ACT', payload: { role: 'user', content: 'x' } });
  await one('bad-sub-type', { sub_type: 'OBSERVE', payload: { role: 'user', content: 'x' } });
  await one('lower-sub-type', { sub_type: 'message', payload: { role: 'user', content: 'x' } });
  await one('no-sub-type', { payload: { role: 'user', content: 'x' } });
  await one('payload-null', { sub_type: 'MESSAGE', payload: null });
  await one('payload-array', { sub_type: 'MESSAGE', payload: [] });
  await one('id-number', { id: 5, sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' } });
  await one('id-empty', { id: '', sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' } });
  await one('metadata-array', { sub_type: 'MESSAGE', metadata: [], payload: { role: 'user', content: 'x' } });
  await one('extra-string', { sub_type: 'MESSAGE', extra: 's', payload: { role: 'user', content: 'x' } });
  await one('raw-string', { sub_type: 'MESSAGE', raw: 's', payload: { role: 'user', content: 'x' } });
  await one('created-bad', { sub_type: 'MESSAGE', created_at: 'yesterday', payload: { role: 'user', content: 'x' } });
  await one('created-client', { sub_type: 'MESSAGE', created_at: '1999-01-01T00:00:00.000Z', updated_at: '1998-01-01T00:00:00.000Z', payload: { role: 'user', content: 'x' } });
  await one('unknown-field', { sub_type: 'MESSAGE', foo: 1, payload: { role: 'user', content: 'x' } });
  await one('block-null', null);
  await one('block-string', 'x');
  const m = { id: 'm', sub_type: 'MESSAGE', payload: { role: 'user', content: 'x' } };
  const c = { id: 'c', sub_type: 'TOOL_CALL', parent_block_id: 'm', payload: { call_id: 'k', name: 'f', arguments: {} } };
  const two = (label: string, b: unknown) => post(label, 'tr_val_' + label, [m, c, b]);
  await two('call-empty-name', { ...c, id: 'c2', payload: { call_id: 'k2', name: '', arguments: {} } });
  await two('call-name-number', { ...c, id: 'c2', payload: { call_id: 'k2', name: 5, arguments: {} } });
  await two('call-no-callid', { ...c, id: 'c2', payload: { name: 'f', arguments: {} } });
  await two('call-args-missing', { ...c, id: 'c2', payload: { call_id: 'k2', name: 'f' } });
  await two('call-args-badjson', { ...c, id: 'c2', payload: { call_id: 'k2', name: 'f', arguments: '{oops' } });
  await two('call-args-array', { ...c, id: 'c2', payload: { call_id: 'k2', name: 'f', arguments: [1] } });
  const r = (p: unknown) => ({ id: 'r', sub_type: 'TOOL_RESULT', parent_block_id: 'c', payload: p });
  await two('res-both', r({ call_id: 'k', output: 1, delta: 'x' }));
  await two('res-neither', r({ call_id: 'k' }));
  await two('res-output-null', r({ call_id: 'k', output: null }));
  await two('res-seq-neg', r({ call_id: 'k', output: 1, seq: -1 }));
  await two('res-seq-frac', r({ call_id: 'k', output: 1, seq: 1.5 }));
  await two('res-seq-str', r({ call_id: 'k', output: 1, seq: '1' }));
  await two('res-seq-big', r({ call_id: 'k', output: 1, seq: 2 ** 53 }));
  await two('res-no-callid', r({ output: 1 }));
  await two('think-empty', { id: 't', sub_type: 'THINK', parent_block_id: 'm', payload: { text: '' } });
  await two('think-notext', { id: 't', sub_type: 'THINK', parent_block_id: 'm', payload: {} });
  // body shapes
  await post('body-null', 'tr_b1', 'null');
  await post('body-num', 'tr_b1', '5');
  await post('body-obj-empty', 'tr_b1', '{}');
  await post('blocks-string', 'tr_b1', '{"blocks":"x"}');
  await post('blocks-empty', 'tr_b1', '{"blocks":[]}');
  await post('bad-json', 'tr_b1', '{"blocks":[');
  await post('empty-body', 'tr_b1', '');
  await post('bom-json', 'tr_b1', '\ufeff{"blocks":[]}');
  await post('no-ct', 'tr_b1', '{"blocks":[]}', {});
  await post('text-plain', 'tr_b1', '{"blocks":[]}', { 'content-type': 'text/plain' });
  await post('ct-charset', 'tr_b1', '{"blocks":[]}', { 'content-type': 'application/json; charset=utf-8' });
  await post('ct-latin1', 'tr_b1', '{"blocks":[]}', { 'content-type': 'application/json; charset=latin1' });
  await post('enc-br', 'tr_b1', '{"blocks":[]}', { 'content-type': 'application/json', 'content-encoding': 'br' });
  await post('enc-gzip-bad', 'tr_b1', '{"blocks":[]}', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  // auth
  await rec('no-key', P('tr_seed'), { key: null });
  await rec('bad-key', P('tr_seed'), { key: 'tw_nonsense' });
  await rec('basic-auth', P('tr_seed'), { headers: { authorization: 'Basic abc' } });
  await rec('other-org', '/v1/organizations/acme/traces/tr_seed/blocks');
  await rec('unknown-trace-stitched', P('tr_nope', '/blocks.stitched'));
  await rec('unknown-trace-blocks', P('tr_nope'));
  await rec('unknown-route', '/v1/organizations/default/foo');
  await rec('put-blocks', P('tr_seed'), { method: 'PUT' });
  await rec('post-stitched', P('tr_seed', '/blocks.stitched'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  await rec('limit0', P('tr_seed') + '?limit=0');
  await rec('limit-abc', P('tr_seed') + '?limit=abc');
  await rec('cursor-garbage', P('tr_seed') + '?cursor=garbage');
  await rec('cursor-garbage-traces', '/v1/organizations/default/traces?cursor=%FF%FE');
  await rec('pct-bad-trace', '/v1/organizations/default/traces/%E0%A4%A/blocks');
  await post('long-trace-id', 'x'.repeat(300), [m]);
  await rec('long-trace-id-get', P('x'.repeat(300)));
  await post('surrogate-id', 'tr_sur', '{"blocks":[{"id":"\\ud800","sub_type":"MESSAGE","payload":{"role":"user","content":"x"}}]}');
  await post('surrogate-trace-body', 'tr_sur2', '{"blocks":[{"trace_id":"\\ud800","sub_type":"MESSAGE","payload":{"role":"user","content":"x"}}]}');
  await post('surrogate-content', 'tr_sur3', '{"blocks":[{"sub_type":"MESSAGE","payload":{"role":"user","content":"\\ud800"}}]}');
  await post('surrogate-extra', 'tr_sur4', '{"blocks":[{"sub_type":"MESSAGE","extra":{"a":"\\ud800"},"payload":{"role":"user","content":"x"}}]}');
  await post('surrogate-key', 'tr_sur5', '{"blocks":[{"sub_type":"MESSAGE","extra":{"\\ud800":1},"payload":{"role":"user","content":"x"}}]}');
  await post('proto-key', 'tr_proto', '{"blocks":[{"__proto__":{"sub_type":"MESSAGE"},"sub_type":"MESSAGE","extra":{"__proto__":{"x":1}},"payload":{"role":"user","content":"x","__proto__":{"y":2}}}]}');
  await rec('proto-get', P('tr_proto'));
  await post('trace-id-mismatch', 'tr_tm', [{ ...m, trace_id: 'tr_else' }]);
  await rec('healthz', '/healthz', { key: null });
  await rec('openapi-noauth', '/v1/openapi.json', { key: null });
});
