// Applies the SQL migrations in prisma/migrations at start. Prisma's `migrate deploy` needs a
// native engine that cannot be downloaded here, so this does its job for SQLite. All pending
// migrations run in one transaction, so a start either brings the database fully up to date or
// leaves it as it was. Each is recorded in Prisma's own `_prisma_migrations` table (same columns,
// same sha256 checksum), so Prisma's CLI reads the same history.
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

export const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

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

/** Brings the SQLite file at `path` up to date; answers the names of the migrations it applied. */
export function migrateSqlite(path: string, dir = migrationsDir): string[] {
  const db = new Database(path);
  try {
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
    const names = migrationNames(dir);
    const applied: string[] = [];
    // IMMEDIATE takes the write lock first, so two processes starting at once apply each
    // migration exactly once.
    db.transaction(() => {
      const done = new Map(
        (db.prepare(appliedMigrationsSql).all() as { migration_name: string; checksum: string }[]).map((row) => [row.migration_name, row.checksum]),
      );
      for (const name of names) {
        const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
        const checksum = createHash('sha256').update(sql).digest('hex');
        const recorded = done.get(name);
        if (recorded !== undefined) {
          if (recorded !== checksum) {
            throw new MigrationError(`migration ${name} was changed after it was applied to ${path}`);
          }
          continue;
        }
        const startedAt = new Date().toISOString();
        db.exec(sql);
        db.prepare(
          'INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)',
        ).run(randomUUID(), checksum, new Date().toISOString(), name, startedAt);
        applied.push(name);
      }
    }).immediate();
    return applied;
  } finally {
    db.close();
  }
}
