// Prisma's schema engine built as WebAssembly, for the migration scripts: `migrate dev` needs a
// native engine that cannot be downloaded here (docs/database.md#one-schema-two-databases).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';

let loaded = false;

// On Node 20 the package entry cannot import its .wasm file, so instantiate it by hand.
// The .wasm file is not in the package's exports: find it beside the exported glue module.
async function loadWasm(): Promise<void> {
  if (loaded) return;
  const require = createRequire(import.meta.url);
  const wasmPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/\.js$/, '.wasm');
  const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {
    './schema_engine_bg.js': bg as unknown as WebAssembly.ModuleImports,
  });
  bg.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  loaded = true;
}

/**
 * The SQL that takes a database from schema `from` (null: empty) to schema `to`, in the dialect
 * of `adapter`'s provider; empty when they agree. Schemas are diffed as text: no database is read.
 */
export async function diffSchemas(adapter: SqlMigrationAwareDriverAdapterFactory, path: string, from: string | null, to: string): Promise<string> {
  await loadWasm();
  const engine = await bg.SchemaEngine.new({ datamodels: [[path, to]] }, () => {}, bindMigrationAwareSqlAdapterFactory(adapter));
  const datamodel = (content: string) => ({ tag: 'schemaDatamodel' as const, files: [{ path, content }] });
  const { stdout } = await engine.diff({
    from: from === null ? { tag: 'empty' } : datamodel(from),
    to: datamodel(to),
    script: true,
    exitCode: null,
    filters: { externalTables: [], externalEnums: [] },
  });
  const sql = (stdout ?? '').trim();
  return sql === '-- This is an empty migration.' ? '' : sql;
}
