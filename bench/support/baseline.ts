// The OTLP decoding and mapping of an earlier commit, for bench/ingest to measure beside today's in
// one run (docs/observability.md#measurements): a copy of the built service (dist/ → dist-baseline/)
// whose decoding-thread modules are that commit's sources, taken with `git show` and compiled by
// esbuild. Everything else (HTTP, the write queue, the database) is today's in both.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The commit before the rule-driven mapping (issue 24); BENCH_BASELINE_REF picks another. */
export const baselineRef = process.env.BENCH_BASELINE_REF ?? 'ebe2e43';

/** What the decoding thread runs (prepare-spans.ts and what it loads): the part the rewrite changed. */
const decodingModules = [
  'observability/ingestion/otlp/attribute-values',
  'observability/ingestion/otlp/decoded-span',
  'observability/ingestion/otlp/json-decoding',
  'observability/ingestion/otlp/messages',
  'observability/ingestion/otlp/prepare-spans',
  'observability/ingestion/otlp/protobuf-decoding',
  'observability/ingestion/otlp/span-content',
  'observability/ingestion/otlp/span-mapping',
  'observability/ingestion/span-record',
  'shared/sql',
];

/**
 * dist-baseline/ beside dist/ (so its paths to prisma/ and node_modules/ are the same): the built
 * service with the baseline's decoding modules. Call after the build (startService makes it).
 */
export function buildBaselineDist(): string {
  const out = join(root, 'dist-baseline');
  rmSync(out, { recursive: true, force: true });
  cpSync(join(root, 'dist'), out, { recursive: true });
  for (const module of decodingModules) {
    const source = execFileSync('git', ['show', `${baselineRef}:src/${module}.ts`], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
    const { code } = transformSync(source, { loader: 'ts', format: 'esm', target: 'node20' });
    const target = join(out, `${module}.js`);
    if (!existsSync(target)) throw new Error(`${target} is not in the build`);
    writeFileSync(target, code);
  }
  return out;
}
