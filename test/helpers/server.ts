// One real Assay per test file, on its own database: a SQLite file in a temp dir, or, when
// TEST_DATABASE_URL names a PostgreSQL server (.ci/run sets it), a database created for it there
// and dropped after (docs/database.md#tests). Its `request()` and `graphql()` go to the service
// in-process (Fastify's inject: no socket, no HTTP client), as fetch would send them; it also
// listens on loopback, at `baseUrl`, for tests that use real clients (OTLP exporters, browsers,
// SSE streams, gRPC, raw sockets).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import pg from 'pg';
import { numberedPlaceholders } from '../../src/shared/sql.js';
import { loadConfig, type Config } from '../../src/shared/config.js';
import { createAssay, type Assay } from '../../src/server.js';

export interface TestServer {
  assay: Assay;
  /** Where the service listens, for real clients; `request()` needs no socket. */
  baseUrl: string;
  dir: string;
  /** SQL statements sent since the last `resetQueries()`. */
  queries: string[];
  resetQueries(): void;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  /** The GraphQL response body ({data, errors}), untyped for brevity in tests. */
  graphql(query: string, variables?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** The PostgreSQL server tests run on, or undefined: they run on SQLite. */
export const postgresServerUrl = process.env.TEST_DATABASE_URL || undefined;
/** Whether this run's databases are PostgreSQL ones (a test of SQLite's own machinery skips then). */
export const onPostgres = postgresServerUrl !== undefined;
/** The reason given by tests that exercise SQLite's own files or machinery. */
export const sqliteOnly = 'SQLite only: it tests the WAL file, its fsync or checkpoints, which PostgreSQL has not';

/** A fixed ASSAY_SECRET_KEY for tests on PostgreSQL (required there, docs/database.md#running-on-postgresql). */
const testSecretKey = '7e57'.repeat(16);

export interface TestDatabase {
  /** DATABASE_URL and, on PostgreSQL, ASSAY_SECRET_KEY. */
  env: Record<string, string>;
  /** Rows of one read (`?` placeholders) on a connection of its own, e.g. what a killed process left. */
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database: `assay.db` in `dir`, or a new database on the TEST_DATABASE_URL server,
 * named uniquely so that files running at once never meet.
 */
export async function createTestDatabase(dir: string): Promise<TestDatabase> {
  if (!postgresServerUrl) {
    const path = join(dir, 'assay.db');
    return {
      env: { DATABASE_URL: `file:${path}` },
      query: <Row>(sql: string, params: unknown[] = []) =>
        new Promise<Row[]>((resolve) => {
          const db = new Database(path, { readonly: true });
          try {
            resolve(db.prepare(sql).all(...params) as Row[]);
          } finally {
            db.close();
          }
        }),
      drop: async () => {},
    };
  }
  const name = `assay_test_${randomBytes(6).toString('hex')}`;
  const run = async <Row>(url: string, sql: string, params: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(numberedPlaceholders(sql), params)).rows as Row[];
    } finally {
      await client.end();
    }
  };
  await run(postgresServerUrl, `CREATE DATABASE ${name}`);
  const url = new URL(postgresServerUrl);
  url.pathname = `/${name}`;
  const admin = (sql: string) => run(postgresServerUrl, sql);
  return {
    env: { DATABASE_URL: url.href, ASSAY_SECRET_KEY: testSecretKey },
    query: (sql, params) => run(url.href, sql, params),
    // FORCE: a killed child process may have left its connections behind.
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

export async function startServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'assay-test-'));
  const database = await createTestDatabase(dir);
  // OTLP/gRPC stays off unless a test asks for it: parallel test servers would fight over 4317.
  // Silent unless TEST_LOG_LEVEL asks (e.g. `error`, to see what a 500 hid).
  const config: Config = loadConfig({ ...database.env, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', PORT: '0', OTLP_GRPC_PORT: '0', ...env });
  const queries: string[] = [];
  let assay: Assay;
  try {
    assay = await createAssay(config, { onQuery: (sql) => queries.push(sql) });
  } catch (error) {
    await database.drop();
    throw error;
  }
  await assay.server.listen({ port: 0, host: '127.0.0.1' });
  const { port } = assay.server.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  const request = injector(assay, baseUrl);

  return {
    assay,
    baseUrl,
    dir,
    queries,
    resetQueries: () => {
      queries.length = 0;
    },
    request,
    graphql: async (query, variables) => (await request('POST', '/graphql', { query, variables })).body,
    close: async () => {
      await assay.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The file's server: started in a `beforeAll`, closed in an `afterAll`, and meanwhile used as the
 * TestServer it stands for; `env` may be worked out then (a free port). Call it at the top of a test file, before the file's own hooks: they
 * then run after the start and before the close.
 */
export function useTestServer(env: Record<string, string> | (() => Promise<Record<string, string>>) = {}): TestServer {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startServer(typeof env === 'function' ? await env() : env);
  });
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as TestServer, {
    get(_target, key) {
      if (!started) throw new Error('the test server starts in beforeAll: use it in a hook or a test');
      return Reflect.get(started, key);
    },
  });
}

type Requester = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<TestResponse>;

/** The request as fetch makes it: a body that is a string or FormData is sent as is, others as JSON. */
function requestInit(method: string, body: unknown, headers: Record<string, string>): RequestInit & { headers: Record<string, string> } {
  const init = { method, headers: { ...headers } } as RequestInit & { headers: Record<string, string> };
  if (body !== undefined) {
    init.body = typeof body === 'string' || body instanceof FormData ? body : JSON.stringify(body);
    if (!(body instanceof FormData) && !headers['content-type']) init.headers['content-type'] = 'application/json';
  }
  return init;
}

function testResponse(status: number, headers: Headers, text: string): TestResponse {
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status, headers, body: parsed, text };
}

/** HTTP calls to a server at `baseUrl`, over a socket. */
export function requester(baseUrl: string): Requester {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(baseUrl + path, requestInit(method, body, headers));
    return testResponse(response.status, response.headers, await response.text());
  };
}

/** The headers fetch (undici) adds to every request, which the service may read (e.g. Sec-Fetch-Mode). */
const FETCH_HEADERS: Record<string, string> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

const DECOMPRESS: Record<string, (bytes: Buffer) => Buffer> = { gzip: gunzipSync, deflate: inflateSync, br: brotliDecompressSync };

/**
 * The same calls as `requester(baseUrl)`, made in-process through Fastify's inject: the URL
 * normalised, the headers and body as fetch sends them, a compressed reply decoded as fetch does.
 */
function injector(assay: Assay, baseUrl: string): Requester {
  const host = new URL(baseUrl).host;
  return async (method, path, body, headers = {}) => {
    const url = new URL(path, baseUrl);
    const init = requestInit(method, body, headers);
    // A FormData body is encoded as fetch encodes it (multipart, with its boundary).
    const encoded = init.body === undefined ? undefined : new Request(url, { method: 'POST', body: init.body });
    const contentType = encoded?.headers.get('content-type');
    const reply = await assay.server.inject({
      method: method as 'GET',
      url: url.pathname + url.search,
      headers: { host, ...FETCH_HEADERS, ...(contentType ? { 'content-type': contentType } : {}), ...lowerCased(init.headers) },
      payload: encoded ? Buffer.from(await encoded.arrayBuffer()) : undefined,
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(reply.headers)) {
      for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) responseHeaders.append(name, String(item));
    }
    const decode = DECOMPRESS[responseHeaders.get('content-encoding') ?? ''];
    return testResponse(reply.statusCode, responseHeaders, decode ? decode(reply.rawPayload).toString('utf8') : reply.payload);
  };
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
