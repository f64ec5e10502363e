// Opens the database: brings it up to date, then hands out the Prisma client over the driver
// adapter (no engine binary at run time). `DATABASE_URL` chooses: `file:<path>` is SQLite
// (better-sqlite3), `postgresql://…` PostgreSQL (node-postgres); one generated client serves both
// (docs/database.md#one-client).
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { Database as SqliteConnection } from 'better-sqlite3';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { migratePostgres, migrateSqlite } from './migrate.js';
import { PostgresSql } from './postgres-sql.js';
import { readWorker } from './read-worker.js';
import type { BulkSql, Provider } from './sql.js';
import { SqliteSql, TransactionTurns } from './sqlite-sql.js';

export type Db = PrismaClient;
export { Prisma } from '../generated/prisma/client.js';

export interface DatabaseOptions {
  /** `file:<path>` (a relative path is taken from the working directory) or `postgresql://…`. */
  url: string;
  /** Connections per instance on PostgreSQL. */
  poolSize?: number;
  /** Called with each SQL statement sent (tests count them). */
  onQuery?: (sql: string) => void;
}

interface OpenedDatabase {
  db: Db;
  provider: Provider;
  /** Migrations applied by this open, oldest first. */
  applied: string[];
  /** Raw SQL for the hot paths, in this database's dialect (sql.ts). */
  sql: BulkSql;
  /** Disconnects Prisma and closes the connections. */
  close(): Promise<void>;
}

export interface SqliteDatabase extends OpenedDatabase {
  provider: 'sqlite';
  /** The better-sqlite3 connection Prisma runs on (for bulk writes; see sqlite-sql.ts). */
  connection: () => SqliteConnection;
}

export interface PostgresDatabase extends OpenedDatabase {
  provider: 'postgresql';
  /** The pool Prisma's adapter runs on. */
  pool: pg.Pool;
}

export type Database = SqliteDatabase | PostgresDatabase;

/** Which database a `DATABASE_URL` names. */
export function providerOf(url: string): Provider {
  return /^postgres(ql)?:\/\//.test(url) ? 'postgresql' : 'sqlite';
}

/**
 * Prisma's better-sqlite3 adapter, keeping the connection it opens. The adapter exports only its
 * factory; its connection is the `client` of the adapter `connect()` answers (checked at start,
 * and by src/shared/db.bulk-writes.test.ts, since the adapter's version is pinned exactly).
 */
class ConnectionKeepingFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'sqlite' as const;
  readonly adapterName: string;
  connection: SqliteConnection | undefined;
  /** Prisma's transactions take turns here with SqliteSql's own (sqlite-sql.ts). */
  readonly turns = new TransactionTurns();

  constructor(private readonly inner: PrismaBetterSqlite3) {
    this.adapterName = inner.adapterName;
  }

  async connect() {
    const adapter = await this.inner.connect();
    const client = (adapter as unknown as { client?: SqliteConnection }).client;
    if (!client || typeof client.prepare !== 'function') throw new Error('the SQLite adapter no longer exposes its connection');
    this.connection = client;
    // Prisma's BEGIN waits for the turn and its COMMIT or ROLLBACK (run before the adapter's
    // commit() or rollback() is called) ends it.
    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel) => {
      const endTurn = await this.turns.take();
      try {
        const transaction = await startTransaction(isolationLevel);
        const commit = transaction.commit.bind(transaction);
        const rollback = transaction.rollback.bind(transaction);
        transaction.commit = () => commit().finally(endTurn);
        transaction.rollback = () => rollback().finally(endTurn);
        return transaction;
      } catch (error) {
        endTurn();
        throw error;
      }
    };
    return adapter;
  }

  connectToShadowDb() {
    return this.inner.connectToShadowDb();
  }
}

export function sqlitePath(url: string): string {
  return resolve(url.replace(/^file:/, ''));
}

/** Where SecretBox keeps its key when ASSAY_SECRET_KEY is unset: beside a SQLite file, else nowhere. */
export function secretKeyPath(url: string): string | null {
  return providerOf(url) === 'sqlite' ? sqlitePath(url) : null;
}

function prismaClient(adapter: SqlMigrationAwareDriverAdapterFactory, options: DatabaseOptions, internal?: object): Db {
  const clientOptions: object = {
    adapter,
    ...(options.onQuery ? { log: [{ emit: 'event', level: 'query' }] } : {}),
    // The constructor's internal hook, not in its options' type (see postgresConfig).
    ...(internal ? { __internal: internal } : {}),
  };
  const db = new PrismaClient(clientOptions as ConstructorParameters<typeof PrismaClient>[0]);
  if (options.onQuery) {
    const onQuery = options.onQuery;
    (db as PrismaClient<'query'>).$on('query', (event) => onQuery(event.query));
  }
  return db;
}

export function openDatabase(options: DatabaseOptions): Promise<Database> {
  return providerOf(options.url) === 'postgresql' ? openPostgres(options) : openSqlite(options);
}

/** The PostgreSQL schema derived from prisma/schema.prisma (scripts/postgres-schema.ts). */
const postgresSchemaUrl = new URL('../../prisma/postgres/schema.prisma', import.meta.url);

/**
 * The client generated from the SQLite schema, set for PostgreSQL: the provider, the schema it
 * compiles queries against and PostgreSQL's query compiler. Prisma checks that the adapter's
 * provider matches the generated one and offers no public way to say otherwise; `configOverride`
 * is the constructor's internal hook for it (docs/database.md#one-client; Prisma is pinned exactly
 * and the whole suite runs on both databases, so a change there fails CI, not production).
 */
function postgresConfig(config: Record<string, unknown>): Record<string, unknown> {
  return {
    ...config,
    activeProvider: 'postgresql',
    inlineSchema: readFileSync(postgresSchemaUrl, 'utf8'),
    compilerWasm: {
      getRuntime: () => import('@prisma/client/runtime/query_compiler_fast_bg.postgresql.mjs'),
      getQueryCompilerWasmModule: async () => {
        const { wasm } = await import('@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.mjs');
        return new WebAssembly.Module(Buffer.from(wasm, 'base64'));
      },
      importName: './query_compiler_fast_bg.js',
    },
  };
}

async function openPostgres(options: DatabaseOptions): Promise<PostgresDatabase> {
  const applied = await migratePostgres(options.url);
  // synchronous_commit on (PostgreSQL's default, set here so a server configured otherwise cannot
  // acknowledge a write before it is on disk: docs/database.md#durability).
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10, options: '-c synchronous_commit=on' });
  // An idle connection the server ended (a restart, a terminated backend) leaves the pool, and the
  // next query opens another; unhandled, its error would end the process.
  pool.on('error', () => {});
  const db = prismaClient(new PrismaPg(pool), options, { configOverride: postgresConfig });
  await db.$connect();
  const close = async () => {
    await db.$disconnect();
    // The adapter leaves a pool it was given open.
    if (!pool.ended) await pool.end();
  };
  return { db, provider: 'postgresql', applied, sql: new PostgresSql(pool, pg.types), pool, close };
}

async function openSqlite(options: DatabaseOptions): Promise<SqliteDatabase> {
  const path = sqlitePath(options.url);
  mkdirSync(dirname(path), { recursive: true });
  const applied = migrateSqlite(path);
  const adapter = new ConnectionKeepingFactory(new PrismaBetterSqlite3({ url: path }));
  const db = prismaClient(adapter, options);
  await db.$connect();
  // A COMMIT writes the WAL without waiting for the disk; what acknowledges a write waits for
  // WalSync's shared fsync instead (wal-sync.ts). Set here because a connection opened on a file
  // already in WAL mode gets better-sqlite3's default for WAL, and a new file SQLite's (FULL).
  adapter.connection!.pragma('synchronous = NORMAL');
  const connection = () => {
    if (!adapter.connection) throw new Error('the database is not connected');
    return adapter.connection;
  };
  const aside = readWorker(path);
  return {
    db,
    provider: 'sqlite',
    applied,
    sql: new SqliteSql(connection, db, adapter.turns, aside),
    connection,
    close: async () => {
      await aside.close();
      await db.$disconnect();
    },
  };
}

/** True when `error` is Prisma's unique-constraint violation (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'P2002';
}

/** True when `error` is Prisma's foreign-key violation (P2003), e.g. deleting a row still referenced. */
export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'P2003';
}

/** True when `error` is Prisma's "record to update/delete not found" (P2025). */
export function isMissingRecord(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'P2025';
}
