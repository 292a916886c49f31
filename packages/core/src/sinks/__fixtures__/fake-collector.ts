import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One request the fake collector received. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** Block ids of the batch, in order. */
  ids: string[];
  /** Bytes as sent (compressed when gzip). */
  bodyBytes: number;
}

/**
 * What the fake collector does with a request:
 * - `ok`: store the batch (ids already stored are no-ops, as on the real collector), answer 201
 * - `fail`: answer `status` with `body` (and `headers`), storing nothing
 * - `commit-then-fail`: store the batch, then answer `status` (the answer is lost to the client)
 * - `drop`: destroy the socket before storing anything
 * - `commit-then-drop`: store the batch, then destroy the socket
 * - `hang`: never answer (until the server closes)
 */
export type Behaviour =
  | { kind: 'ok'; delayMs?: number }
  | {
      kind: 'fail';
      status: number;
      body?: unknown;
      headers?: Record<string, string>;
    }
  | { kind: 'commit-then-fail'; status: number }
  | { kind: 'drop' }
  | { kind: 'commit-then-drop' }
  | { kind: 'hang' };

/** A `node:http` stand-in for the collector's blocks route. */
export interface FakeCollector {
  url: string;
  requests: ReceivedRequest[];
  /** Stored block ids per trace, in the order first stored. */
  stored: Map<string, string[]>;
  /** Most requests ever open at once. */
  maxConcurrent: number;
  /** Resolves when the collector has stored at least `count` blocks. */
  waitForStored(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a fake collector on a free port; `behave` decides each request's fate (its argument is
 * the request's index, from 0).
 */
export async function startFakeCollector(
  behave: (index: number, request: ReceivedRequest) => Behaviour = () => ({ kind: 'ok' }),
): Promise<FakeCollector> {
  const requests: ReceivedRequest[] = [];
  const stored = new Map<string, string[]>();
  const seen = new Set<string>();
  let open = 0;
  let storedCount = 0;
  const waiting: { count: number; resolve: () => void }[] = [];
  const collector = {
    url: '',
    requests,
    stored,
    maxConcurrent: 0,
  } as FakeCollector;

  function store(request: ReceivedRequest): number {
    const traceId = decodeURIComponent(request.path.split('/')[5] ?? '');
    const list = stored.get(traceId) ?? [];
    stored.set(traceId, list);
    let inserted = 0;
    for (const id of request.ids) {
      if (seen.has(`${traceId}/${id}`)) continue;
      seen.add(`${traceId}/${id}`);
      list.push(id);
      inserted++;
      storedCount++;
    }
    for (const waiter of waiting.splice(0)) {
      if (storedCount >= waiter.count) waiter.resolve();
      else waiting.push(waiter);
    }
    return inserted;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const text = (
      req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw
    ).toString('utf8');
    const body = JSON.parse(text) as { blocks: { id: string }[] };
    const request: ReceivedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      ids: body.blocks.map((block) => block.id),
      bodyBytes: raw.length,
    };
    const index = requests.length;
    requests.push(request);
    const behaviour = behave(index, request);
    switch (behaviour.kind) {
      case 'ok': {
        if (behaviour.delayMs !== undefined)
          await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
        const inserted = store(request);
        res.writeHead(inserted > 0 ? 201 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ inserted }));
        return;
      }
      case 'fail':
        res.writeHead(behaviour.status, {
          'content-type': 'application/json',
          ...behaviour.headers,
        });
        res.end(behaviour.body === undefined ? '' : JSON.stringify(behaviour.body));
        return;
      case 'commit-then-fail':
        store(request);
        res.writeHead(behaviour.status);
        res.end();
        return;
      case 'drop':
        req.socket.destroy();
        return;
      case 'commit-then-drop':
        store(request);
        req.socket.destroy();
        return;
      case 'hang':
        return;
    }
  }

  const server = createServer((req, res) => {
    open++;
    collector.maxConcurrent = Math.max(collector.maxConcurrent, open);
    res.on('close', () => {
      open--;
    });
    handle(req, res).catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  collector.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  collector.waitForStored = (count) =>
    storedCount >= count
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiting.push({ count, resolve }));
  collector.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return collector;
}
