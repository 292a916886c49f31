import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Block } from '@tracewarden/core';
import { generateApiKey, hashSecret, parseApiKey, secretMatches } from '../auth/index.js';
import {
  type AppendPlan,
  type AppendQuery,
  isRecord,
  parseBody,
  planAppend,
  runPlan,
} from './append-plan.js';
import { SqliteDatasets } from './sqlite-datasets.js';
import type {
  ApiKeyInfo,
  AppendBlocksOptions,
  AppendBlocksResult,
  CollectorStore,
  CreatedApiKey,
  ImportedTrace,
  ImportTracesOptions,
  Organization,
  Page,
  TraceSummary,
} from './store.js';
import {
  atTraceIndex,
  checkOrganizationName,
  constraintTraceError,
  decodeCursor,
  now,
  organizationNotFound,
  pageOf,
  summaryOf,
} from './store-helpers.js';
import { maxTraceCostMicroUsd } from './summarize-blocks.js';

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
export class SqliteStore extends SqliteDatasets implements CollectorStore {
  readonly kind = 'sqlite';

  /**
   * Creates the data directory (mode 0700) and opens its `tracewarden.db`.
   * @param dataDir - the data directory
   * @returns the store
   */
  static openDataDir(dataDir: string): SqliteStore {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    return new SqliteStore(join(dataDir, 'tracewarden.db'));
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
    checkOrganizationName(name);
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
    if (found === undefined) throw organizationNotFound(organization);
    const generated = generateApiKey();
    this.statement(
      'INSERT INTO api_keys (id, organization_id, secret_hash, name, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(generated.id, found.id, hashSecret(generated.secret), options.name ?? null, now());
    return { id: generated.id, key: generated.key, organization: found.name };
  }

  /**
   * On an empty database only: creates the organization and one key, in one transaction.
   * @param organization - the organization to create
   * @param name - the key's label
   * @returns the key, or undefined when the database already has an organization
   */
  createInitialApiKey(organization: string, name: string): CreatedApiKey | undefined {
    return this.transaction(() =>
      this.organizations().length > 0
        ? undefined
        : this.createApiKey(organization, { name, createOrganization: true }),
    );
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
    ).map((row) => parseBody(row.body));
  }

  /** Answers one of {@link planAppend}'s queries. */
  private answer(organizationId: number, traceId: string, query: AppendQuery): unknown {
    if (query.kind === 'blocks') return this.storedBlocks(organizationId, traceId, query.ids);
    if (query.kind === 'trace') {
      return this.statement(
        'SELECT block_count, first_user_message_at, first_user_message_block FROM traces WHERE organization_id = ? AND id = ?',
      ).get(organizationId, traceId);
    }
    const found = this.storedBlocks(organizationId, traceId, query.parentIds);
    for (const row of this.selectIn(
      `SELECT body FROM trace_blocks WHERE organization_id = ? AND trace_id = ?
       AND sub_type = 'TOOL_CALL' AND call_id IN`,
      [organizationId, traceId],
      query.callIds,
    )) {
      found.push(parseBody(row.body));
    }
    for (const row of this.selectIn(
      `SELECT body FROM trace_blocks WHERE organization_id = ? AND trace_id = ?
       AND sub_type = 'TOOL_RESULT' AND result_seq IS NOT NULL AND call_id IN`,
      [organizationId, traceId],
      query.resultCallIds,
    )) {
      found.push(parseBody(row.body));
    }
    return found;
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
      throw SqliteStore.constraintError(error);
    }
  }

  /** A constraint SQLite enforced, as the seed's error (`DUPLICATE_CALL_ID`, ...). */
  private static constraintError(error: unknown): unknown {
    const message = error instanceof Error ? error.message : '';
    return /constraint failed/i.test(message) ? constraintTraceError(message, error) : error;
  }

  private appendInTransaction(
    organizationId: number,
    traceId: string,
    inputs: readonly unknown[],
    options: AppendBlocksOptions,
  ): AppendBlocksResult {
    const plan: AppendPlan = runPlan(planAppend(traceId, inputs, options), (query) =>
      this.answer(organizationId, traceId, query),
    );
    if (plan.rows.length > 0) this.write(organizationId, traceId, plan);
    return { blocks: plan.results, inserted: plan.rows.length, blocksJson: plan.resultsJson };
  }

  private write(organizationId: number, traceId: string, plan: AppendPlan): void {
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
    for (const row of plan.rows) {
      insert.run(
        organizationId,
        traceId,
        row.id,
        row.block_type,
        row.sub_type,
        row.parent_block_id,
        row.parent_sub_type,
        row.call_id,
        row.result_seq,
        row.created_at,
        row.updated_at,
        row.body,
      );
    }
    const { summary, firstUserMessage: first } = plan;
    this.statement(
      `UPDATE traces SET block_count = block_count + ?, error_count = error_count + ?,
         cost_micro_usd = min(cost_micro_usd + ?, ${maxTraceCostMicroUsd}), violation_count = violation_count + ?, updated_at = ?
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
    if (first !== undefined) {
      this.statement(
        `UPDATE traces SET first_user_message = ?, first_user_message_at = ?, first_user_message_block = ?
         WHERE organization_id = ? AND id = ?`,
      ).run(first.text, first.createdAt, first.blockId, organizationId, traceId);
    }
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
    const scope = { list: 'blocks', organizationId, traceId } as const;
    const after = decodeCursor(page.cursor, scope) ?? 0;
    if (this.trace(organizationId, traceId) === undefined) return undefined;
    const rows = this.statement(
      `SELECT seq, body FROM trace_blocks WHERE organization_id = ? AND trace_id = ? AND seq > ?
       ORDER BY seq LIMIT ?`,
    ).all(organizationId, traceId, after, page.limit + 1);
    return pageOf(rows, page.limit, (row) => parseBody(row.body), scope);
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
      .map((row) => parseBody(row.body));
  }

  /** A trace's summary, or undefined. */
  trace(organizationId: number, traceId: string): TraceSummary | undefined {
    const row = this.statement('SELECT * FROM traces WHERE organization_id = ? AND id = ?').get(
      organizationId,
      traceId,
    );
    return row === undefined ? undefined : summaryOf(row);
  }

  /**
   * One page of an organization's traces, newest first.
   * @throws {@link ServerError} `INVALID_REQUEST` for a cursor this store did not make
   */
  listTraces(
    organizationId: number,
    page: { cursor?: string | undefined; limit: number },
  ): Page<TraceSummary> {
    const scope = { list: 'traces', organizationId } as const;
    const before = decodeCursor(page.cursor, scope) ?? Number.MAX_SAFE_INTEGER;
    const rows = this.statement(
      'SELECT * FROM traces WHERE organization_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
    ).all(organizationId, before, page.limit + 1);
    return pageOf(rows, page.limit, summaryOf, scope);
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
    options: ImportTracesOptions,
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
            throw atTraceIndex(error, index);
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
      throw SqliteStore.constraintError(error);
    }
  }
}
