import { chmodSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import {
  type Block,
  type BlockLimits,
  createBlockValidator,
  type IdGenerator,
  TraceError,
} from '@tracewarden/core';
import { generateApiKey, hashSecret, parseApiKey, secretMatches } from '../auth/index.js';
import { ServerError } from '../errors/index.js';
import { migrations } from './migrations.js';
import { isEarlier, summarizeBlocks } from './summarize-blocks.js';

/** An organization: the unit of isolation. Every key belongs to one; `:org` in paths is its name. */
export interface Organization {
  id: number;
  name: string;
  created_at: string;
}

/** An API key as listed (never its secret). */
export interface ApiKeyInfo {
  id: string;
  organization: string;
  name: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** A new API key: `key` is the secret, shown once. */
export interface CreatedApiKey {
  id: string;
  key: string;
  organization: string;
}

/** A trace as listed by `GET /v1/organizations/:org/traces`. */
export interface TraceSummary {
  id: string;
  /** When the collector stored the trace's first block. */
  created_at: string;
  /** When it stored the latest batch. */
  updated_at: string;
  block_count: number;
  /** Text of the earliest user MESSAGE (first 500 characters), or null. */
  first_user_message: string | null;
  /** `error` when a block's `metadata.status` is a status other than `success`, else `ok`. */
  status: 'ok' | 'error';
  error_count: number;
  /** Sum of the blocks' `metadata.cost`, in USD. */
  cost_usd: number;
  /** Sum of the lengths of the blocks' `metadata.violations`. */
  violation_count: number;
}

/** One page of a keyset-paginated list. */
export interface Page<T> {
  items: T[];
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** A dataset (seed 001) as listed. */
export interface DatasetSummary {
  name: string;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  trace_count: number;
}

/** A trace's membership in a dataset: its metadata and annotations there. */
export interface DatasetEntry {
  trace_id: string;
  metadata: Record<string, unknown>;
  annotations: unknown[];
}

/** A trace to store by {@link SqliteStore.importTraces}: its blocks (from core's converters). */
export interface ImportedTrace {
  blocks: readonly unknown[];
  metadata?: Record<string, unknown> | undefined;
  annotations?: unknown[] | undefined;
}

/** Options of {@link SqliteStore.appendBlocks}. */
export interface AppendBlocksOptions {
  blockLimits: Readonly<BlockLimits>;
  maxTraceBlocks: number;
  ids: IdGenerator;
}

/** Result of {@link SqliteStore.appendBlocks}. */
export interface AppendBlocksResult {
  /** Every block of the batch as stored, in the batch's order. */
  blocks: Block[];
  /** How many were new (the others were already stored with the same content). */
  inserted: number;
}

/**
 * `node:sqlite`, loaded on first use rather than at import: the CLI imports this package for
 * `serve`, and on Node 22 before 22.13 the module needs a flag (later 22.x print an
 * experimental warning), which must not touch `tracewarden validate` and the other commands.
 */
function loadSqlite(): typeof import('node:sqlite') {
  return createRequire(import.meta.url)('node:sqlite') as typeof import('node:sqlite');
}

const organizationNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
const datasetNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;

function datasetNotFound(name: string): ServerError {
  return new ServerError({
    code: 'NOT_FOUND',
    message: `dataset ${JSON.stringify(name)} not found in this organization`,
    details: { dataset: name },
  });
}

/** Children after parents: a valid batch in this order always names earlier blocks as parents. */
const rank: Readonly<Record<string, number>> = {
  MESSAGE: 0,
  TOOL_CALL: 1,
  THINK: 2,
  TOOL_RESULT: 3,
};

function rankOf(input: unknown): number {
  if (typeof input !== 'object' || input === null) return -1;
  return rank[(input as { sub_type?: unknown }).sub_type as string] ?? -1;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted, so equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) =>
      isRecord(item)
        ? Object.fromEntries(
            Object.keys(item)
              .sort()
              .map((key) => [key, item[key]]),
          )
        : item,
    ) ?? 'undefined'
  );
}

const comparedFields = [
  'trace_id',
  'block_type',
  'sub_type',
  'payload',
  'parent_block_id',
  'metadata',
  'raw',
  'extra',
  'created_at',
  'updated_at',
] as const;
const absentMeans: Readonly<Record<string, unknown>> = {
  parent_block_id: null,
  metadata: {},
  raw: null,
  extra: {},
};

/**
 * Whether a re-sent block is the stored one: every field it gives equals the stored field
 * (fields it leaves out were filled in by the collector: `created_at`, `updated_at`,
 * `block_type`; the others take their defaults).
 */
function sameContent(input: Record<string, unknown>, stored: Block): boolean {
  for (const field of comparedFields) {
    let value = input[field];
    if (value === undefined) {
      if (!(field in absentMeans)) continue;
      value = absentMeans[field];
    }
    if (canonical(value) !== canonical((stored as unknown as Record<string, unknown>)[field])) {
      return false;
    }
  }
  return true;
}

/** The same trace error, saying which block of the batch it is about (`details.path`). */
function atIndex(error: unknown, index: number): unknown {
  if (!(error instanceof TraceError)) return error;
  return new TraceError({
    code: error.code,
    message: error.message,
    details: { ...error.details, path: String(index) },
    cause: error.cause,
  });
}

/**
 * A database constraint the schema enforces, as the seed's error: reached only when a writer
 * got past core's validation (a race between processes sharing the database).
 */
function constraintError(error: unknown): unknown {
  const message = error instanceof Error ? error.message : '';
  if (!/constraint failed/i.test(message)) return error;
  const code = message.includes('trace_blocks.result_seq')
    ? 'DUPLICATE_RESULT_SEQ'
    : message.includes('trace_blocks.call_id')
      ? 'DUPLICATE_CALL_ID'
      : 'VALIDATION';
  return new TraceError({
    code,
    message: `the database refused the batch (${message}); another writer stored a conflicting block first, or a block breaks a seed 002 rule`,
    details: { constraint: message },
    cause: error,
  });
}

function now(): string {
  return new Date().toISOString();
}

function encodeCursor(seq: number): string {
  return Buffer.from(String(seq)).toString('base64url');
}

/**
 * The position a cursor stands for.
 * @throws {@link ServerError} `INVALID_REQUEST` when it is not a cursor this collector made
 */
function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{1,15}$/.test(text)) {
    throw new ServerError({
      code: 'INVALID_REQUEST',
      message: `cursor ${JSON.stringify(cursor)} is not a cursor from this API; pass next_cursor from the previous page as is`,
      details: { field: 'cursor' },
    });
  }
  return Number(text);
}

/** Rows of `IN (...)` lists per statement, well under SQLite's parameter limit. */
const chunkSize = 500;

/**
 * The collector's storage on embedded SQLite (`node:sqlite`): organizations, API keys, traces
 * and their blocks. Synchronous, so a batch is validated and written inside one `BEGIN
 * IMMEDIATE` transaction with nothing interleaved; WAL mode lets the CLI's admin commands and
 * readers work while a server writes.
 *
 * @example
 * ```ts
 * const store = new SqliteStore('/tmp/tracewarden/tracewarden.db');
 * const { key } = store.createApiKey('default', { createOrganization: true });
 * store.close();
 * ```
 */
export class SqliteStore {
  /** The database file. */
  readonly path: string;
  private readonly database: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

  /**
   * Opens (creating when needed) the database and applies pending migrations.
   * @param path - database file; `:memory:` for a throwaway one
   */
  constructor(path: string) {
    this.path = path;
    this.database = new (loadSqlite().DatabaseSync)(path);
    if (path !== ':memory:') {
      try {
        chmodSync(path, 0o600);
      } catch {
        // not ours to change (a shared file): leave its mode
      }
    }
    this.database.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA foreign_keys = ON;
      PRAGMA busy_timeout = 5000;
    `);
    this.migrate();
  }

  /**
   * Creates the data directory (mode 0700) and opens its `tracewarden.db`.
   * @param dataDir - the data directory
   * @returns the store
   */
  static openDataDir(dataDir: string): SqliteStore {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    return new SqliteStore(join(dataDir, 'tracewarden.db'));
  }

  private migrate(): void {
    this.database.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    const applied = new Set(
      this.database
        .prepare('SELECT version FROM schema_migrations')
        .all()
        .map((row) => row.version as number),
    );
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      this.transaction(() => {
        this.database.exec(migration.sql);
        this.statement(
          'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
        ).run(migration.version, migration.name, now());
      });
    }
  }

  /** The schema version in force. */
  get schemaVersion(): number {
    const row = this.statement('SELECT MAX(version) AS version FROM schema_migrations').get();
    return (row?.version as number | null) ?? 0;
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.database.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private transaction<T>(work: () => T): T {
    this.database.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.database.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.database.isTransaction) this.database.exec('ROLLBACK');
      throw error;
    }
  }

  /** Rows of `sql` (ending in `IN`) for every value, in chunks of {@link chunkSize}. */
  private selectIn(
    sql: string,
    leading: SQLInputValue[],
    values: readonly string[],
  ): Record<string, unknown>[] {
    const rows: Record<string, unknown>[] = [];
    for (let start = 0; start < values.length; start += chunkSize) {
      const chunk = values.slice(start, start + chunkSize);
      const list = chunk.map(() => '?').join(', ');
      rows.push(...this.statement(`${sql} (${list})`).all(...leading, ...chunk));
    }
    return rows;
  }

  /** Whether the database answers (for `/readyz`). */
  ping(): boolean {
    try {
      return this.statement('SELECT 1 AS ok').get()?.ok === 1;
    } catch {
      return false;
    }
  }

  /** The organization with this name. */
  organization(name: string): Organization | undefined {
    const row = this.statement('SELECT id, name, created_at FROM organizations WHERE name = ?').get(
      name,
    );
    return row === undefined ? undefined : { ...(row as unknown as Organization) };
  }

  /** Every organization, by name. */
  organizations(): Organization[] {
    return this.statement('SELECT id, name, created_at FROM organizations ORDER BY name')
      .all()
      .map((row) => ({ ...(row as unknown as Organization) }));
  }

  /**
   * Creates an organization.
   * @param name - letters, digits, `_`, `.`, `-`; up to 63 characters
   * @returns the organization, and whether it was created (false: it existed)
   * @throws {@link ServerError} `INVALID_REQUEST` for a name that cannot be used in paths
   */
  createOrganization(name: string): { organization: Organization; created: boolean } {
    if (!organizationNamePattern.test(name)) {
      throw new ServerError({
        code: 'INVALID_REQUEST',
        message: `organization name ${JSON.stringify(name)} is not allowed; use 1 to 63 letters, digits, '_', '.' or '-', starting with a letter or digit`,
        details: { field: 'organization' },
      });
    }
    const existing = this.organization(name);
    if (existing !== undefined) return { organization: existing, created: false };
    this.statement('INSERT INTO organizations (name, created_at) VALUES (?, ?)').run(name, now());
    return { organization: this.organization(name) as Organization, created: true };
  }

  /**
   * Creates an API key of an organization. Only its hash is stored.
   * @param organization - the organization's name
   * @param options - a label for the key; `createOrganization` to create a missing organization
   * @returns the key (shown once), its id and organization
   * @throws {@link ServerError} `NOT_FOUND` when the organization does not exist and is not to be created
   */
  createApiKey(
    organization: string,
    options: { name?: string | undefined; createOrganization?: boolean | undefined } = {},
  ): CreatedApiKey {
    const found =
      options.createOrganization === true
        ? this.createOrganization(organization).organization
        : this.organization(organization);
    if (found === undefined) {
      throw new ServerError({
        code: 'NOT_FOUND',
        message: `organization ${JSON.stringify(organization)} does not exist; create it first (tracewarden orgs create ${organization})`,
        details: { organization },
      });
    }
    const generated = generateApiKey();
    this.statement(
      'INSERT INTO api_keys (id, organization_id, secret_hash, name, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(generated.id, found.id, hashSecret(generated.secret), options.name ?? null, now());
    return { id: generated.id, key: generated.key, organization: found.name };
  }

  /**
   * Revokes a key: requests with it get 401 from then on.
   * @param id - the key's id (the 16 hex characters after `twk_`), or the whole key
   * @returns false when there is no such key or it was already revoked
   */
  revokeApiKey(id: string): boolean {
    const keyId = parseApiKey(id)?.id ?? id;
    const result = this.statement(
      'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
    ).run(now(), keyId);
    return Number(result.changes) > 0;
  }

  /**
   * Lists keys (never their secrets).
   * @param organization - only this organization's keys
   */
  listApiKeys(organization?: string): ApiKeyInfo[] {
    const select = `SELECT k.id, o.name AS organization, k.name, k.created_at, k.revoked_at
      FROM api_keys k JOIN organizations o ON o.id = k.organization_id`;
    const rows =
      organization === undefined
        ? this.statement(`${select} ORDER BY o.name, k.created_at, k.id`).all()
        : this.statement(`${select} WHERE o.name = ? ORDER BY k.created_at, k.id`).all(
            organization,
          );
    return rows.map((row) => ({ ...(row as unknown as ApiKeyInfo) }));
  }

  /**
   * The organization a presented key belongs to, or undefined for an unknown, malformed or
   * revoked key. The secret's hash is compared in constant time.
   * @param key - the bearer token as presented
   */
  authenticate(key: string): Organization | undefined {
    const parts = parseApiKey(key);
    const row =
      parts === undefined
        ? undefined
        : this.statement(
            `SELECT k.secret_hash, k.revoked_at, o.id, o.name, o.created_at
             FROM api_keys k JOIN organizations o ON o.id = k.organization_id WHERE k.id = ?`,
          ).get(parts.id);
    const matches = secretMatches(
      parts?.secret ?? '',
      row === undefined ? undefined : (row.secret_hash as Uint8Array),
    );
    if (!matches || row === undefined || row.revoked_at !== null) return undefined;
    return { id: row.id as number, name: row.name as string, created_at: row.created_at as string };
  }

  private storedBlocks(organizationId: number, traceId: string, ids: readonly string[]): Block[] {
    return this.selectIn(
      'SELECT body FROM trace_blocks WHERE organization_id = ? AND trace_id = ? AND id IN',
      [organizationId, traceId],
      ids,
    ).map((row) => JSON.parse(row.body as string) as Block);
  }

  /**
   * The stored blocks core's validator must know to judge `fresh`: their parents, calls with
   * the same call ids, results with the same `(call_id, seq)`, and those blocks' own parents.
   */
  private contextOf(
    organizationId: number,
    traceId: string,
    fresh: readonly Record<string, unknown>[],
  ): Block[] {
    const freshIds = new Set(fresh.map((input) => input.id));
    const parentIds = new Set<string>();
    const callIds = new Set<string>();
    const resultKeys = new Set<string>();
    const resultCallIds = new Set<string>();
    for (const input of fresh) {
      const parent = input.parent_block_id;
      if (typeof parent === 'string' && !freshIds.has(parent)) parentIds.add(parent);
      const payload = isRecord(input.payload) ? input.payload : {};
      if (typeof payload.call_id !== 'string') continue;
      if (input.sub_type === 'TOOL_CALL') callIds.add(payload.call_id);
      if (input.sub_type === 'TOOL_RESULT' && typeof payload.seq === 'number') {
        resultCallIds.add(payload.call_id);
        resultKeys.add(`${payload.call_id}\u0000${payload.seq}`);
      }
    }
    const found = new Map<string, Block>();
    const add = (block: Block): void => {
      found.set(block.id, block);
    };
    this.storedBlocks(organizationId, traceId, [...parentIds]).forEach(add);
    this.selectIn(
      `SELECT body FROM trace_blocks WHERE organization_id = ? AND trace_id = ?
       AND sub_type = 'TOOL_CALL' AND call_id IN`,
      [organizationId, traceId],
      [...callIds],
    ).forEach((row) => {
      add(JSON.parse(row.body as string) as Block);
    });
    this.selectIn(
      `SELECT body FROM trace_blocks WHERE organization_id = ? AND trace_id = ?
       AND sub_type = 'TOOL_RESULT' AND result_seq IS NOT NULL AND call_id IN`,
      [organizationId, traceId],
      [...resultCallIds],
    ).forEach((row) => {
      const block = JSON.parse(row.body as string) as Block;
      const payload = block.payload as { call_id: string; seq?: number };
      if (resultKeys.has(`${payload.call_id}\u0000${payload.seq}`)) add(block);
    });
    // parents of what was found, then theirs (a result's call's message): two levels at most
    for (let level = 0; level < 2; level++) {
      const missing = new Set<string>();
      for (const block of found.values()) {
        const parent = block.parent_block_id;
        if (parent !== null && !found.has(parent)) missing.add(parent);
      }
      if (missing.size === 0) break;
      this.storedBlocks(organizationId, traceId, [...missing]).forEach(add);
    }
    return [...found.values()].sort((a, b) => rankOf(a) - rankOf(b));
  }

  /**
   * Validates a batch with core's validator against the trace's stored blocks and stores it,
   * all or nothing, in one transaction. Blocks without an `id` get a `tb_...` id, blocks without
   * `trace_id` the trace's; core fills in `created_at` / `updated_at` where absent. A block whose
   * id is already stored with the same content is left as is (a retried batch is a no-op); with
   * other content the batch fails.
   *
   * @param organizationId - the organization's id
   * @param traceId - the trace
   * @param inputs - the batch as received
   * @param options - block limits, the trace block limit, the id generator
   * @returns the blocks as stored and how many were new
   * @throws core's `TraceError` (with `details.path`, the block's index) for any rule broken
   */
  appendBlocks(
    organizationId: number,
    traceId: string,
    inputs: readonly unknown[],
    options: AppendBlocksOptions,
  ): AppendBlocksResult {
    try {
      return this.transaction(() =>
        this.appendInTransaction(organizationId, traceId, inputs, options),
      );
    } catch (error) {
      throw constraintError(error);
    }
  }

  private appendInTransaction(
    organizationId: number,
    traceId: string,
    inputs: readonly unknown[],
    options: AppendBlocksOptions,
  ): AppendBlocksResult {
    const results: Block[] = new Array(inputs.length);
    const prepared = inputs.map((input) => {
      if (!isRecord(input)) return { input, clientId: undefined };
      const copy: Record<string, unknown> = { ...input };
      const clientId = typeof copy.id === 'string' && copy.id !== '' ? copy.id : undefined;
      if (copy.id === undefined) copy.id = options.ids.blockId();
      if (copy.trace_id === undefined) copy.trace_id = traceId;
      return { input: copy, clientId };
    });
    const clientIds = [
      ...new Set(prepared.flatMap((item) => (item.clientId === undefined ? [] : [item.clientId]))),
    ];
    const stored = new Map(
      this.storedBlocks(organizationId, traceId, clientIds).map((block) => [block.id, block]),
    );
    const fresh: { index: number; input: unknown }[] = [];
    prepared.forEach((item, index) => {
      const existing = item.clientId === undefined ? undefined : stored.get(item.clientId);
      if (existing === undefined) {
        fresh.push({ index, input: item.input });
      } else if (sameContent(item.input as Record<string, unknown>, existing)) {
        results[index] = existing;
      } else {
        throw new TraceError({
          code: 'VALIDATION',
          message: `block ${existing.id} is already stored in trace ${traceId} with other content; blocks are immutable: re-send it unchanged, or give the new block its own id`,
          details: {
            field: 'id',
            block_id: existing.id,
            trace_id: traceId,
            sub_type: existing.sub_type,
            path: String(index),
          },
        });
      }
    });
    if (fresh.length === 0) return { blocks: results, inserted: 0 };

    const trace = this.statement(
      'SELECT block_count, first_user_message_at, first_user_message_block FROM traces WHERE organization_id = ? AND id = ?',
    ).get(organizationId, traceId);
    const count = (trace?.block_count as number | undefined) ?? 0;
    if (count + fresh.length > options.maxTraceBlocks) {
      throw new TraceError({
        code: 'PAYLOAD_TOO_LARGE',
        message: `trace ${traceId} would hold ${count + fresh.length} blocks, over the limit of ${options.maxTraceBlocks} per trace (TRACEWARDEN_MAX_TRACE_BLOCKS); start a new trace`,
        details: {
          field: 'blocks',
          trace_id: traceId,
          limit_blocks: options.maxTraceBlocks,
          actual_blocks: count + fresh.length,
        },
      });
    }

    const validator = createBlockValidator({ traceId, limits: options.blockLimits });
    const freshInputs = fresh.flatMap((item) => (isRecord(item.input) ? [item.input] : []));
    for (const block of this.contextOf(organizationId, traceId, freshInputs)) {
      try {
        validator.accept(block);
      } catch (cause) {
        throw new ServerError({
          code: 'INTERNAL',
          message: `stored block ${block.id} of trace ${traceId} no longer passes validation (were the LIMIT_* byte limits lowered?); raise the limits back to add blocks to this trace`,
          cause,
        });
      }
    }
    const ordered = fresh
      .map((item, position) => ({ ...item, position, rank: rankOf(item.input) }))
      .sort((a, b) => a.rank - b.rank || a.position - b.position);
    const accepted: Block[] = [];
    for (const item of ordered) {
      let block: Block;
      try {
        block = validator.accept(item.input);
      } catch (error) {
        throw atIndex(error, item.index);
      }
      results[item.index] = block;
      accepted.push(block);
    }

    const time = now();
    this.statement(
      `INSERT INTO traces (organization_id, id, created_at, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (organization_id, id) DO NOTHING`,
    ).run(organizationId, traceId, time, time);
    const insert = this.statement(
      `INSERT INTO trace_blocks (organization_id, trace_id, id, block_type, sub_type,
         parent_block_id, parent_sub_type, call_id, result_seq, created_at, updated_at, body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const block of accepted) {
      const payload = block.payload as { call_id?: unknown; seq?: unknown };
      const parent = block.parent_block_id;
      insert.run(
        organizationId,
        traceId,
        block.id,
        block.block_type,
        block.sub_type,
        parent,
        parent === null ? null : (validator.get(parent)?.sub_type ?? null),
        typeof payload.call_id === 'string' ? payload.call_id : null,
        block.sub_type === 'TOOL_RESULT' && typeof payload.seq === 'number' ? payload.seq : null,
        block.created_at,
        block.updated_at,
        JSON.stringify(block),
      );
    }
    const summary = summarizeBlocks(accepted);
    this.statement(
      `UPDATE traces SET block_count = block_count + ?, error_count = error_count + ?,
         cost_micro_usd = cost_micro_usd + ?, violation_count = violation_count + ?, updated_at = ?
       WHERE organization_id = ? AND id = ?`,
    ).run(
      summary.count,
      summary.errors,
      summary.costMicroUsd,
      summary.violations,
      time,
      organizationId,
      traceId,
    );
    const first = summary.firstUserMessage;
    const currentAt = trace?.first_user_message_at as string | null | undefined;
    if (
      first !== undefined &&
      (currentAt === null ||
        currentAt === undefined ||
        isEarlier(first, {
          createdAt: currentAt,
          blockId: trace?.first_user_message_block as string,
        }))
    ) {
      this.statement(
        `UPDATE traces SET first_user_message = ?, first_user_message_at = ?, first_user_message_block = ?
         WHERE organization_id = ? AND id = ?`,
      ).run(first.text, first.createdAt, first.blockId, organizationId, traceId);
    }
    return { blocks: results, inserted: accepted.length };
  }

  /**
   * One page of a trace's blocks in the order they were stored.
   * @returns undefined when the trace does not exist
   * @throws {@link ServerError} `INVALID_REQUEST` for a cursor this store did not make
   */
  listBlocks(
    organizationId: number,
    traceId: string,
    page: { cursor?: string | undefined; limit: number },
  ): Page<Block> | undefined {
    const after = decodeCursor(page.cursor) ?? 0;
    if (this.trace(organizationId, traceId) === undefined) return undefined;
    const rows = this.statement(
      `SELECT seq, body FROM trace_blocks WHERE organization_id = ? AND trace_id = ? AND seq > ?
       ORDER BY seq LIMIT ?`,
    ).all(organizationId, traceId, after, page.limit + 1);
    const more = rows.length > page.limit;
    const kept = more ? rows.slice(0, page.limit) : rows;
    return {
      items: kept.map((row) => JSON.parse(row.body as string) as Block),
      next_cursor: more ? encodeCursor(kept[kept.length - 1]?.seq as number) : null,
    };
  }

  /**
   * Every block of a trace (for the stitched view).
   * @returns undefined when the trace does not exist
   */
  traceBlocks(organizationId: number, traceId: string): Block[] | undefined {
    if (this.trace(organizationId, traceId) === undefined) return undefined;
    return this.statement(
      'SELECT body FROM trace_blocks WHERE organization_id = ? AND trace_id = ? ORDER BY seq',
    )
      .all(organizationId, traceId)
      .map((row) => JSON.parse(row.body as string) as Block);
  }

  private static summaryOf(row: Record<string, unknown>): TraceSummary {
    const errors = row.error_count as number;
    return {
      id: row.id as string,
      created_at: row.created_at as string,
      updated_at: row.updated_at as string,
      block_count: row.block_count as number,
      first_user_message: (row.first_user_message as string | null) ?? null,
      status: errors > 0 ? 'error' : 'ok',
      error_count: errors,
      cost_usd: (row.cost_micro_usd as number) / 1e6,
      violation_count: row.violation_count as number,
    };
  }

  /** A trace's summary, or undefined. */
  trace(organizationId: number, traceId: string): TraceSummary | undefined {
    const row = this.statement('SELECT * FROM traces WHERE organization_id = ? AND id = ?').get(
      organizationId,
      traceId,
    );
    return row === undefined ? undefined : SqliteStore.summaryOf(row);
  }

  /**
   * One page of an organization's traces, newest first.
   * @throws {@link ServerError} `INVALID_REQUEST` for a cursor this store did not make
   */
  listTraces(
    organizationId: number,
    page: { cursor?: string | undefined; limit: number },
  ): Page<TraceSummary> {
    const before = decodeCursor(page.cursor) ?? Number.MAX_SAFE_INTEGER;
    const rows = this.statement(
      'SELECT * FROM traces WHERE organization_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
    ).all(organizationId, before, page.limit + 1);
    const more = rows.length > page.limit;
    const kept = more ? rows.slice(0, page.limit) : rows;
    return {
      items: kept.map((row) => SqliteStore.summaryOf(row)),
      next_cursor: more ? encodeCursor(kept[kept.length - 1]?.seq as number) : null,
    };
  }

  /**
   * Deletes a trace and all its blocks.
   * @returns false when there was no such trace
   */
  deleteTrace(organizationId: number, traceId: string): boolean {
    return this.transaction(() => {
      this.statement('DELETE FROM trace_blocks WHERE organization_id = ? AND trace_id = ?').run(
        organizationId,
        traceId,
      );
      const result = this.statement('DELETE FROM traces WHERE organization_id = ? AND id = ?').run(
        organizationId,
        traceId,
      );
      return Number(result.changes) > 0;
    });
  }

  private datasetRow(organizationId: number, name: string): Record<string, unknown> | undefined {
    return this.statement(
      `SELECT d.seq, d.name, d.metadata, d.created_at, d.updated_at,
         (SELECT COUNT(*) FROM dataset_traces t WHERE t.dataset_seq = d.seq) AS trace_count
       FROM datasets d WHERE d.organization_id = ? AND d.name = ?`,
    ).get(organizationId, name);
  }

  private static datasetOf(row: Record<string, unknown>): DatasetSummary {
    return {
      name: row.name as string,
      metadata: JSON.parse(row.metadata as string) as Record<string, unknown>,
      created_at: row.created_at as string,
      updated_at: row.updated_at as string,
      trace_count: row.trace_count as number,
    };
  }

  /** A dataset's summary, or undefined. */
  dataset(organizationId: number, name: string): DatasetSummary | undefined {
    const row = this.datasetRow(organizationId, name);
    return row === undefined ? undefined : SqliteStore.datasetOf(row);
  }

  /**
   * Creates a dataset.
   * @throws {@link ServerError} `CONFLICT` when the name is taken, `INVALID_REQUEST` for a bad name
   */
  createDataset(
    organizationId: number,
    name: string,
    metadata: Record<string, unknown> = {},
  ): DatasetSummary {
    if (!datasetNamePattern.test(name)) {
      throw new ServerError({
        code: 'INVALID_REQUEST',
        message: `dataset name ${JSON.stringify(name)} is not allowed; use 1 to 200 letters, digits, '_', '.' or '-', starting with a letter or digit`,
        details: { field: 'name' },
      });
    }
    if (this.datasetRow(organizationId, name) !== undefined) {
      throw new ServerError({
        code: 'CONFLICT',
        message: `dataset ${JSON.stringify(name)} already exists; add traces to it, or pick another name`,
        details: { dataset: name },
      });
    }
    const time = now();
    this.statement(
      'INSERT INTO datasets (organization_id, name, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    ).run(organizationId, name, JSON.stringify(metadata), time, time);
    return this.dataset(organizationId, name) as DatasetSummary;
  }

  /** One page of an organization's datasets, newest first. */
  listDatasets(
    organizationId: number,
    page: { cursor?: string | undefined; limit: number },
  ): Page<DatasetSummary> {
    const before = decodeCursor(page.cursor) ?? Number.MAX_SAFE_INTEGER;
    const rows = this.statement(
      `SELECT d.seq, d.name, d.metadata, d.created_at, d.updated_at,
         (SELECT COUNT(*) FROM dataset_traces t WHERE t.dataset_seq = d.seq) AS trace_count
       FROM datasets d WHERE d.organization_id = ? AND d.seq < ? ORDER BY d.seq DESC LIMIT ?`,
    ).all(organizationId, before, page.limit + 1);
    const more = rows.length > page.limit;
    const kept = more ? rows.slice(0, page.limit) : rows;
    return {
      items: kept.map((row) => SqliteStore.datasetOf(row)),
      next_cursor: more ? encodeCursor(kept[kept.length - 1]?.seq as number) : null,
    };
  }

  /**
   * A dataset's traces in order, with their metadata and annotations.
   * @returns undefined when the dataset does not exist
   */
  datasetEntries(organizationId: number, name: string): DatasetEntry[] | undefined {
    const row = this.datasetRow(organizationId, name);
    if (row === undefined) return undefined;
    return this.statement(
      'SELECT trace_id, metadata, annotations FROM dataset_traces WHERE dataset_seq = ? ORDER BY position',
    )
      .all(row.seq as number)
      .map((entry) => ({
        trace_id: entry.trace_id as string,
        metadata: JSON.parse(entry.metadata as string) as Record<string, unknown>,
        annotations: JSON.parse(entry.annotations as string) as unknown[],
      }));
  }

  private addEntries(
    organizationId: number,
    datasetSeq: number,
    entries: readonly {
      trace_id: string;
      metadata?: Record<string, unknown> | undefined;
      annotations?: unknown[] | undefined;
    }[],
  ): number {
    const last = this.statement(
      'SELECT COALESCE(MAX(position), -1) AS position FROM dataset_traces WHERE dataset_seq = ?',
    ).get(datasetSeq);
    let position = (last?.position as number) + 1;
    let added = 0;
    const insert = this.statement(
      `INSERT INTO dataset_traces (dataset_seq, organization_id, trace_id, position, metadata, annotations)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (dataset_seq, trace_id) DO NOTHING`,
    );
    for (const entry of entries) {
      if (this.trace(organizationId, entry.trace_id) === undefined) {
        throw new ServerError({
          code: 'NOT_FOUND',
          message: `trace ${JSON.stringify(entry.trace_id)} not found in this organization; store its blocks first`,
          details: { trace_id: entry.trace_id },
        });
      }
      const result = insert.run(
        datasetSeq,
        organizationId,
        entry.trace_id,
        position,
        JSON.stringify(entry.metadata ?? {}),
        JSON.stringify(entry.annotations ?? []),
      );
      if (Number(result.changes) > 0) {
        position++;
        added++;
      }
    }
    this.statement('UPDATE datasets SET updated_at = ? WHERE seq = ?').run(now(), datasetSeq);
    return added;
  }

  /**
   * Adds stored traces to a dataset, all or none; a trace already in it is left as is.
   * @returns how many were added
   * @throws {@link ServerError} `NOT_FOUND` for a missing dataset or trace
   */
  addDatasetTraces(
    organizationId: number,
    name: string,
    entries: readonly { trace_id: string; metadata?: Record<string, unknown> | undefined }[],
  ): number {
    return this.transaction(() => {
      const row = this.datasetRow(organizationId, name);
      if (row === undefined) throw datasetNotFound(name);
      return this.addEntries(organizationId, row.seq as number, entries);
    });
  }

  /**
   * Deletes a dataset (its traces stay).
   * @returns false when there was no such dataset
   */
  deleteDataset(organizationId: number, name: string): boolean {
    const result = this.statement(
      'DELETE FROM datasets WHERE organization_id = ? AND name = ?',
    ).run(organizationId, name);
    return Number(result.changes) > 0;
  }

  /**
   * Stores whole traces (each under a new trace id) and, when `dataset` is given, adds them to
   * it (creating it with `metadata` when missing), all in one transaction: an import or a push
   * is stored entirely or not at all.
   * @returns the new trace ids, in order
   * @throws core's `TraceError` with `details.trace_index` for a trace that breaks a rule
   */
  importTraces(
    organizationId: number,
    traces: readonly ImportedTrace[],
    options: AppendBlocksOptions & {
      dataset?: { name: string; metadata?: Record<string, unknown> | undefined } | undefined;
    },
  ): string[] {
    try {
      return this.transaction(() => {
        const ids: string[] = [];
        traces.forEach((trace, index) => {
          const traceId = options.ids.traceId();
          try {
            // the converters' blocks carry a trace id of their own: store them under the new one
            const blocks = trace.blocks.map((block) =>
              isRecord(block) ? { ...block, trace_id: traceId } : block,
            );
            this.appendInTransaction(organizationId, traceId, blocks, options);
          } catch (error) {
            if (!(error instanceof TraceError)) throw error;
            throw new TraceError({
              code: error.code,
              message: `trace ${index}: ${error.message}`,
              details: { ...error.details, trace_index: index },
              cause: error,
            });
          }
          ids.push(traceId);
        });
        const dataset = options.dataset;
        if (dataset !== undefined) {
          if (this.datasetRow(organizationId, dataset.name) === undefined) {
            this.createDataset(organizationId, dataset.name, dataset.metadata);
          }
          const row = this.datasetRow(organizationId, dataset.name);
          this.addEntries(
            organizationId,
            row?.seq as number,
            traces.map((trace, index) => ({
              trace_id: ids[index] as string,
              metadata: trace.metadata,
              annotations: trace.annotations,
            })),
          );
        }
        return ids;
      });
    } catch (error) {
      throw constraintError(error);
    }
  }

  /**
   * Runs raw SQL (tests and maintenance).
   * @internal
   */
  exec(sql: string, ...parameters: SQLInputValue[]): void {
    this.database.prepare(sql).run(...parameters);
  }

  /** Closes the database. */
  close(): void {
    if (this.database.isOpen) this.database.close();
  }
}
