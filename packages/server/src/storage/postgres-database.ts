import { ServerError } from '../errors/index.js';
import { postgresMigrations } from './postgres-migrations.js';
import { constraintTraceError, now } from './store-helpers.js';

/** A result row as `pg` gives it. */
export type Row = Record<string, unknown>;

/** Something to run SQL on: the pool, or a client inside a transaction. */
export interface Queryable {
  query<R = Row>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** A pooled connection, as far as the stores use it. */
export interface PooledClient extends Queryable {
  release(error?: Error): void;
}

/**
 * The part of `pg`'s `Pool` the stores use, typed here so the package's declarations do not
 * need `@types/pg`.
 */
export interface ConnectionPool extends Queryable {
  connect(): Promise<PooledClient>;
  end(): Promise<void>;
  readonly ended: boolean;
}

/** Advisory lock key (single bigint space) held while migrating: one process migrates at a time. */
const migrationLock = 7_319_001;
/** Connection-level failures: the database is down or restarting, so the client may retry. */
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** A pg error as the collector's answer: constraints as seed codes, an outage as a 503. */
export function mapError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const { code, constraint } = error as { code?: string; constraint?: string };
  if (code === '23505' || code === '23503' || code === '23514') {
    return constraintTraceError(constraint ?? String(code), error);
  }
  if (
    (code !== undefined && (unavailableCodes.has(code) || code.startsWith('08'))) ||
    (error instanceof Error && /Connection terminated|connection timeout/i.test(error.message))
  ) {
    return new ServerError({
      code: 'SERVICE_UNAVAILABLE',
      message: `Postgres is unavailable (${error instanceof Error ? error.message : code}); retry later, and check that the database at databaseUrl / TRACEWARDEN_DATABASE_URL runs and accepts connections`,
      cause: error,
    });
  }
  return error;
}

/** Errors worth running the transaction again for (none are expected with the trace lock). */
function isRetryable(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === '40001' || code === '40P01';
}

/**
 * The Postgres connection pool under `PostgresStore`: migrations (under an advisory lock, so
 * servers starting together migrate once), queries whose errors map to the collector's, and
 * transactions retried on a deadlock or serialization failure.
 */
export class PostgresDatabase {
  protected readonly pool: ConnectionPool;

  protected constructor(pool: ConnectionPool) {
    this.pool = pool;
  }

  protected async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [migrationLock]);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
      );
      const { rows } = await client.query<{ version: number }>(
        'SELECT version FROM schema_migrations',
      );
      const applied = new Set(rows.map((row) => row.version));
      for (const migration of postgresMigrations) {
        if (applied.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
            [migration.version, migration.name, now()],
          );
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [migrationLock]).catch(() => {});
      client.release();
    }
  }

  /** The schema version in force. */
  async schemaVersion(): Promise<number> {
    const { rows } = await this.query<{ version: number | null }>(
      'SELECT MAX(version) AS version FROM schema_migrations',
    );
    return rows[0]?.version ?? 0;
  }

  protected async query<R = Row>(
    text: string,
    values?: unknown[],
    on: Queryable = this.pool,
  ): Promise<{ rows: R[]; rowCount: number | null }> {
    try {
      return await on.query<R>(text, values);
    } catch (error) {
      throw mapError(error);
    }
  }

  /** Runs `work` in one transaction on one connection, again on a deadlock or serialization failure. */
  protected async transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: PooledClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        throw mapError(error);
      }
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollback: Error) => {
          broken = rollback;
        });
        if (attempt < 3 && isRetryable(error)) continue;
        throw mapError(error);
      } finally {
        client.release(broken);
      }
    }
  }

  /** Whether the database answers (for `/readyz`). */
  async ping(): Promise<boolean> {
    try {
      return (await this.pool.query('SELECT 1 AS ok')).rows[0]?.ok === 1;
    } catch {
      return false;
    }
  }

  /**
   * Runs raw SQL (tests and maintenance).
   * @internal
   */
  async exec(sql: string, ...parameters: unknown[]): Promise<void> {
    await this.query(sql, parameters);
  }

  /** Closes every connection of the pool. */
  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}
