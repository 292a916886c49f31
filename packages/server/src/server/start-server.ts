import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type BlockLimits, createIdGenerator, resolveBlockLimits } from '@tracewarden/core';
import { resolveServerLimits, type ServerLimits } from '../config/index.js';
import { bodyLimitBelowBlockLimit } from '../config/resolve-server-limits.js';
import { ServerError } from '../errors/index.js';
import {
  type CollectorStore,
  type CreatedApiKey,
  PostgresStore,
  SqliteStore,
} from '../storage/index.js';
import { answerClientError } from './answer-client-error.js';
import { createRequestHandler } from './create-request-handler.js';

/**
 * The collector's default port: clear of 3000 (dev servers), 4317/4318 (OTLP), 6006
 * (Storybook, Phoenix) and 8080.
 *
 * @example
 * ```ts
 * const url = `http://127.0.0.1:${defaultPort}`;
 * ```
 */
export const defaultPort = 7319;

/**
 * The organization created, with one API key, on a fresh data directory.
 *
 * @example
 * ```ts
 * const path = `/v1/organizations/${defaultOrganization}/traces`;
 * ```
 */
export const defaultOrganization = 'default';

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string | undefined;
  /** Port; `0` picks a free one. @default 7319 */
  port?: number | undefined;
  /** Where the SQLite database and `credentials` live. @default `TRACEWARDEN_DATA_DIR`, else `~/.tracewarden` */
  dataDir?: string | undefined;
  /**
   * A Postgres URL (`postgres://user:password@host:5432/database`) to store in instead of the
   * data directory's SQLite file; several collectors may share one database.
   * @default `TRACEWARDEN_DATABASE_URL`, else none (SQLite)
   */
  databaseUrl?: string | undefined;
  /** Request limits to force; the rest from `TRACEWARDEN_MAX_*` or the defaults. */
  limits?: Partial<ServerLimits> | undefined;
  /** Block byte limits to force; the rest from seed 002's `LIMIT_*` variables or its defaults. */
  blockLimits?: Partial<BlockLimits> | undefined;
  /** Environment read for defaults and limits. @default process.env */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Called with every unexpected error (answered as a 500). @default writes it to stderr */
  onError?: ((error: unknown) => void) | undefined;
}

/** A running collector. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:7319`. */
  url: string;
  /** The data directory in use (the SQLite database, when no `databaseUrl`, and `credentials`). */
  dataDir: string;
  /** Which database stores the traces: `sqlite` (the data directory's file) or `postgres`. */
  database: 'sqlite' | 'postgres';
  /** `<dataDir>/credentials` (mode 0600), written on first start. */
  credentialsFile: string;
  /** On first start: the `default` organization's API key, to print once. */
  initialApiKey: { organization: string; key: string } | undefined;
  /**
   * Stops accepting connections, lets in-flight requests finish (`/readyz` answers 503
   * meanwhile), then closes the database. Requests still running after `timeoutMs` have their
   * connections closed (their transactions roll back: nothing is half-written). Safe to call twice.
   * @param options - `timeoutMs`, how long to wait for requests in flight (default 30000)
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
  /**
   * Creates an API key, and its organization if needed.
   * @returns `{ key }`, the secret (shown once), with its `id` and `organization`
   */
  createApiKey(options: { organization: string; name?: string }): Promise<CreatedApiKey>;
}

/**
 * The Postgres URL in force: the option, else `TRACEWARDEN_DATABASE_URL`; undefined for SQLite.
 * @param databaseUrl - the option
 * @param env - the environment
 * @returns the URL, or undefined
 * @throws {@link ServerError} `INVALID_REQUEST` for a URL that is not `postgres://` or `postgresql://`
 * @example
 * ```ts
 * resolveDatabaseUrl(undefined, { TRACEWARDEN_DATABASE_URL: 'postgres://db/tracewarden' }); // 'postgres://db/tracewarden'
 * ```
 */
export function resolveDatabaseUrl(
  databaseUrl?: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const given =
    databaseUrl !== undefined && databaseUrl !== '' ? databaseUrl : env.TRACEWARDEN_DATABASE_URL;
  if (given === undefined || given.trim() === '') return undefined;
  if (!/^postgres(ql)?:\/\//i.test(given)) {
    throw new ServerError({
      code: 'INVALID_REQUEST',
      message: `databaseUrl must be a Postgres URL (postgres://user:password@host:5432/database), got ${JSON.stringify(given.replace(/\/\/[^@/]*@/, '//***@'))}; leave it unset to use the built-in SQLite database`,
      details: { field: 'databaseUrl' },
    });
  }
  return given;
}

/**
 * The data directory in force: the option, else `TRACEWARDEN_DATA_DIR`, else `~/.tracewarden`.
 * @param dataDir - the option
 * @param env - the environment
 * @returns an absolute or relative directory path
 * @example
 * ```ts
 * resolveDataDir(undefined, { TRACEWARDEN_DATA_DIR: '/srv/tracewarden' }); // '/srv/tracewarden'
 * ```
 */
export function resolveDataDir(
  dataDir?: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  if (dataDir !== undefined && dataDir !== '') return dataDir;
  const fromEnv = env.TRACEWARDEN_DATA_DIR;
  if (fromEnv !== undefined && fromEnv.trim() !== '') return fromEnv;
  return join(homedir(), '.tracewarden');
}

function writeCredentials(
  file: string,
  url: string | undefined,
  organization: string,
  key: string,
): void {
  const text = `# tracewarden collector credentials, written on first start (${new Date().toISOString()}).
# Keep this file secret: the key gives full access to the organization's traces.
${url === undefined ? '' : `TRACEWARDEN_URL=${url}\n`}TRACEWARDEN_ORGANIZATION=${organization}
TRACEWARDEN_API_KEY=${key}
`;
  writeFileSync(file, text, { mode: 0o600 });
  // the mode above is masked by the umask; make it exactly owner read/write
  chmodSync(file, 0o600);
}

/**
 * Starts the collector: seed 002's trace-block API over `node:http`, stored in embedded SQLite
 * (`node:sqlite`), or in Postgres with `databaseUrl` / `TRACEWARDEN_DATABASE_URL`; migrations
 * are applied at start. On an empty database it creates the organization `default` and one API
 * key, returned as `initialApiKey` and written to `<dataDir>/credentials` (mode 0600).
 *
 * @param options - host, port, data directory, Postgres URL, limits
 * @returns the running server: `url`, `close()`, `createApiKey()`
 * @throws {@link ServerError} `INVALID_REQUEST` for a `databaseUrl` that is not Postgres'; `SERVICE_UNAVAILABLE` when Postgres cannot be reached
 * @example
 * ```ts
 * const server = await startServer({ port: 0, dataDir: '/tmp/tracewarden-demo' });
 * const { key } = await server.createApiKey({ organization: 'acme' });
 * const response = await fetch(`${server.url}/v1/organizations/acme/traces/tr_1/blocks`, {
 *   method: 'POST',
 *   headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
 *   body: JSON.stringify({ blocks: [{ sub_type: 'MESSAGE', payload: { role: 'user', content: 'hi' } }] }),
 * });
 * console.log(response.status); // 201
 * await server.close();
 * ```
 */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const env = options.env ?? process.env;
  const databaseUrl = resolveDatabaseUrl(options.databaseUrl, env);
  const blockLimits = resolveBlockLimits(options.blockLimits, env);
  const limits = resolveServerLimits(options.limits, env, blockLimits);
  const bodyTooSmall = bodyLimitBelowBlockLimit(limits, blockLimits);
  if (bodyTooSmall !== undefined)
    process.emitWarning(`tracewarden collector: ${bodyTooSmall}`, {
      code: 'TRACEWARDEN_BODY_LIMIT',
    });
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? defaultPort;
  const dataDir = resolveDataDir(options.dataDir, env);
  const credentialsFile = join(dataDir, 'credentials');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store: CollectorStore =
    databaseUrl === undefined
      ? SqliteStore.openDataDir(dataDir)
      : await PostgresStore.open({ connectionString: databaseUrl });
  const onError =
    options.onError ??
    ((error: unknown) => {
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(`tracewarden collector: ${text}\n`);
    });

  let initial: CreatedApiKey | undefined;
  try {
    initial = await store.createInitialApiKey(defaultOrganization, 'created on first start');
  } catch (error) {
    await store.close();
    throw error;
  }
  if (initial !== undefined) {
    // at once, so the key is never lost if listening fails; again with the URL below
    writeCredentials(credentialsFile, undefined, initial.organization, initial.key);
  }

  let draining = false;
  const inFlight = new Set<ServerResponse>();
  let idle: (() => void) | undefined;
  const handle = createRequestHandler({
    store,
    limits,
    blockLimits,
    ids: createIdGenerator(),
    draining: () => draining,
    onError,
  });
  const server = createServer((request, response) => {
    inFlight.add(response);
    response.on('close', () => {
      inFlight.delete(response);
      if (inFlight.size === 0) idle?.();
    });
    void handle(request, response);
  });
  // a stalled or trickling client cannot hold a request open forever
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;
  // what Node refuses before the handler (bad HTTP, large headers, a stalled body): seed shape
  server.on('clientError', answerClientError);

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await store.close();
    // the key was made and saved before listening failed: the next start will not show it
    if (initial !== undefined && error instanceof Error) {
      error.message += `; the first start's API key of organization "${initial.organization}" was created and saved to ${credentialsFile} (later starts do not print it)`;
      // for callers that word the failure themselves (the CLI)
      Object.defineProperty(error, 'credentialsFile', { value: credentialsFile });
    }
    throw error;
  }
  const address = server.address() as AddressInfo;
  const hostText = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${hostText}:${address.port}`;
  if (initial !== undefined)
    writeCredentials(credentialsFile, url, initial.organization, initial.key);

  let closing: Promise<void> | undefined;
  return {
    url,
    dataDir,
    database: store.kind,
    credentialsFile,
    initialApiKey:
      initial === undefined ? undefined : { organization: initial.organization, key: initial.key },
    close({ timeoutMs = 30_000 } = {}) {
      closing ??= (async () => {
        draining = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        if (inFlight.size > 0) {
          let timer: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            idle = resolve;
            timer = setTimeout(resolve, timeoutMs);
          });
          clearTimeout(timer);
        }
        server.closeAllConnections();
        await stopped;
        await store.close();
      })();
      return closing;
    },
    async createApiKey({ organization, name }) {
      return store.createApiKey(organization, { name, createOrganization: true });
    },
  };
}
