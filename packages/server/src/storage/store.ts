import type { Block, BlockLimits, IdGenerator } from '@tracewarden/core';

/** A value, or a promise of it: the SQLite store answers synchronously, Postgres does not. */
export type MaybePromise<T> = T | Promise<T>;

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

/** A trace to store by {@link CollectorStore.importTraces}: its blocks (from core's converters). */
export interface ImportedTrace {
  blocks: readonly unknown[];
  metadata?: Record<string, unknown> | undefined;
  annotations?: unknown[] | undefined;
}

/** Options of {@link CollectorStore.appendBlocks}. */
export interface AppendBlocksOptions {
  blockLimits: Readonly<BlockLimits>;
  maxTraceBlocks: number;
  ids: IdGenerator;
}

/** Result of {@link CollectorStore.appendBlocks}. */
export interface AppendBlocksResult {
  /** Every block of the batch as stored, in the batch's order. */
  blocks: Block[];
  /** How many were new (the others were already stored with the same content). */
  inserted: number;
  /** `blocks` as JSON text, when the store has it at hand (the route sends it as is). */
  blocksJson?: string | undefined;
}

/** Options of {@link CollectorStore.importTraces}. */
export type ImportTracesOptions = AppendBlocksOptions & {
  dataset?: { name: string; metadata?: Record<string, unknown> | undefined } | undefined;
};

/**
 * What the collector's routes need from a database. `SqliteStore` (embedded, synchronous) and
 * `PostgresStore` (`pg`, asynchronous) both implement it with the same answers; the routes
 * `await` every call and never know which one they talk to.
 *
 * @example
 * ```ts
 * async function countTraces(store: CollectorStore, organization: string): Promise<number> {
 *   const found = await store.organization(organization);
 *   if (found === undefined) return 0;
 *   return (await store.listTraces(found.id, { limit: 1000 })).items.length;
 * }
 * ```
 */
export interface CollectorStore {
  /** `sqlite` or `postgres`. */
  readonly kind: 'sqlite' | 'postgres';
  /** Whether the database answers (for `/readyz`). */
  ping(): MaybePromise<boolean>;
  /** The organization with this name. */
  organization(name: string): MaybePromise<Organization | undefined>;
  /** Every organization, by name. */
  organizations(): MaybePromise<Organization[]>;
  /** Creates an organization (`created: false` when it existed). */
  createOrganization(name: string): MaybePromise<{ organization: Organization; created: boolean }>;
  /** Creates an API key of an organization (and the organization with `createOrganization`). */
  createApiKey(
    organization: string,
    options?: { name?: string | undefined; createOrganization?: boolean | undefined },
  ): MaybePromise<CreatedApiKey>;
  /**
   * On an empty database only: creates the organization and one key, atomically (two servers
   * starting together on one database create one). Undefined when an organization exists.
   */
  createInitialApiKey(organization: string, name: string): MaybePromise<CreatedApiKey | undefined>;
  /** Revokes a key by id or whole key; false when unknown or already revoked. */
  revokeApiKey(id: string): MaybePromise<boolean>;
  /** Lists keys, never their secrets. */
  listApiKeys(organization?: string): MaybePromise<ApiKeyInfo[]>;
  /** The organization of a presented key; undefined for an unknown, malformed or revoked one. */
  authenticate(key: string): MaybePromise<Organization | undefined>;
  /** Validates and stores a batch, all or nothing (see `SqliteStore.appendBlocks`). */
  appendBlocks(
    organizationId: number,
    traceId: string,
    inputs: readonly unknown[],
    options: AppendBlocksOptions,
  ): MaybePromise<AppendBlocksResult>;
  /** One page of a trace's blocks in the order stored; undefined for a missing trace. */
  listBlocks(
    organizationId: number,
    traceId: string,
    page: { cursor?: string | undefined; limit: number },
  ): MaybePromise<Page<Block> | undefined>;
  /** Every block of a trace in the order stored; undefined for a missing trace. */
  traceBlocks(organizationId: number, traceId: string): MaybePromise<Block[] | undefined>;
  /** A trace's summary, or undefined. */
  trace(organizationId: number, traceId: string): MaybePromise<TraceSummary | undefined>;
  /** One page of an organization's traces, newest first. */
  listTraces(
    organizationId: number,
    page: { cursor?: string | undefined; limit: number },
  ): MaybePromise<Page<TraceSummary>>;
  /** Deletes a trace and its blocks; false when there was none. */
  deleteTrace(organizationId: number, traceId: string): MaybePromise<boolean>;
  /** A dataset's summary, or undefined. */
  dataset(organizationId: number, name: string): MaybePromise<DatasetSummary | undefined>;
  /** Creates a dataset (`CONFLICT` when the name is taken). */
  createDataset(
    organizationId: number,
    name: string,
    metadata?: Record<string, unknown>,
  ): MaybePromise<DatasetSummary>;
  /** One page of an organization's datasets, newest first. */
  listDatasets(
    organizationId: number,
    page: { cursor?: string | undefined; limit: number },
  ): MaybePromise<Page<DatasetSummary>>;
  /** A dataset's traces in order; undefined for a missing dataset. */
  datasetEntries(organizationId: number, name: string): MaybePromise<DatasetEntry[] | undefined>;
  /** Adds stored traces to a dataset, all or none; returns how many were added. */
  addDatasetTraces(
    organizationId: number,
    name: string,
    entries: readonly { trace_id: string; metadata?: Record<string, unknown> | undefined }[],
  ): MaybePromise<number>;
  /** Deletes a dataset (its traces stay); false when there was none. */
  deleteDataset(organizationId: number, name: string): MaybePromise<boolean>;
  /** Stores whole traces under new ids (and in a dataset), all in one transaction. */
  importTraces(
    organizationId: number,
    traces: readonly ImportedTrace[],
    options: ImportTracesOptions,
  ): MaybePromise<string[]>;
  /** Closes the database (connections, file handles). */
  close(): MaybePromise<void>;
}
