import { createHash } from 'node:crypto';
import { TraceError } from '@tracewarden/core';
import { ServerError } from '../errors/index.js';
import type { DatasetSummary, TraceSummary } from './store.js';

/** Checks and helpers both stores share, so their answers match to the byte. @internal */

/**
 * Names that appear in paths: a letter or digit, then letters, digits, `_`, `.` or `-`, up to a
 * length; `field` is the request field a bad name is reported on.
 */
const nameRules = {
  organization: {
    pattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/,
    maxLength: 63,
    field: 'organization',
  },
  dataset: { pattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/, maxLength: 200, field: 'name' },
} as const;

function checkName(kind: keyof typeof nameRules, name: string): void {
  const { pattern, maxLength, field } = nameRules[kind];
  if (!pattern.test(name)) {
    throw new ServerError({
      code: 'INVALID_REQUEST',
      message: `${kind} name ${JSON.stringify(name)} is not allowed; use 1 to ${maxLength} letters, digits, '_', '.' or '-', starting with a letter or digit`,
      details: { field },
    });
  }
}

/**
 * @throws {@link ServerError} `INVALID_REQUEST` for a name that cannot be used in paths
 * @internal
 */
export function checkOrganizationName(name: string): void {
  checkName('organization', name);
}

/**
 * @throws {@link ServerError} `INVALID_REQUEST` for a dataset name that cannot be used in paths
 * @internal
 */
export function checkDatasetName(name: string): void {
  checkName('dataset', name);
}

/** @internal */
export function organizationNotFound(organization: string): ServerError {
  return new ServerError({
    code: 'NOT_FOUND',
    message: `organization ${JSON.stringify(organization)} does not exist; create it first (tracewarden orgs create ${organization})`,
    details: { organization },
  });
}

/** @internal */
export function datasetNotFound(name: string): ServerError {
  return new ServerError({
    code: 'NOT_FOUND',
    message: `dataset ${JSON.stringify(name)} not found in this organization`,
    details: { dataset: name },
  });
}

/** @internal */
export function datasetExists(name: string): ServerError {
  return new ServerError({
    code: 'CONFLICT',
    message: `dataset ${JSON.stringify(name)} already exists; add traces to it, or pick another name`,
    details: { dataset: name },
  });
}

/** @internal */
export function traceMissing(traceId: string): ServerError {
  return new ServerError({
    code: 'NOT_FOUND',
    message: `trace ${JSON.stringify(traceId)} not found in this organization; store its blocks first`,
    details: { trace_id: traceId },
  });
}

/** @internal */
export function now(): string {
  return new Date().toISOString();
}

/**
 * What a cursor pages through: one listing of one organization (its traces, its datasets) or
 * one trace's blocks. A cursor is bound to its listing, since a position means nothing in
 * another (a block position from one trace would skip blocks of another without a word).
 * @internal
 */
export type CursorScope =
  | { list: 'traces' | 'datasets'; organizationId: number }
  | { list: 'blocks'; organizationId: number; traceId: string };

/** A short digest of a scope, written into its cursors. */
function scopeTag(scope: CursorScope): string {
  const text =
    scope.list === 'blocks'
      ? `blocks\u0000${scope.organizationId}\u0000${scope.traceId}`
      : `${scope.list}\u0000${scope.organizationId}`;
  return createHash('sha256').update(text).digest('base64url').slice(0, 12);
}

function describeScope(scope: CursorScope): string {
  return scope.list === 'blocks'
    ? `the blocks of trace ${JSON.stringify(scope.traceId)}`
    : `this organization's ${scope.list}`;
}

/** @internal */
export function encodeCursor(scope: CursorScope, seq: number | string): string {
  return Buffer.from(`${scopeTag(scope)}.${seq}`).toString('base64url');
}

/**
 * The position a cursor stands for, in the listing it was made for.
 * @throws {@link ServerError} `INVALID_REQUEST` when it is not a cursor this collector made, or
 *   one made for another listing (another trace's blocks, the traces instead of the datasets)
 * @internal
 */
export function decodeCursor(cursor: string | undefined, scope: CursorScope): number | undefined {
  if (cursor === undefined) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^([A-Za-z0-9_-]{12})\.(\d{1,15})$/.exec(text);
  if (match === null) {
    throw new ServerError({
      code: 'INVALID_REQUEST',
      message: `cursor ${JSON.stringify(cursor)} is not a cursor from this API; pass next_cursor from the previous page as is`,
      details: { field: 'cursor' },
    });
  }
  if (match[1] !== scopeTag(scope)) {
    throw new ServerError({
      code: 'INVALID_REQUEST',
      message: `cursor ${JSON.stringify(cursor)} was made for another listing, not ${describeScope(scope)}; pass the next_cursor of this listing's previous page, or leave cursor out to start from the first page`,
      details: { field: 'cursor' },
    });
  }
  return Number(match[2]);
}

/** One page of rows fetched with `limit + 1`: the items and the next cursor. @internal */
export function pageOf<R extends Record<string, unknown>, T>(
  rows: readonly R[],
  limit: number,
  map: (row: R) => T,
  scope: CursorScope,
): { items: T[]; next_cursor: string | null } {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  return {
    items: kept.map(map),
    next_cursor: more ? encodeCursor(scope, kept[kept.length - 1]?.seq as number | string) : null,
  };
}

/** A `traces` row as listed (numbers may arrive as strings from Postgres' BIGINT). @internal */
export function summaryOf(row: Record<string, unknown>): TraceSummary {
  const errors = Number(row.error_count);
  return {
    id: row.id as string,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
    block_count: Number(row.block_count),
    first_user_message: (row.first_user_message as string | null) ?? null,
    status: errors > 0 ? 'error' : 'ok',
    error_count: errors,
    cost_usd: Number(row.cost_micro_usd) / 1e6,
    violation_count: Number(row.violation_count),
  };
}

/** A `datasets` row with its `trace_count`, as listed. @internal */
export function datasetOf(row: Record<string, unknown>): DatasetSummary {
  return {
    name: row.name as string,
    metadata: JSON.parse(row.metadata as string) as Record<string, unknown>,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
    trace_count: Number(row.trace_count),
  };
}

/** A trace error of an import, saying which of its traces broke the rule. @internal */
export function atTraceIndex(error: unknown, index: number): unknown {
  if (!(error instanceof TraceError)) return error;
  return new TraceError({
    code: error.code,
    message: `trace ${index}: ${error.message}`,
    details: { ...error.details, trace_index: index },
    cause: error,
  });
}

/**
 * A database constraint the schema enforced, as the seed's error: reached only when a writer
 * got past core's validation (a race between processes sharing the database).
 * @param constraint - which constraint failed: the index name or SQLite's message
 * @internal
 */
export function constraintTraceError(constraint: string, cause: unknown): TraceError {
  const code = /trace_blocks[._]result_seq/.test(constraint)
    ? 'DUPLICATE_RESULT_SEQ'
    : /trace_blocks[._]call_id/.test(constraint)
      ? 'DUPLICATE_CALL_ID'
      : 'VALIDATION';
  return new TraceError({
    code,
    message: `the database refused the batch (${constraint}); another writer stored a conflicting block first, or a block breaks a seed 002 rule`,
    details: { constraint },
    cause,
  });
}
