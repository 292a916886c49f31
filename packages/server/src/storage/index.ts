export { PostgresStore, type PostgresStoreOptions } from './postgres-store.js';
export { SqliteStore } from './sqlite-store.js';
export type {
  ApiKeyInfo,
  AppendBlocksOptions,
  AppendBlocksResult,
  CollectorStore,
  CreatedApiKey,
  DatasetEntry,
  DatasetSummary,
  ImportedTrace,
  ImportTracesOptions,
  MaybePromise,
  Organization,
  Page,
  TraceSummary,
} from './store.js';
