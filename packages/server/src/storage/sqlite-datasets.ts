import { SqliteDatabase } from './sqlite-database.js';
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

/** Datasets (seed 001) on SQLite: named, ordered collections of an organization's traces. */
export abstract class SqliteDatasets extends SqliteDatabase {
  /** A trace's summary, or undefined. */
  abstract trace(organizationId: number, traceId: string): TraceSummary | undefined;

  protected datasetRow(organizationId: number, name: string): Record<string, unknown> | undefined {
    return this.statement(
      `SELECT d.seq, d.name, d.metadata, d.created_at, d.updated_at,
         (SELECT COUNT(*) FROM dataset_traces t WHERE t.dataset_seq = d.seq) AS trace_count
       FROM datasets d WHERE d.organization_id = ? AND d.name = ?`,
    ).get(organizationId, name);
  }

  /** A dataset's summary, or undefined. */
  dataset(organizationId: number, name: string): DatasetSummary | undefined {
    const row = this.datasetRow(organizationId, name);
    return row === undefined ? undefined : datasetOf(row);
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
    checkDatasetName(name);
    if (this.datasetRow(organizationId, name) !== undefined) throw datasetExists(name);
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
    const scope = { list: 'datasets', organizationId } as const;
    const before = decodeCursor(page.cursor, scope) ?? Number.MAX_SAFE_INTEGER;
    const rows = this.statement(
      `SELECT d.seq, d.name, d.metadata, d.created_at, d.updated_at,
         (SELECT COUNT(*) FROM dataset_traces t WHERE t.dataset_seq = d.seq) AS trace_count
       FROM datasets d WHERE d.organization_id = ? AND d.seq < ? ORDER BY d.seq DESC LIMIT ?`,
    ).all(organizationId, before, page.limit + 1);
    return pageOf(rows, page.limit, datasetOf, scope);
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

  protected addEntries(
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
        throw traceMissing(entry.trace_id);
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
}
