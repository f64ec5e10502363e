// PostgreSQL's own part (docs/database.md): migrations applied once by instances starting at
// once, commits that wait for the disk, and the settings it requires. Runs when TEST_DATABASE_URL
// names a server (.ci/run's second pass); the rest of the suite runs on it then too.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/shared/config.js';
import { openDatabase } from '../src/shared/db.js';
import { MIGRATION_LOCK, migratePostgres, migrationNames, postgresMigrationsDir } from '../src/shared/migrate.js';
import { createTestDatabase, postgresServerUrl } from './helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-postgres-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function query<Row extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe('configuration', () => {
  it('takes a postgresql:// URL with ASSAY_SECRET_KEY, and names the key when it is missing', () => {
    const url = 'postgresql://assay@db.internal:5432/assay';
    expect(loadConfig({ DATABASE_URL: url, ASSAY_SECRET_KEY: 'ab'.repeat(32) }).DATABASE_URL).toBe(url);
    expect(() => loadConfig({ DATABASE_URL: url })).toThrow(/ASSAY_SECRET_KEY: is required with a PostgreSQL DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://db/assay' })).toThrow(/DATABASE_URL: must be "file:<path>" \(SQLite\) or "postgresql:/);
    expect(() => loadConfig({ DATABASE_URL: url, ASSAY_SECRET_KEY: 'ab'.repeat(32), DATABASE_POOL_SIZE: '0' })).toThrow(/DATABASE_POOL_SIZE/);
  });
});

describe.skipIf(!postgresServerUrl)('on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  it('applies each migration exactly once when two instances start at once on a fresh database', async () => {
    const database = await createTestDatabase(dir);
    try {
      const url = database.env.DATABASE_URL;
      const [a, b] = await Promise.all([openDatabase({ url, poolSize: 2 }), openDatabase({ url, poolSize: 2 })]);
      // One start applied them all, the other found them applied.
      expect([a.applied, b.applied].sort((x, y) => y.length - x.length)).toEqual([migrationNames(postgresMigrationsDir), []]);
      const rows = await query<{ migration_name: string }>(url, 'SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name');
      expect(rows.map((row) => row.migration_name)).toEqual(migrationNames(postgresMigrationsDir));
      // Both serve the same tables.
      await a.db.project.create({ data: { name: 'from-a' } });
      expect(await b.db.project.count({ where: { name: 'from-a' } })).toBe(1);
      await Promise.all([a.close(), b.close()]);
      expect(await migratePostgres(url)).toEqual([]);
    } finally {
      await database.drop();
    }
  });

  it('waits for the advisory lock another session holds, then migrates', async () => {
    const database = await createTestDatabase(dir);
    const holder = new pg.Client({ connectionString: database.env.DATABASE_URL });
    try {
      await holder.connect();
      await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      let done = false;
      const migrating = migratePostgres(database.env.DATABASE_URL).then((applied) => {
        done = true;
        return applied;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(done).toBe(false);
      await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      expect(await migrating).toEqual(migrationNames(postgresMigrationsDir));
    } finally {
      await holder.end();
      await database.drop();
    }
  });

  it('commits synchronously on every connection, even when the server defaults otherwise', async () => {
    const database = await createTestDatabase(dir);
    try {
      const name = new URL(database.env.DATABASE_URL).pathname.slice(1);
      await query(database.env.DATABASE_URL, `ALTER DATABASE ${name} SET synchronous_commit = off`);
      const opened = await openDatabase({ url: database.env.DATABASE_URL, poolSize: 2 });
      try {
        const [viaPrisma] = await opened.db.$queryRawUnsafe<{ synchronous_commit: string }[]>('SHOW synchronous_commit');
        expect(viaPrisma.synchronous_commit).toBe('on');
        expect(await opened.sql.first<{ synchronous_commit: string }>('SHOW synchronous_commit', [])).toEqual({ synchronous_commit: 'on' });
      } finally {
        await opened.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('rolls back a failing migration whole, leaving it pending', async () => {
    const database = await createTestDatabase(dir);
    try {
      const copy = join(dir, 'failing');
      cpSync(postgresMigrationsDir, copy, { recursive: true });
      mkdirSync(join(copy, '9000_broken'));
      writeFileSync(join(copy, '9000_broken', 'migration.sql'), 'CREATE TABLE "Half" ("id" TEXT);\nTHIS IS NOT SQL;\n');
      await expect(migratePostgres(database.env.DATABASE_URL, copy)).rejects.toThrow(/syntax error/);
      const tables = await query<{ table_name: string }>(
        database.env.DATABASE_URL,
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
      );
      // One transaction: none of the migrations nor the half of the broken one is left behind.
      expect(tables.map((row) => row.table_name)).toEqual(['_prisma_migrations']);
    } finally {
      await database.drop();
    }
  });
});
