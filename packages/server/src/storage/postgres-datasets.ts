import { PostgresDatabase, type Queryable } from './postgres-database.js';
import type { DatasetEntry, DatasetSummary, Page, TraceSummary } from './store.js';
import {
  checkDatasetName,
  datasetExists,
  datasetNotFound,
  datasetOf,
  decodeCursor,
  now,
  pageOf,
  traceMissing,
} from './store-helpers.js';

const selectDataset = `SELECT d.seq, d.name, d.metadata, d.created_at, d.updated_at,
  (SELECT COUNT(*) FROM dataset_traces t WHERE t.dataset_seq = d.seq)::int AS trace_count
  FROM datasets d`;

/** Datasets (seed 001) on Postgres: named, ordered collections of an organization's traces. */
export abstract class PostgresDatasets extends PostgresDatabase {
  /** A trace's summary, or undefined. */
  abstract trace(
    organizationId: number,
    traceId: string,
    on?: Queryable,
  ): Promise<TraceSummary | undefined>;

  protected async datasetRow(
    organizationId: number,
    name: string,
    on?: Queryable,
    lock = false,
  ): Promise<Record<string, unknown> | undefined> {
    const sql = lock
      ? 'SELECT seq FROM datasets WHERE organization_id = $1 AND name = $2 FOR UPDATE'
      : `${selectDataset} WHERE d.organization_id = $1 AND d.name = $2`;
    return (await this.query(sql, [organizationId, name], on)).rows[0];
  }

  /** A dataset's summary, or undefined. */
  async dataset(organizationId: number, name: string): Promise<DatasetSummary | undefined> {
    const row = await this.datasetRow(organizationId, name);
    return row === undefined ? undefined : datasetOf(row);
  }

  /** Creates a dataset (`CONFLICT` when the name is taken). */
  async createDataset(
    organizationId: number,
    name: string,
    metadata: Record<string, unknown> = {},
    on?: Queryable,
  ): Promise<DatasetSummary> {
    checkDatasetName(name);
    const time = now();
    const { rows } = await this.query(
      `INSERT INTO datasets (organization_id, name, metadata, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $4) ON CONFLICT (organization_id, name) DO NOTHING RETURNING seq`,
      [organizationId, name, JSON.stringify(metadata), time],
      on,
    );
    if (rows.length === 0) throw datasetExists(name);
    return datasetOf((await this.datasetRow(organizationId, name, on)) as Record<string, unknown>);
  }

  /** One page of an organization's datasets, newest first. */
  async listDatasets(
    organizationId: number,
    page: { cursor?: string | undefined; limit: number },
  ): Promise<Page<DatasetSummary>> {
    const scope = { list: 'datasets', organizationId } as const;
    const before = decodeCursor(page.cursor, scope) ?? Number.MAX_SAFE_INTEGER;
    const { rows } = await this.query<{ seq: string }>(
      `${selectDataset} WHERE d.organization_id = $1 AND d.seq < $2 ORDER BY d.seq DESC LIMIT $3`,
      [organizationId, before, page.limit + 1],
    );
    return pageOf(rows, page.limit, datasetOf, scope);
  }

  /** A dataset's traces in order; undefined for a missing dataset. */
  async datasetEntries(organizationId: number, name: string): Promise<DatasetEntry[] | undefined> {
    const row = await this.datasetRow(organizationId, name);
    if (row === undefined) return undefined;
    const { rows } = await this.query(
      'SELECT trace_id, metadata, annotations FROM dataset_traces WHERE dataset_seq = $1 ORDER BY position',
      [row.seq],
    );
    return rows.map((entry) => ({
      trace_id: entry.trace_id as string,
      metadata: JSON.parse(entry.metadata as string) as Record<string, unknown>,
      annotations: JSON.parse(entry.annotations as string) as unknown[],
    }));
  }

  protected async addEntries(
    client: Queryable,
    organizationId: number,
    datasetSeq: unknown,
    entries: readonly {
      trace_id: string;
      metadata?: Record<string, unknown> | undefined;
      annotations?: unknown[] | undefined;
    }[],
  ): Promise<number> {
    const last = await client.query<{ position: number }>(
      'SELECT COALESCE(MAX(position), -1) AS position FROM dataset_traces WHERE dataset_seq = $1',
      [datasetSeq],
    );
    let position = (last.rows[0]?.position ?? -1) + 1;
    let added = 0;
    for (const entry of entries) {
      if ((await this.trace(organizationId, entry.trace_id, client)) === undefined) {
        throw traceMissing(entry.trace_id);
      }
      const result = await client.query(
        `INSERT INTO dataset_traces (dataset_seq, organization_id, trace_id, position, metadata, annotations)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (dataset_seq, trace_id) DO NOTHING`,
        [
          datasetSeq,
          organizationId,
          entry.trace_id,
          position,
          JSON.stringify(entry.metadata ?? {}),
          JSON.stringify(entry.annotations ?? []),
        ],
      );
      if ((result.rowCount ?? 0) > 0) {
        position++;
        added++;
      }
    }
    await client.query('UPDATE datasets SET updated_at = $1 WHERE seq = $2', [now(), datasetSeq]);
    return added;
  }

  /** Adds stored traces to a dataset, all or none; returns how many were added. */
  async addDatasetTraces(
    organizationId: number,
    name: string,
    entries: readonly { trace_id: string; metadata?: Record<string, unknown> | undefined }[],
  ): Promise<number> {
    return this.transaction(async (client) => {
      // the row lock orders concurrent additions (positions are unique per dataset)
      const row = await this.datasetRow(organizationId, name, client, true);
      if (row === undefined) throw datasetNotFound(name);
      return this.addEntries(client, organizationId, row.seq, entries);
    });
  }

  /** Deletes a dataset (its traces stay); false when there was none. */
  async deleteDataset(organizationId: number, name: string): Promise<boolean> {
    const result = await this.query(
      'DELETE FROM datasets WHERE organization_id = $1 AND name = $2',
      [organizationId, name],
    );
    return (result.rowCount ?? 0) > 0;
  }
}
