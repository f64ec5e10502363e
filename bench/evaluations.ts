// bench/evaluations: 10,000 test cases × 3 evaluators, batch_size 100. The service runs as
// `npm start` runs it, in its own process, and so does the user's endpoint. Baseline, measured
// in the same run: the same calls at the same concurrency, storing nothing. Then the same run
// against an endpoint that takes 50 ms, against the ideal wall time (cases / batch_size × 50 ms).
// The baseline makes its calls with the service's own HTTP client (postJson, undici's request),
// so the ratio measures what the run adds to the calls, not a difference between HTTP clients.
// Also measured, to show how far any runner could go on this machine: the rows the instant run
// stored, written again with raw better-sqlite3, and the CPU the bare calls take (client and
// endpoint), whose sum over the two cores bounds the run's wall time from below.
// Run: npx tsx bench/evaluations.ts [cases]
import { setMaxListeners } from 'node:events';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Agent } from 'undici';
import { postJson } from '../src/shared/http/client.js';
import { sqlitePath } from '../src/shared/db.js';
import { cpuSeconds, onPostgres, rawDatabase, seconds, startProcess, startService, serviceCaller } from './support/measure.js';

const CASES = Number(process.argv[2] ?? 10_000);
const BATCH = 100;
const endpointScript = fileURLToPath(new URL('./support/endpoint.mjs', import.meta.url));
const rows = Array.from({ length: CASES }, (_, i) => ({
  country: `Country ${i}`,
  capital: `City ${i}`,
  correct_answer: `The capital of Country ${i} is City ${i}.`,
}));

// Its raw baseline reads and writes SQLite files: on PostgreSQL it has none yet.
if (onPostgres) throw new Error('bench/evaluations runs on SQLite only: unset TEST_DATABASE_URL');
const service = await startService();
const base = service.baseUrl;

const call = serviceCaller(base);

const app = await call<{ app_id: string }>('POST', '/apps', { app_name: 'bench' });
const testset = await call<{ id: string }>('POST', '/testsets', { name: 'bench', csvdata: rows });
const configs: string[] = [];
for (const [name, evaluator_key, settings_values] of [
  ['exact', 'auto_exact_match', {}],
  ['contains', 'auto_contains', { substring: 'capital' }],
  ['levenshtein', 'auto_levenshtein_distance', {}],
] as const) {
  configs.push((await call<{ id: string }>('POST', '/evaluators/configs', { app_id: app.app_id, name, evaluator_key, settings_values })).id);
}
const setUpRss = service.peakRssMb();

/** Runs one evaluation against an endpoint; answers its id and wall time from POST to the end. */
async function evaluate(uri: string, name: string): Promise<{ id: string; wall: number }> {
  const variant = await call<{ variant_id: string }>('POST', `/apps/${app.app_id}/variants`, { variant_name: name, kind: 'endpoint', uri });
  const start = process.hrtime.bigint();
  const [evaluation] = await call<{ id: string }[]>('POST', '/evaluations', {
    app_id: app.app_id,
    variant_ids: [variant.variant_id],
    evaluators_configs: configs,
    testset_id: testset.id,
    rate_limit: { batch_size: BATCH, max_retries: 0, retry_delay: 0, delay_between_batches: 0 },
  });
  for (;;) {
    const { status, progress } = await call<{ status: { value: string }; progress: { done: number } }>('GET', `/evaluations/${evaluation.id}/status`);
    if (!['EVALUATION_INITIALIZED', 'EVALUATION_STARTED'].includes(status.value)) {
      const wall = seconds(start);
      if (status.value !== 'EVALUATION_FINISHED' || progress.done !== CASES) throw new Error(`run ended ${status.value} with ${progress.done} cases`);
      return { id: evaluation.id, wall };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The baseline: the same calls, same concurrency, same HTTP client, nothing scored or stored.
 * Answers its wall time and when each batch began (monotonic clock, ns).
 */
async function callOnly(uri: string): Promise<{ wall: number; batchStarts: bigint[] }> {
  const start = process.hrtime.bigint();
  const signal = new AbortController().signal;
  setMaxListeners(0, signal);
  const dispatcher = new Agent();
  const batchStarts: bigint[] = [];
  for (let i = 0; i < CASES; i += BATCH) {
    batchStarts.push(process.hrtime.bigint());
    await Promise.all(
      rows.slice(i, i + BATCH).map(async (inputs) => JSON.parse(await postJson(uri, { inputs, parameters: {} }, { peer: uri, signal, dispatcher })) as unknown),
    );
  }
  return { wall: seconds(start), batchStarts };
}

/** When a batch's first and last requests reached an endpoint that records arrivals, after the batch began (ms, mean over batches). */
async function arrivalSpread(uri: string, batchStarts: bigint[]): Promise<{ first: number; last: number }> {
  const arrivals = ((await (await fetch(`${uri}arrivals`)).json()) as string[]).map(BigInt);
  const ms = (ns: bigint) => Number(ns) / 1e6;
  let first = 0;
  let last = 0;
  batchStarts.forEach((batchStart, b) => {
    const batch = arrivals.slice(b * BATCH, (b + 1) * BATCH);
    first += ms(batch[0] - batchStart);
    last += ms(batch.at(-1)! - batchStart);
  });
  return { first: first / batchStarts.length, last: last / batchStarts.length };
}

/**
 * The least that storing a run costs: the rows it stored (spans, traces, scenarios, results, read
 * back from the service's database) inserted again with raw prepared statements into an empty
 * database of the same schema, one transaction per batch as the runner commits them. No
 * roll-up query (the trace rows come computed) and no foreign keys (parents are not copied).
 */
function rawWrites(evaluationId: string): { wall: number; cpu: number } {
  const source = new Database(sqlitePath(service.databaseUrl), { readonly: true });
  source.defaultSafeIntegers(true);
  // Each table's rows of the run, with their case's position as the last column, in test set order.
  const tables = [
    ['Span', 's."traceId" = x."traceId"'],
    ['Trace', 's."traceId" = x."traceId"'],
    ['EvaluationScenario', 's."id" = x."id"'],
    ['EvaluationScenarioResult', 's."id" = x."scenarioId"'],
  ].map(([table, on]) => {
    const statement = source
      .prepare(`SELECT x.*, s."position" FROM "${table}" x JOIN "EvaluationScenario" s ON ${on} WHERE s."evaluationId" = ? ORDER BY s."position"`)
      .raw(true);
    const columns = statement
      .columns()
      .slice(0, -1)
      .map((column) => column.name);
    // Rows grouped by batch (position / BATCH); the last value read is the position.
    const batches: unknown[][][] = [];
    for (const row of statement.all(evaluationId) as unknown[][]) (batches[Math.floor(Number(row.pop()) / BATCH)] ??= []).push(row);
    return { table: table, columns, batches };
  });
  source.close();
  const { db, close } = rawDatabase();
  db.pragma('foreign_keys = OFF');
  const inserts = tables.map(({ table, columns }) =>
    db.prepare(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(',')}) VALUES (${columns.map(() => '?').join(',')})`),
  );
  const storeBatch = db.transaction((batch: number) => tables.forEach(({ batches }, t) => batches[batch]?.forEach((row) => inserts[t].run(row))));
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  const batchCount = Math.max(...tables.map(({ batches }) => batches.length));
  for (let batch = 0; batch < batchCount; batch++) storeBatch(batch);
  const wall = seconds(start);
  const cpu = process.cpuUsage(cpuStart);
  const rows = tables.map(({ batches }) => batches.reduce((sum, rows) => sum + rows.length, 0));
  close();
  if (rows[0] !== CASES || rows[2] !== CASES) throw new Error(`read back ${rows.join('/')} rows`);
  return { wall, cpu: (cpu.user + cpu.system) / 1e6 };
}

const fast = await startProcess(endpointScript);
const fastUri = `http://127.0.0.1:${fast.port}/`;
await callOnly(fastUri); // warm-up: connections, JIT
const cpuBefore = { bench: process.cpuUsage(), endpoint: cpuSeconds(fast.child.pid!) };
const { wall: baseline } = await callOnly(fastUri);
const benchCpu = process.cpuUsage(cpuBefore.bench);
const callsCpu = (benchCpu.user + benchCpu.system) / 1e6 + cpuSeconds(fast.child.pid!) - cpuBefore.endpoint;
const { id: runId, wall: run } = await evaluate(fastUri, 'instant');
fast.child.kill();
const raw = rawWrites(runId);
const bound = (callsCpu + raw.cpu) / 2;

const slow = await startProcess(endpointScript, { DELAY_MS: '50', RECORD_ARRIVALS: '1' });
const ideal = (CASES / BATCH) * 0.05;
const slowUri = `http://127.0.0.1:${slow.port}/`;
const slowCalls = await callOnly(slowUri);
const slowBaseline = slowCalls.wall;
const arrivals = await arrivalSpread(slowUri, slowCalls.batchStarts);
const { wall: slowRun } = await evaluate(slowUri, 'fifty-ms');
slow.child.kill();

console.log(`bench/evaluations: ${CASES} cases × ${configs.length} evaluators, batch_size ${BATCH}`);
console.log(`  instant endpoint: ${run.toFixed(2)} s, ${(CASES / run).toFixed(0)} cases/s`);
console.log(`  baseline (same calls, nothing stored): ${baseline.toFixed(2)} s, ${(CASES / baseline).toFixed(0)} cases/s`);
console.log(`  ratio run/baseline: ${(run / baseline).toFixed(2)} (aim ≤ 1.5)`);
console.log(`  the bare calls used ${callsCpu.toFixed(2)} s of CPU (client and endpoint) in ${baseline.toFixed(2)} s on 2 cores`);
console.log(`  the run's rows written raw (better-sqlite3, a transaction per batch): ${raw.wall.toFixed(2)} s, ${raw.cpu.toFixed(2)} s of CPU`);
console.log(
  `  lower bound for any runner here, (calls' CPU + raw writes' CPU) / 2 cores: ${bound.toFixed(2)} s, ratio ${(bound / baseline).toFixed(2)}; calls then raw writes on one thread: ratio ${((baseline + raw.wall) / baseline).toFixed(2)}`,
);
const over = (wall: number) => `${(((wall - ideal) / ideal) * 100).toFixed(1)}% over`;
console.log(`  50 ms endpoint: ${slowRun.toFixed(2)} s against an ideal of ${ideal.toFixed(2)} s: ${over(slowRun)} (aim ≤ 10%)`);
console.log(`  50 ms endpoint, calls only: ${slowBaseline.toFixed(2)} s: ${over(slowBaseline)}; run/calls-only ${(slowRun / slowBaseline).toFixed(2)}`);
const intake = arrivals.last - arrivals.first;
console.log(
  `    a batch's requests reached the endpoint ${arrivals.first.toFixed(1)} to ${arrivals.last.toFixed(1)} ms after it began: it took ${intake.toFixed(1)} ms to read them, so a batch takes ≥ ${(50 + intake).toFixed(1)} ms (${((intake / 50) * 100).toFixed(0)}% over) even if its first request arrived at once`,
);
console.log(
  `  peak RSS of the service: ${service.peakRssMb().toFixed(0)} MB (aim < 300 MB); ${setUpRss.toFixed(0)} MB after the set-up (10,000-row test set upload), before the runs`,
);

await service.stop();
