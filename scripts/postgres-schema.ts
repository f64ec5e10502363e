// Derives the PostgreSQL schema and migrations from the canonical SQLite ones
// (docs/database.md#one-schema-two-databases). Mechanical on purpose: after any change to
// prisma/schema.prisma (or a merge of several), `npm run migrate:new -- <name>` (or this script
// alone: `npm run migrate:postgres`) regenerates prisma/postgres/ from it.
//   prisma/postgres/schema.prisma               the canonical schema for provider postgresql
//   prisma/postgres/migrations/<name>/          one for each SQLite migration, same name
//   prisma/postgres/migrations/schema.snapshot.prisma  the schema as of the last one
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { migrationNames } from '../src/shared/migrate.js';
import { diffSchemas } from './schema-engine.js';

const root = fileURLToPath(new URL('..', import.meta.url));
export const canonicalSchemaPath = join(root, 'prisma/schema.prisma');
export const sqliteMigrationsDir = join(root, 'prisma/migrations');
export const postgresSchemaPath = join(root, 'prisma/postgres/schema.prisma');
export const postgresMigrationsDir = join(root, 'prisma/postgres/migrations');
const snapshotName = 'schema.snapshot.prisma';

const header = `// GENERATED from prisma/schema.prisma by scripts/postgres-schema.ts: do not edit, edit that
// file and run \`npm run migrate:new -- <name>\` (docs/database.md#one-schema-two-databases).
`;

/**
 * The canonical schema for PostgreSQL: the datasource's provider changes and the generators go
 * (one client, generated from the canonical schema, serves both databases: docs/database.md).
 * Every model, field, attribute and comment is kept as written; Prisma maps the scalar types
 * (Json to jsonb, DateTime to timestamp(3), enums to enum types).
 */
export function derivePostgresSchema(canonical: string): string {
  const withoutGenerators = canonical.replace(/^generator\s+\w+\s*\{[^}]*\}\n*/gm, '');
  const derived = withoutGenerators.replace(/(datasource\s+\w+\s*\{[^}]*provider\s*=\s*)"sqlite"/, '$1"postgresql"');
  if (derived === withoutGenerators) throw new Error('prisma/schema.prisma has no datasource with provider "sqlite"');
  return header + derived;
}

/** The PostgreSQL the schema engine talks to while diffing: MIGRATE_POSTGRES_URL, else the local one. */
export function diffServerUrl(): string {
  return process.env.MIGRATE_POSTGRES_URL ?? process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
}

/** What catching up would write: path → content. Empty when prisma/postgres/ is current. */
export async function postgresChanges(): Promise<Map<string, string>> {
  const changes = new Map<string, string>();
  const schema = derivePostgresSchema(readFileSync(canonicalSchemaPath, 'utf8'));
  if (!existsSync(postgresSchemaPath) || readFileSync(postgresSchemaPath, 'utf8') !== schema) changes.set(postgresSchemaPath, schema);

  const sqliteNames = migrationNames(sqliteMigrationsDir);
  const postgresNames = existsSync(postgresMigrationsDir) ? migrationNames(postgresMigrationsDir) : [];
  if (postgresNames.some((name, i) => sqliteNames[i] !== name)) {
    throw new Error(`prisma/postgres/migrations (${postgresNames.join(', ')}) is not a prefix of prisma/migrations (${sqliteNames.join(', ')})`);
  }
  const missing = sqliteNames.slice(postgresNames.length);
  if (missing.length === 0) return changes;
  const snapshotPath = join(postgresMigrationsDir, snapshotName);
  const from = existsSync(snapshotPath) ? readFileSync(snapshotPath, 'utf8') : null;
  const to = derivePostgresSchema(readFileSync(join(sqliteMigrationsDir, snapshotName), 'utf8'));
  // The engine connects (to learn the server's version) but reads no table: any PostgreSQL serves.
  const sql = await diffSchemas(new PrismaPg({ connectionString: diffServerUrl() }), postgresSchemaPath, from, to);
  // Several SQLite migrations may arrive at once (a merge): the first carries the whole
  // difference, the others are empty on PostgreSQL. Both end at the same schema.
  missing.forEach((name, i) => {
    const body =
      i > 0
        ? `-- Nothing for PostgreSQL: ${missing[0]} made every change up to this migration.\n`
        : sql
          ? `${sql}\n`
          : '-- Nothing for PostgreSQL: the schema did not change.\n';
    changes.set(join(postgresMigrationsDir, name, 'migration.sql'), body);
  });
  changes.set(snapshotPath, to);
  return changes;
}

/** Writes what `postgresChanges` answers; answers the paths written. */
export async function writePostgres(): Promise<string[]> {
  const changes = await postgresChanges();
  for (const [path, content] of changes) {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, content);
  }
  return [...changes.keys()];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const written = await writePostgres();
  console.log(written.length ? written.map((path) => `wrote ${path.slice(root.length)}`).join('\n') : 'prisma/postgres is current');
}
