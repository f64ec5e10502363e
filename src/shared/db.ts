// Opens the database: brings it up to date, then hands out the Prisma client over the driver
// adapter (no engine binary at run time).
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { Database as SqliteConnection } from 'better-sqlite3';
import { PrismaClient } from '../generated/prisma/client.js';
import { migrateSqlite } from './migrate.js';

export type Db = PrismaClient;
export { Prisma } from '../generated/prisma/client.js';

export interface DatabaseOptions {
  /** `file:<path>`; a relative path is taken from the working directory. */
  url: string;
  /** Called with each SQL statement sent (tests count them). */
  onQuery?: (sql: string) => void;
}

export interface Database {
  db: Db;
  /** Migrations applied by this open, oldest first. */
  applied: string[];
  /** The better-sqlite3 connection Prisma runs on (for bulk writes; see sql.ts). */
  connection: () => SqliteConnection;
}

/**
 * Prisma's better-sqlite3 adapter, keeping the connection it opens. The adapter exports only its
 * factory; its connection is the `client` of the adapter `connect()` answers (checked at start,
 * and by test/bulk-sql.test.ts, since the adapter's version is pinned exactly).
 */
class ConnectionKeepingFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'sqlite' as const;
  readonly adapterName: string;
  connection: SqliteConnection | undefined;

  constructor(private readonly inner: PrismaBetterSqlite3) {
    this.adapterName = inner.adapterName;
  }

  async connect() {
    const adapter = await this.inner.connect();
    const client = (adapter as unknown as { client?: SqliteConnection }).client;
    if (!client || typeof client.prepare !== 'function') throw new Error('the SQLite adapter no longer exposes its connection');
    this.connection = client;
    return adapter;
  }

  connectToShadowDb() {
    return this.inner.connectToShadowDb();
  }
}

export function sqlitePath(url: string): string {
  return resolve(url.replace(/^file:/, ''));
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const path = sqlitePath(options.url);
  mkdirSync(dirname(path), { recursive: true });
  const applied = migrateSqlite(path);
  const adapter = new ConnectionKeepingFactory(new PrismaBetterSqlite3({ url: path }));
  const db = options.onQuery ? new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] }) : new PrismaClient({ adapter });
  if (options.onQuery) {
    const onQuery = options.onQuery;
    (db as PrismaClient<'query'>).$on('query', (event) => onQuery(event.query));
  }
  await db.$connect();
  // A COMMIT writes the WAL without waiting for the disk; what acknowledges a write waits for
  // WalSync's shared fsync instead (wal-sync.ts). Set here because a connection opened on a file
  // already in WAL mode gets better-sqlite3's default for WAL, and a new file SQLite's (FULL).
  adapter.connection!.pragma('synchronous = NORMAL');
  return {
    db,
    applied,
    connection: () => {
      if (!adapter.connection) throw new Error('the database is not connected');
      return adapter.connection;
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
