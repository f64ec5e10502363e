// Applies the SQL migrations at start: prisma/migrations on SQLite, prisma/postgres/migrations on
// PostgreSQL (docs/database.md#migrations-at-start). Prisma's `migrate deploy` needs a native engine that
// cannot be downloaded here, so this does its job. All pending migrations run in one transaction,
// so a start either brings the database fully up to date or leaves it as it was. Each is recorded
// in Prisma's own `_prisma_migrations` table (same columns, same sha256 checksum), so Prisma's CLI
// reads the same history. Instances starting at once apply each migration exactly once: SQLite's
// write lock, PostgreSQL's advisory lock, is taken before the history is read.
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { numberedPlaceholders } from './sql.js';

export const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
export const postgresMigrationsDir = fileURLToPath(new URL('../../prisma/postgres/migrations', import.meta.url));

export class MigrationError extends Error {}

/** The migrations recorded as applied (and not rolled back), with their checksums. */
export const appliedMigrationsSql = 'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL';

/** The migrations this version brings, oldest first (their folder names sort by date). */
export function migrationNames(dir = migrationsDir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
}

const recordMigrationSql =
  'INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)';

/** The migrations in `dir` not yet applied, oldest first; refuses one changed after it was applied. */
function pendingMigrations(dir: string, appliedRows: AppliedRow[], where: string): { name: string; sql: string; checksum: string }[] {
  const done = new Map(appliedRows.map((row) => [row.migration_name, row.checksum]));
  const pending: { name: string; sql: string; checksum: string }[] = [];
  for (const name of migrationNames(dir)) {
    const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
    const checksum = createHash('sha256').update(sql).digest('hex');
    const recorded = done.get(name);
    if (recorded === undefined) pending.push({ name, sql, checksum });
    else if (recorded !== checksum) throw new MigrationError(`migration ${name} was changed after it was applied to ${where}`);
  }
  return pending;
}

/**
 * The page size of a new SQLite database, in bytes (SQLite's default is 4,096). A span's row is
 * 1–4 KB of JSON: at 4 KB one such row of over 2 KB fills a page alone, so each span cost a page
 * written to the WAL and copied back into the file (docs/database.md#page-size). A database made
 * with another size keeps it: SQLite changes it only by a VACUUM outside WAL mode.
 */
export const SQLITE_PAGE_SIZE = 8192;

/** Brings the SQLite file at `path` up to date; answers the names of the migrations it applied. */
export function migrateSqlite(path: string, dir = migrationsDir): string[] {
  const db = new Database(path);
  try {
    // Before anything is written: it sets the size of a new file only.
    db.pragma(`page_size = ${SQLITE_PAGE_SIZE}`);
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" TEXT PRIMARY KEY NOT NULL,
      "checksum" TEXT NOT NULL,
      "finished_at" DATETIME,
      "migration_name" TEXT NOT NULL,
      "logs" TEXT,
      "rolled_back_at" DATETIME,
      "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
      "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
    )`);
    const applied: string[] = [];
    // IMMEDIATE takes the write lock first, so two processes starting at once apply each
    // migration exactly once.
    db.transaction(() => {
      for (const migration of pendingMigrations(dir, db.prepare(appliedMigrationsSql).all() as AppliedRow[], path)) {
        const startedAt = new Date().toISOString();
        db.exec(migration.sql);
        db.prepare(recordMigrationSql).run(randomUUID(), migration.checksum, new Date().toISOString(), migration.name, startedAt);
        applied.push(migration.name);
      }
    }).immediate();
    return applied;
  } finally {
    db.close();
  }
}

/** The advisory lock key migrations hold on PostgreSQL ("ASSAY" in ASCII): one start migrates at a time. */
export const MIGRATION_LOCK = 0x4153534159;

/** Brings the PostgreSQL database at `url` up to date; answers the names of the migrations it applied. */
export async function migratePostgres(url: string, dir = postgresMigrationsDir): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Held for the session, so even the history table is made by one start only.
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const applied: string[] = [];
    await client.query('BEGIN');
    try {
      const rows = (await client.query<AppliedRow>(appliedMigrationsSql)).rows;
      for (const migration of pendingMigrations(dir, rows, 'the PostgreSQL database')) {
        const startedAt = new Date();
        await client.query(migration.sql);
        await client.query(numberedPlaceholders(recordMigrationSql), [randomUUID(), migration.checksum, new Date(), migration.name, startedAt]);
        applied.push(migration.name);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
    return applied;
  } finally {
    // Ending the session releases the advisory lock.
    await client.end();
  }
}
