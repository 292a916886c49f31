import { BlockSchema, ChatEventSchema } from '@tracewarden/core';
import { serverErrorHttpStatus } from '../errors/index.js';
import { type JsonSchema, requestSchemas } from './request-schemas.js';

type Json = Record<string, unknown>;

/** Core's zod schema as JSON Schema, without the `$schema` key (OpenAPI 3.1 embeds it). */
function fromCore(
  schema: { toJSONSchema(params?: object): unknown },
  io: 'input' | 'output',
): Json {
  const { $schema: _dialect, ...rest } = schema.toJSONSchema({
    io,
    unrepresentable: 'any',
  }) as Json;
  return rest;
}

/** A block as posted: core's block schema, with the fields the collector fills in optional. */
function blockInputSchema(): Json {
  const schema = fromCore(BlockSchema, 'input');
  const variants = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
  for (const variant of variants ?? []) {
    variant.required = ((variant.required as string[] | undefined) ?? []).filter(
      (key) => key !== 'id' && key !== 'trace_id' && key !== 'block_type',
    );
  }
  return {
    ...schema,
    description:
      "A seed 002 block (core's BlockSchema). The collector assigns `id` (tb_...), `trace_id` (the path's), `block_type` (from sub_type) and timestamps when absent; core's validator enforces every rule, including those JSON Schema cannot say (parents, duplicates, byte limits).",
  };
}

const errorBody: Json = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'http_status', 'message', 'details'],
      properties: {
        code: {
          type: 'string',
          enum: [
            'VALIDATION',
            'PAYLOAD_TOO_LARGE',
            'PARENT_SUBTYPE_MISMATCH',
            'DUPLICATE_CALL_ID',
            'DUPLICATE_RESULT_SEQ',
            ...Object.keys(serverErrorHttpStatus),
          ],
        },
        http_status: { type: 'integer' },
        message: { type: 'string' },
        details: { type: 'object' },
      },
    },
  },
};

const traceSummary: Json = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
    block_count: { type: 'integer' },
    first_user_message: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['ok', 'error'] },
    error_count: { type: 'integer' },
    cost_usd: { type: 'number' },
    violation_count: { type: 'integer' },
  },
};

const datasetSummary: Json = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    metadata: { type: 'object' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
    trace_count: { type: 'integer' },
  },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json | JsonSchema) => ({ 'application/json': { schema } });
const ok = (description: string, schema: Json | JsonSchema) => ({
  description,
  content: json(schema),
});
/** What each error status means on this API (seed 002's codes and the collector's own). */
const errorStatuses: Readonly<Record<number, string>> = {
  400: 'INVALID_JSON (a body that is not UTF-8 JSON or not valid gzip) or INVALID_REQUEST (a bad limit, cursor or name; a request that is not valid HTTP/1.1)',
  401: 'UNAUTHORIZED: no key, or a malformed, unknown or revoked one',
  404: 'NOT_FOUND: another organization, or an unknown trace, dataset or route',
  408: 'REQUEST_TIMEOUT: the request did not arrive in time',
  409: 'PARENT_SUBTYPE_MISMATCH, DUPLICATE_CALL_ID, DUPLICATE_RESULT_SEQ (seed 002), or CONFLICT (a dataset name taken)',
  413: 'PAYLOAD_TOO_LARGE: a payload field, a payload, the body or the batch over its limit',
  415: 'UNSUPPORTED_MEDIA_TYPE: another Content-Type, or an encoding other than gzip',
  422: 'VALIDATION: a body that does not fit its schema or a block that breaks a seed 002 rule (`details.field` names what)',
  431: 'HEADERS_TOO_LARGE: headers larger than the collector reads',
  500: 'INTERNAL: a fault of the collector',
  503: 'SERVICE_UNAVAILABLE: the database cannot be reached; retry',
};
/**
 * Error statuses every route may answer (a bad request line, no key, another organization, a
 * stalled request, headers too large, a fault, the database away) besides its own.
 */
const everyRoute = [400, 401, 404, 408, 431, 500, 503];
/** Error statuses of a route that reads a body. */
const withBody = [400, 413, 415, 422];
const errorsOf = (statuses: readonly number[]) =>
  Object.fromEntries(
    [...new Set(statuses)]
      .sort((a, b) => a - b)
      .map((status) => [
        String(status),
        { description: errorStatuses[status] ?? 'error', content: json(ref('Error')) },
      ]),
  );
const errors = (...statuses: number[]) => errorsOf([...everyRoute, ...statuses]);
/** The routes outside `/v1/organizations` answer no 404 (their path is exact); probes need no key. */
const unauthenticated = [400, 408, 431, 500];
const page = (key: string, item: Json) =>
  ({
    type: 'object',
    properties: {
      [key]: { type: 'array', items: item },
      next_cursor: { type: ['string', 'null'] },
    },
  }) as Json;
const pageParameters = [
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
  { name: 'cursor', in: 'query', schema: { type: 'string' } },
];
const org = { name: 'org', in: 'path', required: true, schema: { type: 'string' } };
const trace = { name: 'traceId', in: 'path', required: true, schema: { type: 'string' } };
const dataset = { name: 'name', in: 'path', required: true, schema: { type: 'string' } };

let document: Json | undefined;

/**
 * The collector's OpenAPI 3.1 document (served at `/v1/openapi.json`). Request bodies are the
 * {@link requestSchemas} the routes check bodies against; blocks and chat events are core's
 * zod schemas (`BlockSchema`, `ChatEventSchema`) converted to JSON Schema.
 *
 * @returns the document (built once)
 * @example
 * ```ts
 * const document = createOpenApiDocument();
 * Object.keys(document.paths as object); // ['/v1/organizations/{org}/traces', ...]
 * ```
 */
export function createOpenApiDocument(): Json {
  document ??= {
    openapi: '3.1.0',
    info: {
      title: 'tracewarden collector',
      version: '0.0.0',
      description:
        "Seed 002's trace-block API: post blocks, read them as pages or as the stitched tree; datasets (seed 001) and Invariant Explorer's push API. Errors are { error: { code, http_status, message, details } }.",
    },
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        BlockInput: blockInputSchema(),
        Block: fromCore(BlockSchema, 'output'),
        ChatEvent: fromCore(ChatEventSchema, 'input'),
        Error: errorBody,
        TraceSummary: traceSummary,
        DatasetSummary: datasetSummary,
        ...requestSchemas,
      },
    },
    paths: {
      '/v1/organizations/{org}/traces': {
        get: {
          summary: 'List traces, newest first',
          parameters: [org, ...pageParameters],
          responses: {
            '200': ok('a page of traces', page('traces', ref('TraceSummary'))),
            ...errors(400),
          },
        },
      },
      '/v1/organizations/{org}/traces/{traceId}': {
        get: {
          summary: "A trace's summary",
          parameters: [org, trace],
          responses: { '200': ok('the trace', ref('TraceSummary')), ...errors() },
        },
        delete: {
          summary: 'Delete a trace and its blocks',
          parameters: [org, trace],
          responses: { '204': { description: 'deleted' }, ...errors() },
        },
      },
      '/v1/organizations/{org}/traces/{traceId}/blocks': {
        post: {
          summary:
            'Append a batch of blocks (one transaction; re-sending stored blocks is a no-op)',
          parameters: [org, trace],
          requestBody: { required: true, content: json(ref('PostBlocks')) },
          responses: {
            '201': ok('stored', {
              type: 'object',
              properties: {
                trace_id: { type: 'string' },
                inserted: { type: 'integer' },
                blocks: { type: 'array', items: ref('Block') },
              },
            }),
            '200': ok('every block was already stored (a retry): nothing inserted', {
              type: 'object',
              properties: {
                trace_id: { type: 'string' },
                inserted: { type: 'integer' },
                blocks: { type: 'array', items: ref('Block') },
              },
            }),
            ...errors(...withBody, 409),
          },
        },
        get: {
          summary: "A page of the trace's blocks, in the order stored",
          parameters: [org, trace, ...pageParameters],
          responses: {
            '200': ok('a page of blocks', page('blocks', ref('Block'))),
            ...errors(400),
          },
        },
      },
      '/v1/organizations/{org}/traces/{traceId}/blocks.stitched': {
        get: {
          summary:
            "The stitched tree (core's stitchBlocks): messages, their thinks and tool calls, results, orphans",
          parameters: [org, trace],
          responses: { '200': ok('the tree', { type: 'object' }), ...errors() },
        },
      },
      '/v1/organizations/{org}/datasets': {
        get: {
          summary: 'List datasets, newest first',
          parameters: [org, ...pageParameters],
          responses: {
            '200': ok('a page of datasets', page('datasets', ref('DatasetSummary'))),
            ...errors(400),
          },
        },
        post: {
          summary: 'Create a dataset',
          parameters: [org],
          requestBody: { required: true, content: json(ref('CreateDataset')) },
          responses: { '201': ok('created', ref('DatasetSummary')), ...errors(...withBody, 409) },
        },
      },
      '/v1/organizations/{org}/datasets/{name}': {
        get: {
          summary: 'A dataset with its traces (ids, metadata, annotations)',
          parameters: [org, dataset],
          responses: { '200': ok('the dataset', ref('DatasetSummary')), ...errors() },
        },
        delete: {
          summary: 'Delete a dataset (its traces stay)',
          parameters: [org, dataset],
          responses: { '204': { description: 'deleted' }, ...errors() },
        },
      },
      '/v1/organizations/{org}/datasets/{name}/traces': {
        post: {
          summary: 'Add stored traces to a dataset',
          parameters: [org, dataset],
          requestBody: { required: true, content: json(ref('AddDatasetTraces')) },
          responses: { '200': ok('added', { type: 'object' }), ...errors(...withBody) },
        },
      },
      '/v1/organizations/{org}/datasets/{name}/export': {
        get: {
          summary:
            "Export in Invariant Explorer's JSONL (metadata line, then raw or annotated event lists)",
          parameters: [
            org,
            dataset,
            {
              name: 'fidelity',
              in: 'query',
              schema: { type: 'string', enum: ['chat', 'lossless', 'exact'] },
            },
          ],
          responses: {
            '200': {
              description: 'JSON Lines',
              content: { 'application/x-ndjson': { schema: { type: 'string' } } },
            },
            ...errors(400),
          },
        },
      },
      '/v1/organizations/{org}/datasets/{name}/import': {
        post: {
          summary:
            "Import Invariant Explorer's JSONL into the dataset (created when missing), all or nothing",
          parameters: [org, dataset],
          requestBody: {
            required: true,
            content: { 'application/x-ndjson': { schema: { type: 'string' } } },
          },
          responses: { '201': ok('imported', { type: 'object' }), ...errors(...withBody, 409) },
        },
      },
      '/api/v1/push/trace': {
        post: {
          summary:
            "Invariant Explorer's push API: store traces of chat events (the key's organization)",
          requestBody: { required: true, content: json(ref('PushTrace')) },
          responses: {
            '200': ok('the new trace ids', {
              type: 'object',
              properties: {
                id: { type: 'array', items: { type: 'string' } },
                dataset: { type: ['string', 'null'] },
              },
            }),
            ...errors(...withBody, 409),
          },
        },
      },
      '/v1/openapi.json': {
        get: {
          summary: 'This document',
          responses: {
            '200': ok('the OpenAPI document', { type: 'object' }),
            ...errorsOf([...unauthenticated, 401, 503]),
          },
        },
      },
      '/healthz': {
        get: {
          summary: 'Liveness: 200 while the process runs (no key needed)',
          security: [],
          responses: {
            '200': ok('alive', { type: 'object', properties: { status: { const: 'ok' } } }),
            ...errorsOf(unauthenticated),
          },
        },
      },
      '/readyz': {
        get: {
          summary: 'Readiness: 200 when the database answers, 503 while draining (no key needed)',
          security: [],
          responses: {
            '200': ok('ready', { type: 'object', properties: { status: { const: 'ready' } } }),
            ...errorsOf(unauthenticated),
            '503': ok('draining, or the database is away', {
              type: 'object',
              properties: { status: { const: 'draining' } },
            }),
          },
        },
      },
    },
  };
  return document;
}
