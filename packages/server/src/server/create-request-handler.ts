import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BlockLimits, type IdGenerator, stitchBlocks, TraceError } from '@tracewarden/core';
import type { ServerLimits } from '../config/index.js';
import { exportLine, parseDatasetJsonl, parsePushBody } from '../datasets/index.js';
import { ServerError, toErrorBody } from '../errors/index.js';
import { readJsonBody, readTextBody, sendJson, sendJsonText } from '../http/index.js';
import {
  checkBody,
  createOpenApiDocument,
  type JsonSchema,
  requestSchemas,
} from '../openapi/index.js';
import type {
  CollectorStore,
  DatasetEntry,
  DatasetSummary,
  Organization,
} from '../storage/index.js';

/** What the handler needs from the running server. @internal */
export interface HandlerContext {
  store: CollectorStore;
  limits: Readonly<ServerLimits>;
  blockLimits: Readonly<BlockLimits>;
  ids: IdGenerator;
  /** True once `close()` was called: `/readyz` fails and connections are not kept alive. */
  draining(): boolean;
  /** Called with every unexpected error (a 500). */
  onError(error: unknown): void;
}

type Handler = (
  request: IncomingMessage,
  response: ServerResponse,
  params: RouteParams,
) => Promise<void> | void;

interface RouteParams {
  organization: Organization;
  /** The path's trace id or dataset name. */
  id: string;
  query: URLSearchParams;
}

interface Route {
  pattern: RegExp;
  methods: Partial<Record<string, Handler>>;
}

const maxPageSize = 1000;
const maxTraceIdLength = 256;

/** The page a list request asks for: `?cursor=` and `?limit=` (else `fallback` items). */
function pageRequest(
  query: URLSearchParams,
  fallback: number,
): { cursor: string | undefined; limit: number } {
  const cursor = query.get('cursor') ?? undefined;
  const text = query.get('limit');
  if (text === null) return { cursor, limit: fallback };
  const value = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 1 && value <= maxPageSize)) {
    throw new ServerError({
      code: 'INVALID_REQUEST',
      message: `limit must be a whole number from 1 to ${maxPageSize}, got ${JSON.stringify(text)}`,
      details: { field: 'limit' },
    });
  }
  return { cursor, limit: value };
}

function traceNotFound(traceId: string): ServerError {
  return new ServerError({
    code: 'NOT_FOUND',
    message: `trace ${JSON.stringify(traceId)} not found in this organization`,
    details: { trace_id: traceId },
  });
}

/**
 * A trace of no events has no block to store, so no trace to give an id to: refused (422) with
 * its index, before anything of the request is stored.
 */
function refuseEmptyTraces(traces: readonly { blocks: readonly unknown[] }[]): void {
  const index = traces.findIndex((trace) => trace.blocks.length === 0);
  if (index === -1) return;
  throw new TraceError({
    code: 'VALIDATION',
    message: `trace ${index}: a trace with no events has nothing to store; leave it out (nothing of this request was stored)`,
    details: { trace_index: index },
  });
}

function datasetNotFound(name: string): ServerError {
  return new ServerError({
    code: 'NOT_FOUND',
    message: `dataset ${JSON.stringify(name)} not found in this organization`,
    details: { dataset: name },
  });
}

/**
 * Checks a body against its request schema (the one the OpenAPI document publishes).
 * @throws core's `TraceError` `VALIDATION` naming the first field that does not fit
 */
/**
 * Reads a JSON body and checks it against its request schema; `example` shows a body that would
 * do, in the error.
 */
async function readCheckedBody<T>(
  request: IncomingMessage,
  limits: HandlerContext['limits'],
  schema: JsonSchema,
  example: string,
  /** Rewrites a body of another accepted form into the schema's form before the check. */
  normalize?: (body: unknown) => unknown,
): Promise<T> {
  const read = await readJsonBody(request, limits);
  const body = normalize === undefined ? read : normalize(read);
  const problem = checkBody(schema, body);
  if (problem !== undefined) {
    throw new TraceError({
      code: 'VALIDATION',
      message: `${problem.message}; send ${example} (schema: /v1/openapi.json)`,
      details: { field: problem.path },
    });
  }
  return body as T;
}

/**
 * The collector's request handler. Hand-written routing on `node:http`: five routes with
 * fixed shapes need no framework, and owning the body reading is what keeps the byte limits,
 * gzip cap and error bodies exact.
 * @internal
 */
export function createRequestHandler(
  context: HandlerContext,
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const { store, limits } = context;

  const datasetWithEntries = async (
    organizationId: number,
    name: string,
  ): Promise<{ dataset: DatasetSummary; entries: DatasetEntry[] }> => {
    const dataset = await store.dataset(organizationId, name);
    const entries = await store.datasetEntries(organizationId, name);
    if (dataset === undefined || entries === undefined) throw datasetNotFound(name);
    return { dataset, entries };
  };

  const routes: Route[] = [
    {
      pattern: /^\/traces$/,
      methods: {
        GET: async (_request, response, { organization, query }) => {
          const page = await store.listTraces(organization.id, pageRequest(query, 50));
          sendJson(response, 200, { traces: page.items, next_cursor: page.next_cursor });
        },
      },
    },
    {
      pattern: /^\/traces\/([^/]+)$/,
      methods: {
        GET: async (_request, response, { organization, id: traceId }) => {
          const trace = await store.trace(organization.id, traceId);
          if (trace === undefined) throw traceNotFound(traceId);
          sendJson(response, 200, trace);
        },
        DELETE: async (_request, response, { organization, id: traceId }) => {
          if (!(await store.deleteTrace(organization.id, traceId))) throw traceNotFound(traceId);
          sendJson(response, 204, undefined);
        },
      },
    },
    {
      pattern: /^\/traces\/([^/]+)\/blocks$/,
      methods: {
        GET: async (_request, response, { organization, id: traceId, query }) => {
          const page = await store.listBlocks(organization.id, traceId, pageRequest(query, 500));
          if (page === undefined) throw traceNotFound(traceId);
          sendJson(response, 200, { blocks: page.items, next_cursor: page.next_cursor });
        },
        POST: async (request, response, { organization, id: traceId }) => {
          const { blocks } = await readCheckedBody<{ blocks: unknown[] }>(
            request,
            limits,
            requestSchemas.PostBlocks,
            '{ "blocks": [ { "sub_type": "MESSAGE", "payload": { ... } } ] }',
            // the seed's example batch is a bare array of blocks: taken as the blocks; one block
            // (an object with a `sub_type` and no `blocks`), as the seed's helpers log them: a
            // batch of one
            (body) =>
              Array.isArray(body)
                ? { blocks: body }
                : isSingleBlock(body)
                  ? { blocks: [body] }
                  : body,
          );
          if (traceId.length > maxTraceIdLength) {
            throw new TraceError({
              code: 'VALIDATION',
              message: `a trace id has at most ${maxTraceIdLength} characters, got ${traceId.length}`,
              details: { field: 'trace_id' },
            });
          }
          if (blocks.length > limits.maxBatchBlocks) {
            throw new TraceError({
              code: 'PAYLOAD_TOO_LARGE',
              message: `a batch holds at most ${limits.maxBatchBlocks} blocks (TRACEWARDEN_MAX_BATCH_BLOCKS), got ${blocks.length}; send smaller batches`,
              details: {
                field: 'blocks',
                trace_id: traceId,
                limit_blocks: limits.maxBatchBlocks,
                actual_blocks: blocks.length,
              },
            });
          }
          // a block of another trace: said in the API's terms (the validator's own message
          // speaks of validators, which an HTTP client does not hold)
          for (let position = 0; position < blocks.length; position++) {
            const block = blocks[position];
            const given = (block as { trace_id?: unknown } | null)?.trace_id;
            if (typeof given === 'string' && given !== traceId) {
              const blockId = (block as { id?: unknown }).id;
              throw new TraceError({
                code: 'VALIDATION',
                message: `block ${typeof blockId === 'string' ? `${blockId} ` : ''}has trace_id ${JSON.stringify(given)} but was posted to trace ${JSON.stringify(traceId)}; post each trace's blocks to /v1/organizations/{org}/traces/{its trace_id}/blocks (or leave trace_id out)`,
                details: {
                  // the block's position in a batch of several, as every other block error
                  // gives it (a one-block request's error is seed 002's body exactly)
                  ...(blocks.length > 1 ? { path: String(position) } : {}),
                  field: 'trace_id',
                  trace_id: traceId,
                  ...(typeof blockId === 'string' ? { block_id: blockId } : {}),
                },
              });
            }
          }
          const result = await store.appendBlocks(organization.id, traceId, blocks, {
            blockLimits: context.blockLimits,
            maxTraceBlocks: limits.maxTraceBlocks,
            ids: context.ids,
          });
          const status = result.inserted > 0 ? 201 : 200;
          if (result.blocksJson === undefined) {
            sendJson(response, status, {
              trace_id: traceId,
              inserted: result.inserted,
              blocks: result.blocks,
            });
          } else {
            // the blocks were serialised once, for their rows: the answer reuses that text
            sendJsonText(
              response,
              status,
              `{"trace_id":${JSON.stringify(traceId)},"inserted":${result.inserted},"blocks":${result.blocksJson}}`,
            );
          }
        },
      },
    },
    {
      pattern: /^\/traces\/([^/]+)\/blocks\.stitched$/,
      methods: {
        GET: async (_request, response, { organization, id: traceId }) => {
          const blocks = await store.traceBlocks(organization.id, traceId);
          if (blocks === undefined) throw traceNotFound(traceId);
          sendJson(response, 200, stitchBlocks(blocks, { traceId }));
        },
      },
    },
    {
      pattern: /^\/datasets$/,
      methods: {
        GET: async (_request, response, { organization, query }) => {
          const page = await store.listDatasets(organization.id, pageRequest(query, 50));
          sendJson(response, 200, { datasets: page.items, next_cursor: page.next_cursor });
        },
        POST: async (request, response, { organization }) => {
          const { name, metadata } = await readCheckedBody<{
            name: string;
            metadata?: Record<string, unknown>;
          }>(
            request,
            limits,
            requestSchemas.CreateDataset,
            '{ "name": "<dataset>", "metadata": { ... } }',
          );
          sendJson(response, 201, await store.createDataset(organization.id, name, metadata));
        },
      },
    },
    {
      pattern: /^\/datasets\/([^/]+)$/,
      methods: {
        GET: async (_request, response, { organization, id: name }) => {
          const { dataset, entries } = await datasetWithEntries(organization.id, name);
          sendJson(response, 200, { ...dataset, traces: entries });
        },
        DELETE: async (_request, response, { organization, id: name }) => {
          if (!(await store.deleteDataset(organization.id, name))) throw datasetNotFound(name);
          sendJson(response, 204, undefined);
        },
      },
    },
    {
      pattern: /^\/datasets\/([^/]+)\/traces$/,
      methods: {
        POST: async (request, response, { organization, id: name }) => {
          const { traces } = await readCheckedBody<{
            traces: { trace_id: string; metadata?: Record<string, unknown> }[];
          }>(
            request,
            limits,
            requestSchemas.AddDatasetTraces,
            '{ "traces": [{ "trace_id": "tr_...", "metadata": { ... } }] }',
          );
          const added = await store.addDatasetTraces(organization.id, name, traces);
          sendJson(response, 200, { dataset: name, added });
        },
      },
    },
    {
      pattern: /^\/datasets\/([^/]+)\/export$/,
      methods: {
        GET: async (_request, response, { organization, id: name, query }) => {
          const { dataset, entries } = await datasetWithEntries(organization.id, name);
          const fidelity = query.get('fidelity') ?? 'lossless';
          if (fidelity !== 'chat' && fidelity !== 'lossless' && fidelity !== 'exact') {
            throw new ServerError({
              code: 'INVALID_REQUEST',
              message: `fidelity must be chat, lossless or exact, got ${JSON.stringify(fidelity)}`,
              details: { field: 'fidelity' },
            });
          }
          response.writeHead(200, {
            'content-type': 'application/x-ndjson; charset=utf-8',
            'content-disposition': `attachment; filename="${name}.jsonl"`,
            'cache-control': 'no-store',
          });
          response.write(`${JSON.stringify({ metadata: dataset.metadata })}\n`);
          for (const entry of entries) {
            const blocks = (await store.traceBlocks(organization.id, entry.trace_id)) ?? [];
            if (!response.write(exportLine(entry, blocks, fidelity))) {
              await new Promise((resolve) => response.once('drain', resolve));
            }
          }
          response.end();
        },
      },
    },
    {
      pattern: /^\/datasets\/([^/]+)\/import$/,
      methods: {
        POST: async (request, response, { organization, id: name }) => {
          const text = await readTextBody(request, limits, 'jsonl');
          const file = parseDatasetJsonl(text, context.ids);
          refuseEmptyTraces(file.traces);
          const ids = await store.importTraces(organization.id, file.traces, {
            blockLimits: context.blockLimits,
            maxTraceBlocks: limits.maxTraceBlocks,
            ids: context.ids,
            dataset: { name, metadata: file.metadata },
          });
          sendJson(response, 201, { dataset: name, trace_ids: ids });
        },
      },
    },
  ];

  async function push(
    request: IncomingMessage,
    response: ServerResponse,
    organization: Organization,
  ) {
    const body = await readCheckedBody<unknown>(
      request,
      limits,
      requestSchemas.PushTrace,
      '{ "messages": [[event, ...], ...] }',
    );
    const { traces, dataset } = parsePushBody(body, context.ids);
    refuseEmptyTraces(traces);
    const ids = await store.importTraces(organization.id, traces, {
      blockLimits: context.blockLimits,
      maxTraceBlocks: limits.maxTraceBlocks,
      ids: context.ids,
      dataset: dataset === undefined ? undefined : { name: dataset },
    });
    // Invariant Explorer's answer: the new trace ids, and the dataset they were added to
    sendJson(response, 200, { id: ids, dataset: dataset ?? null });
  }

  async function authenticate(request: IncomingMessage): Promise<Organization> {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    const organization = match === null ? undefined : await store.authenticate(match[1] as string);
    if (organization === undefined) {
      throw new ServerError({
        code: 'UNAUTHORIZED',
        message:
          match === null
            ? 'this route needs an API key: send the header Authorization: Bearer <key>'
            : 'the API key is not valid (unknown, malformed or revoked); create one with tracewarden keys create',
      });
    }
    return organization;
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://collector.invalid');
    const path = url.pathname;
    const method = request.method ?? 'GET';
    if (path === '/healthz' || path === '/readyz') {
      if (method !== 'GET' && method !== 'HEAD') {
        throw new ServerError({
          code: 'METHOD_NOT_ALLOWED',
          message: `${method} is not allowed on ${path}; use GET`,
          details: { allow: ['GET'] },
        });
      }
      if (path === '/healthz') return sendJson(response, 200, { status: 'ok' });
      const ready = !context.draining() && (await store.ping());
      return sendJson(response, ready ? 200 : 503, { status: ready ? 'ready' : 'draining' });
    }
    const isApi =
      path === '/v1' || path.startsWith('/v1/') || path === '/api' || path.startsWith('/api/');
    if (!isApi) {
      throw new ServerError({
        code: 'NOT_FOUND',
        message: `no route ${path}; the API is under /v1/organizations/:org/traces`,
      });
    }
    const organization = await authenticate(request);
    if (path === '/v1/openapi.json') {
      if (method !== 'GET' && method !== 'HEAD') {
        throw new ServerError({
          code: 'METHOD_NOT_ALLOWED',
          message: `${method} is not allowed on ${path}; use GET`,
          details: { allow: ['GET'] },
        });
      }
      return sendJson(response, 200, createOpenApiDocument());
    }
    if (path === '/api/v1/push/trace') {
      if (method !== 'POST') {
        throw new ServerError({
          code: 'METHOD_NOT_ALLOWED',
          message: `${method} is not allowed on ${path}; use POST`,
          details: { allow: ['POST'] },
        });
      }
      return push(request, response, organization);
    }
    const match = /^\/v1\/organizations\/([^/]+)(\/.*)?$/.exec(path);
    let name: string | undefined;
    try {
      name = match === null ? undefined : decodeURIComponent(match[1] as string);
    } catch {
      name = undefined;
    }
    if (name !== undefined && name !== organization.name) {
      // the same answer whether or not that organization exists: a key learns nothing of others
      throw new ServerError({
        code: 'NOT_FOUND',
        message: `organization ${JSON.stringify(name)} not found`,
        details: { organization: name },
      });
    }
    const rest = match?.[2] ?? '';
    for (const candidate of routes) {
      const found = candidate.pattern.exec(rest);
      if (found === null || name === undefined) continue;
      let id = '';
      try {
        id = found[1] === undefined ? '' : decodeURIComponent(found[1]);
      } catch {
        throw traceNotFound(found[1] as string);
      }
      // HEAD is GET without the body (Node's response leaves it out)
      const handler =
        candidate.methods[method] ?? (method === 'HEAD' ? candidate.methods.GET : undefined);
      if (handler === undefined) {
        const allow = Object.keys(candidate.methods);
        throw new ServerError({
          code: 'METHOD_NOT_ALLOWED',
          message: `${method} is not allowed on ${path}; use ${allow.join(' or ')}`,
          details: { allow },
        });
      }
      await handler(request, response, { organization, id, query: url.searchParams });
      return;
    }
    throw new ServerError({
      code: 'NOT_FOUND',
      message: `no route ${method} ${path}; see the API in the collector's README`,
    });
  }

  return async (request, response) => {
    if (context.draining()) response.setHeader('connection', 'close');
    try {
      await route(request, response);
    } catch (error) {
      const { status, body } = toErrorBody(error);
      if (status >= 500) context.onError(error);
      // a body not read (an early error) would be read as the next request: drain it, up to
      // the body limit (an unauthenticated client cannot make the collector read forever)
      if (!request.readableEnded) drain(request, limits.maxBodyBytes);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const allow = body.error.details.allow;
      const headers: Record<string, string> = Array.isArray(allow)
        ? { allow: allow.join(', ') }
        : {};
      // RFC 9110: a 401 says which scheme to authenticate with
      if (status === 401) headers['www-authenticate'] = 'Bearer realm="tracewarden"';
      sendJson(response, status, body, headers);
    }
  };
}

/**
 * Reads and drops the rest of a request's body so the connection can serve the next request;
 * past `maxBytes` the connection is closed instead.
 */
function drain(request: IncomingMessage, maxBytes: number): void {
  let seen = 0;
  request.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) request.socket.destroy();
  });
  request.resume();
}

/** A body that is one block rather than a batch: an object with a `sub_type` and no `blocks`. */
function isSingleBlock(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    !Object.hasOwn(body, 'blocks') &&
    Object.hasOwn(body, 'sub_type')
  );
}
