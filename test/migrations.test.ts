import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import {
  MigrationError,
  migratePostgres,
  migrateSqlite,
  migrationNames,
  migrationsDir,
  postgresMigrationsDir,
  SQLITE_PAGE_SIZE,
} from '../src/shared/migrate.js';
import { openDatabase } from '../src/shared/db.js';
import { canonicalSchemaPath, derivePostgresSchema, postgresChanges, postgresSchemaPath } from '../scripts/postgres-schema.js';
import { createTestDatabase, postgresServerUrl } from './helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('migrations', () => {
  it('creates the database on first start and applies nothing on the second', async () => {
    const url = `file:${join(dir, 'nested', 'fresh.db')}`;
    const first = await openDatabase({ url });
    expect(first.applied[0]).toBe('0001_init');
    expect(first.applied).toEqual(migrationNames());
    await first.db.$disconnect();
    const second = await openDatabase({ url });
    expect(second.applied).toEqual([]);
    await second.db.$disconnect();

    const db = new Database(join(dir, 'nested', 'fresh.db'), { readonly: true });
    const rows = db.prepare('SELECT migration_name, checksum, finished_at FROM _prisma_migrations').all() as any[];
    db.close();
    expect(rows).toHaveLength(migrationNames().length);
    expect(rows[0].migration_name).toBe('0001_init');
    expect(rows[0].checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].finished_at).not.toBeNull();
  });

  it('commits without waiting for the disk, on a new database and on one already in WAL mode', async () => {
    const url = `file:${join(dir, 'synced.db')}`;
    for (let open = 0; open < 2; open++) {
      const database = await openDatabase({ url });
      if (database.provider !== 'sqlite') throw new Error('a file: URL opens SQLite');
      expect(database.connection().pragma('journal_mode', { simple: true })).toBe('wal');
      expect(Number(database.connection().pragma('page_size', { simple: true }))).toBe(SQLITE_PAGE_SIZE);
      // 1 is NORMAL: acknowledged writes wait for WalSync's fsync instead (src/shared/wal-sync.ts).
      expect(Number(database.connection().pragma('synchronous', { simple: true }))).toBe(1);
      await database.db.$disconnect();
    }
  });

  it('records the schema each migration was made from, so a model change without a migration fails here', () => {
    const schema = readFileSync(new URL('../prisma/schema.prisma', import.meta.url), 'utf8');
    const snapshot = readFileSync(join(migrationsDir, 'schema.snapshot.prisma'), 'utf8');
    expect(snapshot, 'prisma/schema.prisma changed: run `npm run migrate:new -- <name>`').toBe(schema);
  });

  it('leaves the page size of a database made before alone', () => {
    const path = join(dir, 'small-pages.db');
    const made = new Database(path);
    made.pragma('page_size = 4096');
    made.pragma('journal_mode = WAL');
    made.exec('CREATE TABLE "Earlier" ("id" TEXT)');
    made.close();
    expect(migrateSqlite(path)).toEqual(migrationNames());
    const db = new Database(path, { readonly: true });
    expect(db.pragma('page_size', { simple: true })).toBe(4096);
    db.close();
  });

  it('applies a new migration once and refuses one edited after it was applied', () => {
    const copy = join(dir, 'migrations');
    cpSync(migrationsDir, copy, { recursive: true });
    const path = join(dir, 'edited.db');
    expect(migrateSqlite(path, copy)).toEqual(migrationNames());

    // Named to sort after every real migration.
    const next = join(copy, '9000_add_column');
    cpSync(join(copy, '0001_init'), next, { recursive: true });
    writeFileSync(join(next, 'migration.sql'), 'ALTER TABLE "App" ADD COLUMN "color" TEXT;\n');
    expect(migrateSqlite(path, copy)).toEqual(['9000_add_column']);
    expect(migrateSqlite(path, copy)).toEqual([]);

    appendFileSync(join(next, 'migration.sql'), '-- edited\n');
    expect(() => migrateSqlite(path, copy)).toThrow(MigrationError);
  });

  it('rolls back a failing migration whole, leaving it pending', () => {
    const copy = join(dir, 'failing');
    cpSync(migrationsDir, copy, { recursive: true });
    const broken = join(copy, '9000_broken');
    cpSync(join(copy, '0001_init'), broken, { recursive: true });
    writeFileSync(join(broken, 'migration.sql'), 'CREATE TABLE "Half" ("id" TEXT);\nTHIS IS NOT SQL;\n');
    const path = join(dir, 'failing.db');
    expect(() => migrateSqlite(path, copy)).toThrow();
    const db = new Database(path, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    db.close();
    // One transaction: none of the migrations nor the half of the broken one is left behind.
    expect(tables.map((t) => t.name)).toEqual(['_prisma_migrations']);
  });
});

describe('the PostgreSQL schema and migrations (derived: scripts/postgres-schema.ts)', () => {
  it('are current: prisma/postgres is what the script makes from prisma/schema.prisma and prisma/migrations', async () => {
    const changes = await postgresChanges();
    expect([...changes.keys()], 'prisma/postgres is stale: run `npm run migrate:new -- <name>` (or `npm run migrate:postgres`)').toEqual([]);
    expect(readFileSync(postgresSchemaPath, 'utf8')).toBe(derivePostgresSchema(readFileSync(canonicalSchemaPath, 'utf8')));
    expect(migrationNames(postgresMigrationsDir)).toEqual(migrationNames());
  });

  it('derive the schema mechanically: provider changed, generators dropped, every model kept', () => {
    const canonical = readFileSync(canonicalSchemaPath, 'utf8');
    const derived = derivePostgresSchema(canonical);
    expect(derived).toMatch(/provider = "postgresql"/);
    expect(derived).not.toMatch(/^generator /m);
    const models = (text: string) => [...text.matchAll(/^model (\w+) \{/gm)].map((match) => match[1]);
    expect(models(derived)).toEqual(models(canonical));
    expect(() => derivePostgresSchema(canonical.replace('provider = "sqlite"', 'provider = "mysql"'))).toThrow(/sqlite/);
  });

  it.skipIf(!postgresServerUrl)('agree on tables and columns once applied (needs TEST_DATABASE_URL)', async () => {
    const sqlitePath = join(dir, 'columns.db');
    migrateSqlite(sqlitePath);
    const sqlite = new Database(sqlitePath, { readonly: true });
    const sqliteColumns = (
      sqlite
        .prepare(
          `SELECT m.name AS "table", p.name AS "column" FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`,
        )
        .all() as { table: string; column: string }[]
    ).map((row) => `${row.table}.${row.column}`);
    sqlite.close();

    const database = await createTestDatabase(dir);
    try {
      await migratePostgres(database.env.DATABASE_URL);
      const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await client.connect();
      const { rows } = await client.query<{ table: string; column: string }>(
        `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns WHERE table_schema = 'public'`,
      );
      await client.end();
      expect(rows.map((row) => `${row.table}.${row.column}`).sort()).toEqual(sqliteColumns.sort());
    } finally {
      await database.drop();
    }
  });
});
