// The OTLP decoding and mapping of an earlier commit, for bench/ingest to measure beside today's in
// one run (docs/observability.md#measurements): a copy of the built service (dist/ → dist-baseline/)
// whose decoding thread runs that commit's modules, taken with `git show` and compiled by esbuild.
// Everything else (HTTP, the write queue, the database) is today's in both. The old modules sit in
// a copy of their own (dist-baseline/old-decoding/) that only the decoding thread loads, because
// the serving thread imports some of the same files (span-content.js) for what the old ones lack.
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
 * service whose decoding thread runs the baseline's modules. Call after the build (startService
 * makes it). Answers the directory whose prepare-spans.js is the baseline's, and the service's.
 */
export function buildBaselineDist(): { service: string; decoding: string } {
  const out = join(root, 'dist-baseline');
  const decoding = join(out, 'old-decoding');
  rmSync(out, { recursive: true, force: true });
  cpSync(join(root, 'dist'), out, { recursive: true });
  cpSync(join(root, 'dist'), decoding, { recursive: true });
  // The service's worker loads the old prepare-spans.js, called as it was then: before OTLP logs it
  // took no signal (the bench sends only spans).
  writeFileSync(
    join(out, 'observability/ingestion/otlp/decoding-worker.mjs'),
    [
      `import { parentPort } from 'node:worker_threads';`,
      `const { prepareReply } = await import('../../../old-decoding/observability/ingestion/otlp/prepare-spans.js');`,
      `const prepare = prepareReply.length === 2 ? (_signal, format, body) => prepareReply(format, body) : prepareReply;`,
      `parentPort.on('message', ({ id, signal, format, body }) => parentPort.postMessage({ id, ...prepare(signal, format, body) }));`,
      '',
    ].join('\n'),
  );
  for (const module of decodingModules) {
    const source = execFileSync('git', ['show', `${baselineRef}:src/${module}.ts`], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
    const { code } = transformSync(source, { loader: 'ts', format: 'esm', target: 'node20' });
    const target = join(decoding, `${module}.js`);
    if (!existsSync(target)) throw new Error(`${target} is not in the build`);
    writeFileSync(target, code);
  }
  return { service: out, decoding };
}
