import { chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { migrations } from './migrations.js';
import { now } from './store-helpers.js';

/**
 * `node:sqlite`, loaded on first use rather than at import: the CLI imports this package for
 * `serve`, and on Node 22 before 22.13 the module needs a flag (later 22.x print an
 * experimental warning), which must not touch `tracewarden validate` and the other commands.
 */
function loadSqlite(): typeof import('node:sqlite') {
  return createRequire(import.meta.url)('node:sqlite') as typeof import('node:sqlite');
}

/** Rows of `IN (...)` lists per statement, well under SQLite's parameter limit. */
const chunkSize = 500;

/**
 * The SQLite connection under `SqliteStore`: opening, pragmas, migrations, cached prepared
 * statements and transactions.
 */
export class SqliteDatabase {
  /** The database file. */
  readonly path: string;
  protected readonly database: DatabaseSync;
  protected readonly statements = new Map<string, StatementSync>();

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

  protected statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.database.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  protected transaction<T>(work: () => T): T {
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
  protected selectIn(
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
