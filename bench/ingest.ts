// bench/ingest: 100,000 spans (~1 KB of attributes each, traces of 50 spans) sent as OTLP/protobuf
// batches of 500 by a client in its own process to the service in its own process (run as
// `npm start` runs it), through the whole path: HTTP, decoding, mapping, the write queue, SQLite.
// Old and new side by side: the same run also starts the whole service as it was at an earlier
// commit, built from that commit's tree on a database of its own (bench/support/baseline.ts;
// BENCH_BASELINE_REF, by default the commit before the rule-driven mapping), alternating the two
// `rounds` times, and times both decoding threads' work (decode, map, serialise a body) in this
// process on the same bodies.
// Baseline, measured in the same run: the very rows the service stores for these spans (the same
// columns and values, built before timing) inserted into an empty database of the same schema in
// one transaction: raw better-sqlite3 prepared statements on SQLite, `COPY … FROM STDIN` on
// PostgreSQL (TEST_DATABASE_URL set: the service and the baseline each get a fresh database there).
// Run: npx tsx bench/ingest.ts [spans] [concurrency] [rounds]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { spanColumns, spanRow } from '../src/observability/ingestion/span-writer.js';
import { prepareOtlp } from '../src/observability/ingestion/otlp/prepare-spans.js';
import { dayOf, dayPartition } from '../src/observability/ingestion/span-partitions.js';
import { builtinPriceList } from '../src/pricing/prices.js';
import { copyText } from '../src/shared/postgres-sql.js';
import { sqlDate, sqlParam } from '../src/shared/sql.js';
import { baselineRef, buildBaseline } from './support/baseline.js';
import { buildService, cpuSeconds, onPostgres, rawDatabase, rawPostgres, runOtlpClient, seconds, startService, type ClientRun } from './support/measure.js';
import { otlpBodies } from './support/otlp-spans.js';

const SPANS = Number(process.argv[2] ?? 100_000);
const CONCURRENCY = Number(process.argv[3] ?? 4);
const ROUNDS = Number(process.argv[4] ?? 2);
const BATCH = 500;
const TRACE = 50;

buildService();
const baselineDist = join(buildBaseline(), 'dist');

interface ServiceRun {
  run: ClientRun;
  cpu: number;
  rss: number;
}

async function serviceRun(dist?: string): Promise<ServiceRun> {
  const service = await startService({ OTLP_GRPC_PORT: '0' }, dist);
  const cpuBefore = cpuSeconds(service.child.pid!);
  const run = await runOtlpClient(`${service.baseUrl}/v1/traces`, { spans: SPANS, batch: BATCH, trace: TRACE, concurrency: CONCURRENCY });
  const cpu = cpuSeconds(service.child.pid!) - cpuBefore;
  const rss = service.peakRssMb();
  const counted = await fetch(`${service.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ spanMetrics { count } traceMetrics { count } }' }),
  }).then((response) => response.json() as Promise<{ data: { spanMetrics: { count: number }; traceMetrics: { count: number } } }>);
  await service.stop();
  const { spanMetrics: spans, traceMetrics: traces } = counted.data;
  if (spans.count !== SPANS || traces.count !== SPANS / TRACE) throw new Error(`stored ${spans.count} spans in ${traces.count} traces`);
  return { run, cpu, rss };
}

// The two services alternate, so that a machine busy with other work weighs on both alike.
const runs: { old: ServiceRun[]; new: ServiceRun[] } = { old: [], new: [] };
for (let round = 0; round < ROUNDS; round++) {
  runs.old.push(await serviceRun(baselineDist));
  runs.new.push(await serviceRun());
}
const best = (list: ServiceRun[]) => ({
  cpu: Math.min(...list.map((item) => item.cpu)),
  seconds: Math.min(...list.map((item) => item.run.seconds)),
  rss: Math.max(...list.map((item) => item.rss)),
});

// The decoding thread's work alone, old and new alternating on the same bodies, in CPU time.
const bodies = otlpBodies(Math.min(SPANS, 20_000), BATCH, TRACE);
type Prepare = (format: 'protobuf', body: Uint8Array) => unknown;
const oldPrepare = ((await import(pathToFileURL(join(baselineDist, 'observability/ingestion/otlp/prepare-spans.js')).href)) as { prepareOtlp: Prepare })
  .prepareOtlp;
const newPrepare = ((await import(new URL('../dist/observability/ingestion/otlp/prepare-spans.js', import.meta.url).href)) as { prepareOtlp: Prepare })
  .prepareOtlp;
const decodingCpu = { old: Infinity, new: Infinity };
for (let round = 0; round < 5; round++) {
  for (const [name, prepare] of [
    ['old', oldPrepare],
    ['new', newPrepare],
  ] as const) {
    const before = process.cpuUsage();
    for (const body of bodies) prepare('protobuf', body);
    const used = process.cpuUsage(before);
    decodingCpu[name] = Math.min(decodingCpu[name], (used.user + used.system) / bodies.length / BATCH);
  }
}

// Baseline: the rows the service wrote, built before timing, inserted raw in one transaction.
const rows: ReturnType<typeof sqlParam>[][] = [];
const now = sqlDate(new Date());
for (const body of otlpBodies(SPANS, BATCH, TRACE)) {
  for (const record of prepareOtlp('protobuf', body).records) rows.push(spanRow('p', record, now, builtinPriceList).map(sqlParam));
}
const columnList = spanColumns.map((column) => `"${column}"`).join(',');
const addProject = `INSERT INTO "Project" ("id", "name", "updatedAt") VALUES ('p', 'p', '2024-01-01')`;

async function postgresBaseline(): Promise<number> {
  const { client, close } = await rawPostgres();
  await client.query(addProject);
  // The partitions of the rows' days (docs/database.md#span-partitions), made before timing.
  const startTime = spanColumns.indexOf('startTime');
  for (const day of new Set(rows.map((row) => dayOf(String(row[startTime]))))) {
    const { name, from, to } = dayPartition(day);
    await client.query(`CREATE TABLE "${name}" PARTITION OF "Span" FOR VALUES FROM ('${from}') TO ('${to}')`);
  }
  // The COPY text, 1,000 rows a chunk, made before timing as the rows are.
  const chunks: string[] = [];
  for (let i = 0; i < rows.length; i += 1000)
    chunks.push(
      rows
        .slice(i, i + 1000)
        .map((row) => `${row.map(copyText).join('\t')}\n`)
        .join(''),
    );
  const start = process.hrtime.bigint();
  await client.query('BEGIN');
  await pipeline(Readable.from(chunks), client.query(copyFrom(`COPY "Span" (${columnList}) FROM STDIN`)));
  await client.query('COMMIT');
  const elapsed = seconds(start);
  await close();
  return elapsed;
}

function sqliteBaseline(): number {
  const { db: baseDb, close: closeBaseDb } = rawDatabase();
  baseDb.prepare(addProject).run();
  const insert = baseDb.prepare(`INSERT INTO "Span" (${columnList}) VALUES (${spanColumns.map(() => '?').join(',')})`);
  const start = process.hrtime.bigint();
  baseDb.transaction(() => {
    for (const row of rows) insert.run(...row);
  })();
  const elapsed = seconds(start);
  closeBaseDb();
  return elapsed;
}

const baseline = onPostgres ? await postgresBaseline() : sqliteBaseline();

const perSpan = (cpu: number) => (cpu / SPANS) * 1e6;
const oldBest = best(runs.old);
const newBest = best(runs.new);
console.log(
  `bench/ingest on ${onPostgres ? 'PostgreSQL' : 'SQLite'}: ${SPANS} spans, traces of ${TRACE}, OTLP/protobuf batches of ${BATCH}, ${CONCURRENCY} requests in flight (${(runs.new[0].run.bytes / 1e6).toFixed(1)} MB sent); old = the service at ${baselineRef}, best of ${ROUNDS} alternating runs each`,
);
for (const [name, list, top] of [
  ['old', runs.old, oldBest],
  ['new', runs.new, newBest],
] as const) {
  const last = list[list.length - 1].run;
  console.log(
    `  ${name}: end to end ${top.seconds.toFixed(2)} s = ${Math.round(SPANS / top.seconds)} spans/s (aim ≥ 20,000); request p50 ${last.p50.toFixed(0)} ms, p99 ${last.p99.toFixed(0)} ms; 503 retries ${last.retries}; service CPU ${top.cpu.toFixed(2)} s = ${perSpan(top.cpu).toFixed(0)} µs per span (runs: ${list.map((item) => perSpan(item.cpu).toFixed(0)).join(', ')}); peak RSS ${top.rss.toFixed(0)} MB (aim < 400 MB); ratio to baseline ${(top.seconds / baseline).toFixed(2)}`,
  );
}
console.log(
  `  service CPU per span new/old: ${(newBest.cpu / oldBest.cpu).toFixed(2)} (aim ≤ 0.67); decoding thread's work alone: old ${decodingCpu.old.toFixed(1)} µs, new ${decodingCpu.new.toFixed(1)} µs per span (${(decodingCpu.new / decodingCpu.old).toFixed(2)})`,
);
console.log(
  `  baseline (${onPostgres ? 'COPY into PostgreSQL' : 'raw better-sqlite3'}, same rows, one transaction): ${baseline.toFixed(2)} s = ${Math.round(SPANS / baseline)} spans/s; new end to end / baseline: ${(newBest.seconds / baseline).toFixed(2)} (aim ≤ 1.5)`,
);
