// bench/ingest: 100,000 spans (~1 KB of attributes each, traces of 50 spans) sent as OTLP/protobuf
// batches of 500 by a client in its own process to the service in its own process (run as
// `npm start` runs it), through the whole path: HTTP, decoding, mapping, the write queue, SQLite.
// Baseline, measured in the same run: the very rows the service stores for these spans (the same
// columns and values, built before timing) inserted into an empty database of the same schema in
// one transaction: raw better-sqlite3 prepared statements on SQLite, `COPY … FROM STDIN` on
// PostgreSQL (TEST_DATABASE_URL set: the service and the baseline each get a fresh database there).
// Run: npx tsx bench/ingest.ts [spans] [concurrency]
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { spanColumns, spanRow } from '../src/observability/ingestion/span-writer.js';
import { prepareOtlp } from '../src/observability/ingestion/otlp/prepare-spans.js';
import { dayOf, dayPartition } from '../src/observability/ingestion/span-partitions.js';
import { builtinPriceList } from '../src/pricing/prices.js';
import { copyText } from '../src/shared/postgres-sql.js';
import { sqlDate, sqlParam } from '../src/shared/sql.js';
import { cpuSeconds, onPostgres, rawDatabase, rawPostgres, runOtlpClient, seconds, startService } from './support/measure.js';
import { otlpBodies } from './support/otlp-spans.js';

const SPANS = Number(process.argv[2] ?? 100_000);
const CONCURRENCY = Number(process.argv[3] ?? 4);
const BATCH = 500;
const TRACE = 50;
const service = await startService({ OTLP_GRPC_PORT: '0' });
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

const rate = SPANS / run.seconds;
console.log(
  `bench/ingest on ${onPostgres ? 'PostgreSQL' : 'SQLite'}: ${SPANS} spans, traces of ${TRACE}, OTLP/protobuf batches of ${BATCH}, ${CONCURRENCY} requests in flight (${(run.bytes / 1e6).toFixed(1)} MB sent)`,
);
console.log(
  `  end to end: ${run.seconds.toFixed(2)} s = ${Math.round(rate)} spans/s (aim ≥ 20,000); request p50 ${run.p50.toFixed(0)} ms, p99 ${run.p99.toFixed(0)} ms, max ${run.max.toFixed(0)} ms; 503 retries ${run.retries}`,
);
console.log(`  service: ${cpu.toFixed(2)} s of CPU (${((cpu / SPANS) * 1e6).toFixed(0)} µs per span), peak RSS ${rss.toFixed(0)} MB (aim < 400 MB)`);
console.log(
  `  baseline (${onPostgres ? 'COPY into PostgreSQL' : 'raw better-sqlite3'}, same rows, one transaction): ${baseline.toFixed(2)} s = ${Math.round(SPANS / baseline)} spans/s`,
);
console.log(`  ratio end to end / baseline: ${(run.seconds / baseline).toFixed(2)}`);
