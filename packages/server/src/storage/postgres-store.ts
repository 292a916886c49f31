import type { Block } from '@tracewarden/core';
import { generateApiKey, hashSecret, parseApiKey, secretMatches } from '../auth/index.js';
import { ServerError } from '../errors/index.js';
import {
  type AppendPlan,
  type AppendQuery,
  isRecord,
  parseBody,
  planAppend,
  runPlanAsync,
} from './append-plan.js';
import { type ConnectionPool, mapError, type Queryable } from './postgres-database.js';
import { PostgresDatasets } from './postgres-datasets.js';
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
  checkDatasetName,
  checkOrganizationName,
  decodeCursor,
  now,
  organizationNotFound,
  pageOf,
  summaryOf,
} from './store-helpers.js';
import { maxTraceCostMicroUsd } from './summarize-blocks.js';

/** Options of {@link PostgresStore.open}. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (libpq-style parameters allowed). */
  connectionString: string;
  /** Connections in the pool. @default 10 */
  maxConnections?: number | undefined;
}

/** Advisory lock key held while creating the first organization and key. */
const initialKeyLock = 7_319_002;

/**
 * The collector's storage on Postgres (driver `pg`): the same schema, answers and invariants
 * as {@link SqliteStore}, for several stateless server processes sharing one database. Each
 * batch runs in one READ COMMITTED transaction that first takes a transaction-scoped advisory
 * lock on its `(organization, trace)`: writers to one trace queue up, so the reads core's
 * validator judges a batch by are still true at commit; writers to other traces run in
 * parallel. The unique indexes, foreign keys and CHECKs stay the last word.
 *
 * @example
 * ```ts
 * const store = await PostgresStore.open({ connectionString: 'postgres://localhost/tracewarden' });
 * const { key } = await store.createApiKey('default', { createOrganization: true });
 * await store.close();
 * ```
 */
export class PostgresStore extends PostgresDatasets implements CollectorStore {
  readonly kind = 'postgres';

  /**
   * Connects (`pg` is loaded on first use) and applies pending migrations.
   * @param options - the connection string and pool size
   * @returns the store
   * @throws {@link ServerError} `SERVICE_UNAVAILABLE` when the database cannot be reached
   */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const { Pool } = await import('pg');
    const pool = new Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 10_000,
    });
    // an idle client's connection dropped (database restarted): the pool replaces it
    pool.on('error', () => {});
    const store = new PostgresStore(pool as unknown as ConnectionPool);
    try {
      await store.migrate();
    } catch (error) {
      await pool.end();
      throw mapError(error);
    }
    return store;
  }

  /** The organization with this name. */
  async organization(name: string, on?: Queryable): Promise<Organization | undefined> {
    const { rows } = await this.query<Organization>(
      'SELECT id, name, created_at FROM organizations WHERE name = $1',
      [name],
      on,
    );
    return rows[0];
  }

  /** Every organization, by name. */
  async organizations(): Promise<Organization[]> {
    return (
      await this.query<Organization>('SELECT id, name, created_at FROM organizations ORDER BY name')
    ).rows;
  }

  /** Creates an organization (see `SqliteStore.createOrganization`). */
  async createOrganization(
    name: string,
    on?: Queryable,
  ): Promise<{ organization: Organization; created: boolean }> {
    checkOrganizationName(name);
    const { rows } = await this.query<Organization>(
      `INSERT INTO organizations (name, created_at) VALUES ($1, $2)
       ON CONFLICT (name) DO NOTHING RETURNING id, name, created_at`,
      [name, now()],
      on,
    );
    if (rows[0] !== undefined) return { organization: rows[0], created: true };
    return { organization: (await this.organization(name, on)) as Organization, created: false };
  }

  /** Creates an API key of an organization (see `SqliteStore.createApiKey`). */
  async createApiKey(
    organization: string,
    options: { name?: string | undefined; createOrganization?: boolean | undefined } = {},
    on?: Queryable,
  ): Promise<CreatedApiKey> {
    const found =
      options.createOrganization === true
        ? (await this.createOrganization(organization, on)).organization
        : await this.organization(organization, on);
    if (found === undefined) throw organizationNotFound(organization);
    const generated = generateApiKey();
    await this.query(
      'INSERT INTO api_keys (id, organization_id, secret_hash, name, created_at) VALUES ($1, $2, $3, $4, $5)',
      [
        generated.id,
        found.id,
        Buffer.from(hashSecret(generated.secret)),
        options.name ?? null,
        now(),
      ],
      on,
    );
    return { id: generated.id, key: generated.key, organization: found.name };
  }

  /** On an empty database only: the organization and one key, under a lock (see the interface). */
  async createInitialApiKey(
    organization: string,
    name: string,
  ): Promise<CreatedApiKey | undefined> {
    return this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [initialKeyLock]);
      const { rows } = await client.query('SELECT 1 FROM organizations LIMIT 1');
      if (rows.length > 0) return undefined;
      return this.createApiKey(organization, { name, createOrganization: true }, client);
    });
  }

  /** Revokes a key (see `SqliteStore.revokeApiKey`). */
  async revokeApiKey(id: string): Promise<boolean> {
    const keyId = parseApiKey(id)?.id ?? id;
    const result = await this.query(
      'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
      [now(), keyId],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Lists keys, never their secrets. */
  async listApiKeys(organization?: string): Promise<ApiKeyInfo[]> {
    const select = `SELECT k.id, o.name AS organization, k.name, k.created_at, k.revoked_at
      FROM api_keys k JOIN organizations o ON o.id = k.organization_id`;
    const result =
      organization === undefined
        ? await this.query<ApiKeyInfo>(`${select} ORDER BY o.name, k.created_at, k.id`)
        : await this.query<ApiKeyInfo>(`${select} WHERE o.name = $1 ORDER BY k.created_at, k.id`, [
            organization,
          ]);
    return result.rows;
  }

  /** The organization of a presented key (hash compared in constant time). */
  async authenticate(key: string): Promise<Organization | undefined> {
    const parts = parseApiKey(key);
    const row =
      parts === undefined
        ? undefined
        : (
            await this.query(
              `SELECT k.secret_hash, k.revoked_at, o.id, o.name, o.created_at
               FROM api_keys k JOIN organizations o ON o.id = k.organization_id WHERE k.id = $1`,
              [parts.id],
            )
          ).rows[0];
    const matches = secretMatches(
      parts?.secret ?? '',
      row === undefined ? undefined : (row.secret_hash as Uint8Array),
    );
    if (!matches || row === undefined || row.revoked_at !== null) return undefined;
    return { id: row.id as number, name: row.name as string, created_at: row.created_at as string };
  }

  /** Answers one of {@link planAppend}'s queries inside the batch's transaction. */
  private async answer(
    client: Queryable,
    organizationId: number,
    traceId: string,
    query: AppendQuery,
  ): Promise<unknown> {
    if (query.kind === 'trace') {
      return (
        await client.query(
          'SELECT block_count, first_user_message_at, first_user_message_block FROM traces WHERE organization_id = $1 AND id = $2',
          [organizationId, traceId],
        )
      ).rows[0];
    }
    const { rows } =
      query.kind === 'blocks'
        ? await client.query<{ body: string }>(
            'SELECT body FROM trace_blocks WHERE organization_id = $1 AND trace_id = $2 AND id = ANY($3::text[])',
            [organizationId, traceId, query.ids],
          )
        : await client.query<{ body: string }>(
            `SELECT body FROM trace_blocks WHERE organization_id = $1 AND trace_id = $2 AND (
               id = ANY($3::text[])
               OR (sub_type = 'TOOL_CALL' AND call_id = ANY($4::text[]))
               OR (sub_type = 'TOOL_RESULT' AND result_seq IS NOT NULL AND call_id = ANY($5::text[])))`,
            [organizationId, traceId, query.parentIds, query.callIds, query.resultCallIds],
          );
    return rows.map((row) => parseBody(row.body));
  }

  /**
   * Validates a batch with core's validator and stores it, all or nothing, in one transaction
   * holding the trace's advisory lock (see `SqliteStore.appendBlocks` for the rules).
   * @throws core's `TraceError` (with `details.path`) for any rule broken
   */
  async appendBlocks(
    organizationId: number,
    traceId: string,
    inputs: readonly unknown[],
    options: AppendBlocksOptions,
  ): Promise<AppendBlocksResult> {
    return this.transaction((client) =>
      this.appendInTransaction(client, organizationId, traceId, inputs, options),
    );
  }

  private async appendInTransaction(
    client: Queryable,
    organizationId: number,
    traceId: string,
    inputs: readonly unknown[],
    options: AppendBlocksOptions,
  ): Promise<AppendBlocksResult> {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [organizationId, traceId]);
    const plan = await runPlanAsync(planAppend(traceId, inputs, options), (query) =>
      this.answer(client, organizationId, traceId, query),
    );
    if (plan.rows.length > 0) await this.write(client, organizationId, traceId, plan);
    return { blocks: plan.results, inserted: plan.rows.length, blocksJson: plan.resultsJson };
  }

  private async write(
    client: Queryable,
    organizationId: number,
    traceId: string,
    plan: AppendPlan,
  ): Promise<void> {
    const columns: unknown[][] = [[], [], [], [], [], [], [], [], [], []];
    for (const row of plan.rows) {
      const values = [
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
      ];
      for (let index = 0; index < values.length; index++) columns[index]?.push(values[index]);
    }
    const { summary, firstUserMessage: first } = plan;
    // one statement, one round trip: the trace's row inserted or updated (its foreign key is
    // checked at the statement's end, when both exist), then the blocks in the plan's order
    await client.query(
      `WITH trace AS (
         INSERT INTO traces AS t (organization_id, id, created_at, updated_at, block_count,
           error_count, cost_micro_usd, violation_count, first_user_message,
           first_user_message_at, first_user_message_block)
         VALUES ($1, $2, $13, $13, $14, $15, $16, $17, $19, $20, $21)
         ON CONFLICT (organization_id, id) DO UPDATE SET
           block_count = t.block_count + EXCLUDED.block_count,
           error_count = t.error_count + EXCLUDED.error_count,
           cost_micro_usd = LEAST(t.cost_micro_usd + EXCLUDED.cost_micro_usd, ${maxTraceCostMicroUsd}),
           violation_count = t.violation_count + EXCLUDED.violation_count,
           updated_at = EXCLUDED.updated_at,
           first_user_message = CASE WHEN $18 THEN EXCLUDED.first_user_message ELSE t.first_user_message END,
           first_user_message_at = CASE WHEN $18 THEN EXCLUDED.first_user_message_at ELSE t.first_user_message_at END,
           first_user_message_block = CASE WHEN $18 THEN EXCLUDED.first_user_message_block ELSE t.first_user_message_block END
         RETURNING 1
       )
       INSERT INTO trace_blocks (organization_id, trace_id, id, block_type, sub_type,
         parent_block_id, parent_sub_type, call_id, result_seq, created_at, updated_at, body)
       SELECT $1, $2, r.id, r.block_type, r.sub_type, r.parent_block_id, r.parent_sub_type,
         r.call_id, r.result_seq, r.created_at, r.updated_at, r.body
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
         $9::int[], $10::text[], $11::text[], $12::text[])
         WITH ORDINALITY AS r (id, block_type, sub_type, parent_block_id, parent_sub_type, call_id,
           result_seq, created_at, updated_at, body, position)
       WHERE EXISTS (SELECT 1 FROM trace)
       ORDER BY r.position`,
      [
        organizationId,
        traceId,
        ...columns,
        now(),
        summary.count,
        summary.errors,
        summary.costMicroUsd,
        summary.violations,
        first !== undefined,
        first?.text ?? null,
        first?.createdAt ?? null,
        first?.blockId ?? null,
      ],
    );
  }

  /** One page of a trace's blocks in the order stored; undefined for a missing trace. */
  async listBlocks(
    organizationId: number,
    traceId: string,
    page: { cursor?: string | undefined; limit: number },
  ): Promise<Page<Block> | undefined> {
    const scope = { list: 'blocks', organizationId, traceId } as const;
    const after = decodeCursor(page.cursor, scope) ?? 0;
    if ((await this.trace(organizationId, traceId)) === undefined) return undefined;
    const { rows } = await this.query<{ seq: string; body: string }>(
      `SELECT seq, body FROM trace_blocks WHERE organization_id = $1 AND trace_id = $2 AND seq > $3
       ORDER BY seq LIMIT $4`,
      [organizationId, traceId, after, page.limit + 1],
    );
    return pageOf(rows, page.limit, (row) => parseBody(row.body), scope);
  }

  /** Every block of a trace in the order stored; undefined for a missing trace. */
  async traceBlocks(organizationId: number, traceId: string): Promise<Block[] | undefined> {
    if ((await this.trace(organizationId, traceId)) === undefined) return undefined;
    const { rows } = await this.query<{ body: string }>(
      'SELECT body FROM trace_blocks WHERE organization_id = $1 AND trace_id = $2 ORDER BY seq',
      [organizationId, traceId],
    );
    return rows.map((row) => parseBody(row.body));
  }

  /** A trace's summary, or undefined. */
  async trace(
    organizationId: number,
    traceId: string,
    on?: Queryable,
  ): Promise<TraceSummary | undefined> {
    const { rows } = await this.query(
      'SELECT * FROM traces WHERE organization_id = $1 AND id = $2',
      [organizationId, traceId],
      on,
    );
    return rows[0] === undefined ? undefined : summaryOf(rows[0]);
  }

  /** One page of an organization's traces, newest first. */
  async listTraces(
    organizationId: number,
    page: { cursor?: string | undefined; limit: number },
  ): Promise<Page<TraceSummary>> {
    const scope = { list: 'traces', organizationId } as const;
    const before = decodeCursor(page.cursor, scope) ?? Number.MAX_SAFE_INTEGER;
    const { rows } = await this.query<{ seq: string }>(
      'SELECT * FROM traces WHERE organization_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3',
      [organizationId, before, page.limit + 1],
    );
    return pageOf(rows, page.limit, summaryOf, scope);
  }

  /** Deletes a trace and its blocks, holding the trace's lock; false when there was none. */
  async deleteTrace(organizationId: number, traceId: string): Promise<boolean> {
    return this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
        organizationId,
        traceId,
      ]);
      await client.query('DELETE FROM trace_blocks WHERE organization_id = $1 AND trace_id = $2', [
        organizationId,
        traceId,
      ]);
      const result = await client.query(
        'DELETE FROM traces WHERE organization_id = $1 AND id = $2',
        [organizationId, traceId],
      );
      return (result.rowCount ?? 0) > 0;
    });
  }

  /** Stores whole traces under new ids (and in a dataset), all in one transaction. */
  async importTraces(
    organizationId: number,
    traces: readonly ImportedTrace[],
    options: ImportTracesOptions,
  ): Promise<string[]> {
    return this.transaction(async (client) => {
      const ids: string[] = [];
      for (const [index, trace] of traces.entries()) {
        const traceId = options.ids.traceId();
        // the converters' blocks carry a trace id of their own: store them under the new one
        const blocks = trace.blocks.map((block) =>
          isRecord(block) ? { ...block, trace_id: traceId } : block,
        );
        try {
          await this.appendInTransaction(client, organizationId, traceId, blocks, options);
        } catch (error) {
          throw atTraceIndex(error, index);
        }
        ids.push(traceId);
      }
      const dataset = options.dataset;
      if (dataset !== undefined) {
        checkDatasetName(dataset.name);
        await client.query(
          `INSERT INTO datasets (organization_id, name, metadata, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $4) ON CONFLICT (organization_id, name) DO NOTHING`,
          [organizationId, dataset.name, JSON.stringify(dataset.metadata ?? {}), now()],
        );
        const row = await this.datasetRow(organizationId, dataset.name, client, true);
        await this.addEntries(
          client,
          organizationId,
          row?.seq,
          traces.map((trace, index) => ({
            trace_id: ids[index] as string,
            metadata: trace.metadata,
            annotations: trace.annotations,
          })),
        );
      }
      return ids;
    });
  }
}
