// Writes the next SQL migration: the difference between the schema as of the last migration
// (prisma/migrations/schema.snapshot.prisma) and prisma/schema.prisma, then its PostgreSQL twin
// (scripts/postgres-schema.ts). Prisma's own `migrate dev` needs a native engine that cannot be
// downloaded here, so we drive the same engine built as WebAssembly (see STACK.md).
// Usage: npm run migrate:new -- <name>
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { writePostgres } from './postgres-schema.js';
import { diffSchemas } from './schema-engine.js';

const name = (process.argv[2] ?? '').replace(/[^a-z0-9_]+/gi, '_');
if (!name) {
  console.error('usage: npm run migrate:new -- <name>');
  process.exit(2);
}
const migrationsDir = 'prisma/migrations';
const snapshotPath = join(migrationsDir, 'schema.snapshot.prisma');
const schemaPath = 'prisma/schema.prisma';

const current = readFileSync(schemaPath, 'utf8');
const sql = await diffSchemas(
  new PrismaBetterSqlite3({ url: ':memory:' }),
  schemaPath,
  existsSync(snapshotPath) ? readFileSync(snapshotPath, 'utf8') : null,
  current,
);
if (!sql) {
  console.log('schema unchanged: no migration written');
} else {
  const next = readdirSync(migrationsDir).filter((entry) => /^\d{4}_/.test(entry)).length + 1;
  const dir = join(migrationsDir, `${String(next).padStart(4, '0')}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'migration.sql'), `${sql}\n`);
  writeFileSync(snapshotPath, current);
  console.log(`wrote ${dir}/migration.sql`);
}
// Also when the SQLite side is current: a merge may have brought SQLite migrations without twins.
for (const path of await writePostgres()) console.log(`wrote ${path}`);
