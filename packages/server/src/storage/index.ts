export {
  type ApiKeyInfo,
  type AppendBlocksOptions,
  type AppendBlocksResult,
  type CreatedApiKey,
  type Organization,
  type Page,
  SqliteStore,
  type TraceSummary,
} from './sqlite-store.js';
