import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks, startTestServer, type TestServer } from '../__fixtures__/test-server.js';

describe('HTTP semantics of the collector', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ limits: { maxBodyBytes: 64 * 1024 } });
    expect((await t.post('tr_head', [blocks.message('tb_m')])).status).toBe(201);
  });
  afterAll(() => t.stop());

  it('answers HEAD wherever GET works: the same status and headers, no body', async () => {
    for (const path of [
      '/v1/organizations/default/traces/tr_head/blocks',
      '/v1/organizations/default/traces/tr_head/blocks.stitched',
      '/v1/openapi.json',
    ]) {
      const get = await t.request(path);
      const head = await t.request(path, { method: 'HEAD' });
      expect(head.status, path).toBe(200);
      expect(head.status).toBe(get.status);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(await head.text()).toBe('');
    }
    // a route without GET still refuses HEAD, with its Allow header
    const push = await t.request('/api/v1/push/trace', { method: 'HEAD' });
    expect(push.status).toBe(405);
  });

  it('says which scheme to authenticate with on 401 (WWW-Authenticate: Bearer)', async () => {
    const response = await t.request('/v1/organizations/default/traces', { key: null });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    const wrong = await t.request('/v1/organizations/default/traces', { key: 'tw_nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  });

  it('stops reading an unauthenticated body past the body limit (closes the connection)', async () => {
    const { hostname, port } = new URL(t.server.url);
    const socket = connect(Number(port), hostname);
    let answer = '';
    let serverClosed = false;
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('close', () => {
      serverClosed = true;
    });
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'POST /v1/organizations/default/traces/tr_x/blocks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000000000\r\n\r\n',
    );
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    // a body announced as 1 GB, sent on and on (the keep-alive timer never fires): past the
    // 64 KiB limit the collector hangs up; a collector that drains it all reads for as long
    // as the client writes
    for (let i = 0; i < 100 && !serverClosed; i++) {
      socket.write(chunk);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    const closedByServer = serverClosed;
    socket.destroy();
    expect(closedByServer).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 401/);
  }, 20_000);
});
