import { randomBytes } from 'node:crypto';
import { describe, it } from 'vitest';

/** The databases every route suite runs against. */
export type StoreKind = 'sqlite' | 'postgres';

/** The Postgres the tests use: `TRACEWARDEN_TEST_DATABASE_URL` (CI's `.ci/run` starts one). */
export const testDatabaseUrl: string | undefined =
  process.env.TRACEWARDEN_TEST_DATABASE_URL?.trim() || undefined;

const inCi = process.env.CI === 'true' || process.env.CI === '1';

const howToRun =
  'set TRACEWARDEN_TEST_DATABASE_URL=postgres://user@host:port/database (any database the user may create schemas in; each test file gets its own schema), or run bash .ci/run, which starts a throwaway Postgres';

/**
 * Declares a suite once per store: `name (sqlite)` and `name (postgres)`. Without
 * `TRACEWARDEN_TEST_DATABASE_URL`, the Postgres half is one skipped test saying how to run it,
 * except in CI (`CI=true`), where it is one failing test: CI never skips Postgres.
 */
export function describeStores(name: string, body: (store: StoreKind) => void): void {
  describe(`${name} (sqlite)`, () => body('sqlite'));
  describePostgres(name, () => body('postgres'));
}

/** A suite that needs Postgres (`name (postgres)`), skipped or failing as {@link describeStores} says. */
export function describePostgres(name: string, body: () => void): void {
  if (testDatabaseUrl !== undefined) {
    describe(`${name} (postgres)`, body);
  } else if (inCi) {
    describe(`${name} (postgres)`, () => {
      it('runs against Postgres in CI', () => {
        throw new Error(`CI=true but no Postgres for the tests: ${howToRun}`);
      });
    });
  } else {
    describe(`${name} (postgres)`, () => {
      it.skip(`skipped: no Postgres; to run it, ${howToRun}`, () => {});
    });
  }
}

/** A fresh, empty schema in the test Postgres, and a URL whose connections use it. */
export interface TestDatabase {
  /** `TRACEWARDEN_TEST_DATABASE_URL` with `options=-c search_path=<schema>`. */
  url: string;
  schema: string;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

async function admin<T>(work: (client: import('pg').Client) => Promise<T>): Promise<T> {
  if (testDatabaseUrl === undefined) throw new Error(`no Postgres for the tests: ${howToRun}`);
  const { Client } = await import('pg');
  const client = new Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a schema of its own for one test server (schemas are cheap, databases are not): the
 * collector's tables are made in it by the migrations, as on a fresh database.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const schema = `tw_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE SCHEMA ${schema}`));
  const url = new URL(testDatabaseUrl as string);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    schema,
    drop: () => admin((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).then(() => {}),
  };
}
