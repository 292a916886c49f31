export {
  type ApiKeyInfo,
  type AppendBlocksOptions,
  type AppendBlocksResult,
  type CreatedApiKey,
  type DatasetEntry,
  type DatasetSummary,
  type ImportedTrace,
  type Organization,
  type Page,
  SqliteStore,
  type TraceSummary,
} from './sqlite-store.js';
