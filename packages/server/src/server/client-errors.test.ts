import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../__fixtures__/test-server.js';

/** Sends raw bytes to the server and reads everything it answers until it closes. */
function raw(server: TestServer, bytes: string): Promise<string> {
  const { hostname, port } = new URL(server.server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** The status and the JSON body of a raw answer. */
function parse(answer: string): { status: number; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: JSON.parse(body) };
}

describe('requests Node refuses before any route sees them', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  it('a malformed request gets 400 in the seed error shape, not a bare status line', async () => {
    t = await startTestServer();
    for (const request of [
      'GARBAGE\r\n\r\n',
      'POST /v1/organizations/default/traces/tr_1/blocks HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'POST /v1/organizations/default/traces/tr_1/blocks HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n',
    ]) {
      const { status, body } = parse(await raw(t, request));
      expect(status).toBe(400);
      expect(body).toEqual({
        error: {
          code: 'INVALID_REQUEST',
          http_status: 400,
          message: expect.stringMatching(/not valid HTTP\/1\.1/),
          details: {},
        },
      });
    }
  });

  it('headers past what the server reads get 431 HEADERS_TOO_LARGE in the seed error shape', async () => {
    t = await startTestServer();
    const { status, body } = parse(
      await raw(t, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(status).toBe(431);
    expect(body).toMatchObject({ error: { code: 'HEADERS_TOO_LARGE', http_status: 431 } });
  });

  it('a client that goes away mid-body is not logged as a fault of the collector', async () => {
    const onError = vi.fn();
    t = await startTestServer({ onError });
    const { hostname, port } = new URL(t.server.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `POST /v1/organizations/default/traces/tr_1/blocks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t?.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[{"sub`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    // the server notices the reset, then answers nothing and logs nothing
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(onError).not.toHaveBeenCalled();
    const health = await t.request('/healthz', { key: null });
    expect(health.status).toBe(200);
  });
});
