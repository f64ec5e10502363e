// Writes the next SQL migration: the difference between the schema as of the last migration
// (prisma/migrations/schema.snapshot.prisma) and prisma/schema.prisma. Prisma's own
// `migrate dev` needs a native engine that cannot be downloaded here, so we drive the same
// engine built as WebAssembly (see STACK.md). Usage: npm run migrate:new -- <name>
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';

const name = (process.argv[2] ?? '').replace(/[^a-z0-9_]+/gi, '_');
if (!name) {
  console.error('usage: npm run migrate:new -- <name>');
  process.exit(2);
}
const migrationsDir = 'prisma/migrations';
const snapshotPath = join(migrationsDir, 'schema.snapshot.prisma');
const schemaPath = 'prisma/schema.prisma';

// On Node 20 the package entry cannot import its .wasm file, so instantiate it by hand.
// The .wasm file is not in the package's exports: find it beside the exported glue module.
const require = createRequire(import.meta.url);
const wasmPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/\.js$/, '.wasm');
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {
  './schema_engine_bg.js': bg as unknown as WebAssembly.ModuleImports,
});
bg.__wbg_set_wasm(instance.exports);
(instance.exports.__wbindgen_start as () => void)();

const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaBetterSqlite3({ url: ':memory:' }));
const current = readFileSync(schemaPath, 'utf8');
const engine = await bg.SchemaEngine.new({ datamodels: [[schemaPath, current]] }, () => {}, adapter);
const datamodel = (content: string) => ({ tag: 'schemaDatamodel' as const, files: [{ path: schemaPath, content }] });
const { stdout } = await engine.diff({
  from: existsSync(snapshotPath) ? datamodel(readFileSync(snapshotPath, 'utf8')) : { tag: 'empty' },
  to: datamodel(current),
  script: true,
  exitCode: null,
  filters: { externalTables: [], externalEnums: [] },
});
const sql = (stdout ?? '').trim();
if (!sql || sql === '-- This is an empty migration.') {
  console.log('schema unchanged: no migration written');
  process.exit(0);
}
const next = readdirSync(migrationsDir).filter((entry) => /^\d{4}_/.test(entry)).length + 1;
const dir = join(migrationsDir, `${String(next).padStart(4, '0')}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'migration.sql'), `${sql}\n`);
writeFileSync(snapshotPath, current);
console.log(`wrote ${dir}/migration.sql`);
