// bench/scores: scores sent as Langfuse's SDKs send them, `score-create` events in batches of 100
// through POST /api/public/ingestion with Langfuse's Basic auth (an Assay key as the secret), to
// the service in its own process (run as `npm start` runs it, auth on): HTTP, the key, Langfuse's
// checks, Assay's score rules and the upsert. A third of the scores are NUMERIC, a third BOOLEAN
// and a third CATEGORICAL, on traces of 10 scores, a tenth of them on a span. Baseline, measured in
// the same run: the very rows the service stored (read back from its database) inserted into an
// empty database of the same schema, in the same batches of 100, a transaction each as the service
// commits each request: raw better-sqlite3 prepared statements on SQLite, `COPY … FROM STDIN` on
// PostgreSQL (TEST_DATABASE_URL set); and, for scale, all of them in one transaction.
// docs/langfuse.md#bench.
// `--dist=DIR` measures another build of the service (a copy of dist/ beside it, e.g. dist-baseline/
// made before a change), for a before and after at the same load.
// Run: npx tsx bench/scores.ts [scores] [concurrency] [--dist=DIR]
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { SCORE_COLUMNS } from '../src/scores/operations.js';
import { cpuSeconds, onPostgres, rawDatabase, rawPostgres, seconds, startService } from './support/measure.js';

const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const DIST = process.argv.find((arg) => arg.startsWith('--dist='))?.slice('--dist='.length);
const root = fileURLToPath(new URL('..', import.meta.url));
const SCORES = Number(positional[0] ?? 20_000);
const CONCURRENCY = Number(positional[1] ?? 4);
const BATCH = 100;
const KEY = 'bench-scores-key-0123456789abcdefghij';
const authorization = `Basic ${Buffer.from(`pk-lf-bench:${KEY}`).toString('base64')}`;

// Every request's body, made before timing as an SDK's queue holds them.
const now = new Date().toISOString();
const bodies: string[] = [];
for (let start = 0; start < SCORES; start += BATCH) {
  const batch = [];
  for (let i = start; i < Math.min(start + BATCH, SCORES); i++) {
    const kind = i % 3;
    const body = {
      id: `score-${i}`,
      traceId: `trace-${Math.floor(i / 10)}`,
      ...(i % 10 === 0 ? { observationId: `span-${i}` } : {}),
      name: ['accuracy', 'helpful', 'tone'][kind],
      value: kind === 0 ? (i % 100) / 100 : kind === 1 ? i % 2 : ['friendly', 'curt', 'neutral'][i % 3],
      dataType: ['NUMERIC', 'BOOLEAN', 'CATEGORICAL'][kind],
      ...(i % 4 === 0 ? { comment: 'from the bench' } : {}),
    };
    batch.push({ id: `event-${i}`, type: 'score-create', timestamp: now, body });
  }
  bodies.push(JSON.stringify({ batch }));
}

const service = await startService({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY, OTLP_GRPC_PORT: '0' }, DIST && join(root, DIST));
const headers = { authorization, 'content-type': 'application/json' };
const latencies: number[] = [];
let next = 0;
let refused = 0;
const cpuBefore = cpuSeconds(service.child.pid!);
const started = process.hrtime.bigint();
async function worker() {
  while (next < bodies.length) {
    const body = bodies[next++];
    const t = process.hrtime.bigint();
    const response = await fetch(`${service.baseUrl}/api/public/ingestion`, { method: 'POST', body, headers });
    const answer = (await response.json()) as { successes: unknown[]; errors: unknown[] };
    latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (response.status !== 207) throw new Error(`status ${response.status}: ${JSON.stringify(answer)}`);
    refused += answer.errors.length;
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
const elapsed = seconds(started);
const cpu = cpuSeconds(service.child.pid!) - cpuBefore;
const stored = (await (await fetch(`${service.baseUrl}/api/public/v2/scores?limit=1`, { headers })).json()) as { meta: { totalItems: number } };
if (refused > 0 || stored.meta.totalItems !== SCORES) throw new Error(`stored ${stored.meta.totalItems} scores, ${refused} refused`);

// The rows the service stored, read back before it stops (its database goes with it).
const columns = SCORE_COLUMNS;
const columnList = columns.map((column) => `"${column}"`).join(',');
let projectRow: unknown[];
let sqliteRows: unknown[][] = [];
const copyChunks: string[] = [];
if (onPostgres) {
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  projectRow = (await client.query({ text: 'SELECT "id", "name" FROM "Project" WHERE "id" IN (SELECT "projectId" FROM "Score")', rowMode: 'array' })).rows[0];
  const chunks: Buffer[] = [];
  const out = client.query(copyTo(`COPY (SELECT ${columnList} FROM "Score") TO STDOUT`));
  for await (const chunk of out) chunks.push(chunk as Buffer);
  await client.end();
  // The COPY text, a batch a chunk.
  const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean);
  for (let i = 0; i < lines.length; i += BATCH) copyChunks.push(`${lines.slice(i, i + BATCH).join('\n')}\n`);
} else {
  const db = new Database(service.databaseUrl.replace(/^file:/, ''), { readonly: true });
  projectRow = db.prepare('SELECT "id", "name" FROM "Project" WHERE "id" IN (SELECT "projectId" FROM "Score")').raw().get() as unknown[];
  sqliteRows = db.prepare(`SELECT ${columnList} FROM "Score"`).raw().all() as unknown[][];
  db.close();
}
const rss = service.peakRssMb();
await service.stop();

const addProject = `INSERT INTO "Project" ("id", "name", "updatedAt") VALUES ($1, $2, '2024-01-01')`;

/** Seconds to insert the rows raw: a transaction per batch of 100, and all in one. */
async function postgresBaseline(): Promise<{ batched: number; single: number }> {
  const run = async (groups: string[][]) => {
    const { client, close } = await rawPostgres();
    await client.query(addProject, projectRow);
    const start = process.hrtime.bigint();
    for (const group of groups) {
      await client.query('BEGIN');
      await pipeline(Readable.from(group), client.query(copyFrom(`COPY "Score" (${columnList}) FROM STDIN`)));
      await client.query('COMMIT');
    }
    const time = seconds(start);
    await close();
    return time;
  };
  return { batched: await run(copyChunks.map((chunk) => [chunk])), single: await run([copyChunks]) };
}

/** CPU seconds of the batched SQLite baseline (in this process), the figure a loaded machine leaves comparable. */
let baselineCpu: number | null = null;

function sqliteBaseline(): { batched: number; single: number } {
  const run = (size: number) => {
    const { db, close } = rawDatabase();
    db.prepare(addProject.replace('$1', '?').replace('$2', '?')).run(...projectRow);
    const insert = db.prepare(`INSERT INTO "Score" (${columnList}) VALUES (${columns.map(() => '?').join(',')})`);
    const write = db.transaction((rows: unknown[][]) => {
      for (const row of rows) insert.run(...row);
    });
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < sqliteRows.length; i += size) write(sqliteRows.slice(i, i + size));
    const time = seconds(start);
    const used = process.cpuUsage(cpuStart);
    if (size === BATCH) baselineCpu = (used.user + used.system) / 1e6;
    close();
    return time;
  };
  return { batched: run(BATCH), single: run(sqliteRows.length) };
}

const baseline = onPostgres ? await postgresBaseline() : sqliteBaseline();
latencies.sort((a, b) => a - b);
const pick = (p: number) => latencies[Math.max(0, Math.ceil(p * latencies.length) - 1)];
const rate = SCORES / elapsed;
console.log(
  `bench/scores on ${onPostgres ? 'PostgreSQL' : 'SQLite'}: ${SCORES} scores as Langfuse score-create events, batches of ${BATCH} to /api/public/ingestion, ${CONCURRENCY} requests in flight${DIST ? `, the build in ${DIST}` : ''}`,
);
console.log(
  `  end to end: ${elapsed.toFixed(2)} s = ${Math.round(rate)} scores/s (aim ≥ 5,000); request p50 ${pick(0.5).toFixed(0)} ms, p99 ${pick(0.99).toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms`,
);
console.log(`  service: ${cpu.toFixed(2)} s of CPU (${((cpu / SCORES) * 1e6).toFixed(0)} µs per score), peak RSS ${rss.toFixed(0)} MB`);
const how = onPostgres ? 'COPY into PostgreSQL' : 'raw better-sqlite3';
console.log(
  `  baseline (${how}, the same rows, a transaction per batch of ${BATCH}): ${baseline.batched.toFixed(3)} s = ${Math.round(SCORES / baseline.batched)} scores/s`,
);
console.log(`  baseline (${how}, the same rows, one transaction): ${baseline.single.toFixed(3)} s = ${Math.round(SCORES / baseline.single)} scores/s`);
console.log(
  `  ratio end to end / batched baseline: ${(elapsed / baseline.batched).toFixed(2)} (aim ≤ 2); to one transaction: ${(elapsed / baseline.single).toFixed(2)}`,
);
if (baselineCpu !== null) {
  console.log(
    `  CPU: service ${((cpu / SCORES) * 1e6).toFixed(0)} µs per score, batched baseline ${((baselineCpu / SCORES) * 1e6).toFixed(0)} µs per score: ratio ${(cpu / baselineCpu).toFixed(2)}`,
  );
}
