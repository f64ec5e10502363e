// bench/online-evaluation (docs/online-evaluation.md#measurements): what online evaluation costs
// ingestion, and how fast it evaluates. The service runs as `npm start` runs it, in its own
// process; so do the OTLP client (bench/support/otlp-client.ts) and a local OpenAI-compatible
// judge answering every call after 50 ms (bench/support/judge.mjs).
// (a) Ingest: `spans` spans in traces of 10 sent as OTLP/protobuf batches of 500 (4 requests in
//     flight) to a service with three enabled rules matching every trace (an LLM judge each, run
//     as they are planned), against the same service with no rule, the two alternating `rounds`
//     times; best time of each. Aim: throughput with rules / without ≥ 0.95.
// (b) Evaluation: `jobs` traces of one span each under one rule; the jobs' window (first created
//     to last finished) against the ideal, jobs × 50 ms / ONLINE_EVALUATION_CONCURRENCY (the
//     configured concurrency, `concurrency`). Aim: window / ideal ≤ 1.2.
// On PostgreSQL when TEST_DATABASE_URL names a server, else SQLite. BENCH_DIST names another build
// of the service (a copy of an earlier dist/ inside this checkout) to run in dist/'s place, so a
// baseline is measured beside the current build under the same load.
// Run: npx tsx bench/online-evaluation.ts [spans] [rounds] [jobs] [concurrency]
import { fileURLToPath } from 'node:url';
import { cpuSeconds, onPostgres, runOtlpClient, serviceCaller, startProcess, startService, type ClientRun, type Service } from './support/measure.js';

const SPANS = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const JOBS = Number(process.argv[4] ?? 1_000);
const CONCURRENCY = Number(process.argv[5] ?? 8);
const JUDGE_MS = 50;
const BATCH = 500;
const TRACE = 10;
/** BENCH_RULE_DELAY: the rules' delay_seconds in (a); a long one plans the jobs without running them during the ingest. */
const RULE_DELAY = Number(process.env.BENCH_RULE_DELAY ?? 0);

const judge = await startProcess(fileURLToPath(new URL('./support/judge.mjs', import.meta.url)), { DELAY_MS: String(JUDGE_MS) });
const judgeUrl = `http://127.0.0.1:${judge.port}`;
const judgeEnv = { OTLP_GRPC_PORT: '0', OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: `${judgeUrl}/v1` };

/** A JSON call of `service`'s API. */
function call<Answer>(service: Service, method: string, path: string, body?: unknown): Promise<Answer> {
  return serviceCaller(service.baseUrl)<Answer>(method, path, body);
}

/** `count` enabled rules matching every trace, each with an LLM judge of the local judge. */
async function addRules(service: Service, count: number, delaySeconds = 0): Promise<string[]> {
  const app = await call<{ app_id: string }>(service, 'POST', '/apps', { app_name: 'bench-online' });
  const config = await call<{ id: string }>(service, 'POST', '/evaluators/configs', {
    app_id: app.app_id,
    name: 'helpfulness',
    evaluator_key: 'auto_ai_critique',
    settings_values: { prompt_template: [{ role: 'user', content: 'Rate from 0 to 10: {prediction}' }], model: 'gpt-4o-mini' },
  });
  const ids: string[] = [];
  for (let i = 0; i < count; i++)
    ids.push(
      (await call<{ id: string }>(service, 'POST', '/evaluation-rules', { name: `rule ${i}`, evaluator_config_id: config.id, delay_seconds: delaySeconds })).id,
    );
  return ids;
}

type Stats = { jobs: Record<'PENDING' | 'RUNNING' | 'DONE' | 'ERROR' | 'SKIPPED', number> };

async function jobCounts(service: Service, ruleIds: string[]): Promise<Stats['jobs'][]> {
  return Promise.all(ruleIds.map(async (id) => (await call<Stats>(service, 'GET', `/evaluation-rules/${id}/stats`)).jobs));
}

const total = (jobs: Stats['jobs']) => Object.values(jobs).reduce((sum, n) => sum + n, 0);

async function until(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

type IngestRun = ClientRun & { cpu: number; planned: number };

/** One ingest run, with `rules` rules; checks every trace got a job of each rule. */
async function ingestRun(rules: number): Promise<IngestRun> {
  const service = await startService(judgeEnv);
  try {
    const ruleIds = rules > 0 ? await addRules(service, rules, RULE_DELAY) : [];
    const cpuBefore = cpuSeconds(service.child.pid!);
    const run: IngestRun = {
      ...(await runOtlpClient(`${service.baseUrl}/v1/traces`, { spans: SPANS, batch: BATCH, trace: TRACE, concurrency: 4 })),
      cpu: 0,
      planned: 0,
    };
    // The service's CPU time during the ingest (its jobs' work included), less sensitive to a busy machine than the wall clock.
    run.cpu = cpuSeconds(service.child.pid!) - cpuBefore;
    // Planning happens after each commit, apart from the request: every trace gets its jobs.
    await until(async () => (await jobCounts(service, ruleIds)).every((jobs) => total(jobs) === SPANS / TRACE), 'jobs planned', 120_000);
    // Up to the last job planned: planning that waited for the ingest's end counts here (with a long
    // BENCH_RULE_DELAY no job runs, so this is the ingest and its planning; the stats' reads add a little).
    run.planned = cpuSeconds(service.child.pid!) - cpuBefore;
    return run;
  } finally {
    await service.stop();
  }
}

// (a) Ingest throughput with and without rules, alternating so that load weighs on both alike.
const ingest: { none: IngestRun[]; rules: IngestRun[] } = { none: [], rules: [] };
for (let round = 0; round < ROUNDS; round++) {
  ingest.none.push(await ingestRun(0));
  ingest.rules.push(await ingestRun(3));
}
const bestSeconds = (runs: ClientRun[]) => Math.min(...runs.map((run) => run.seconds));
const rate = (seconds: number) => SPANS / seconds;

// (b) Evaluation throughput: one rule, JOBS traces of one span, the judge 50 ms a call.
const service = await startService({ ...judgeEnv, ONLINE_EVALUATION_CONCURRENCY: String(CONCURRENCY) }, process.env.BENCH_DIST);
let window: number;
let judgeStats: { calls: number; maxInFlight: number };
let done: number;
let serviceCpu: number;
try {
  const [ruleId] = await addRules(service, 1);
  const cpuBefore = cpuSeconds(service.child.pid!);
  const callsBefore = ((await (await fetch(`${judgeUrl}/stats`)).json()) as { calls: number }).calls;
  await runOtlpClient(`${service.baseUrl}/v1/traces`, { spans: JOBS, batch: BATCH, trace: 1, concurrency: 4 });
  await until(
    async () => {
      const [jobs] = await jobCounts(service, [ruleId]);
      return total(jobs) === JOBS && jobs.PENDING + jobs.RUNNING === 0;
    },
    'jobs done',
    600_000,
  );
  serviceCpu = cpuSeconds(service.child.pid!) - cpuBefore;
  const [jobs] = await jobCounts(service, [ruleId]);
  done = jobs.DONE;
  // The window from the first job's creation to the last one's end, from the jobs themselves.
  const times: { created: number; finished: number }[] = [];
  let cursor: string | null = null;
  do {
    const page: { jobs: { created_at: string; finished_at: string }[]; next_cursor: string | null } = await call(
      service,
      'GET',
      `/evaluation-rules/${ruleId}/jobs?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    times.push(...page.jobs.map((job) => ({ created: Date.parse(job.created_at), finished: Date.parse(job.finished_at) })));
    cursor = page.next_cursor;
  } while (cursor);
  window = (Math.max(...times.map((t) => t.finished)) - Math.min(...times.map((t) => t.created))) / 1000;
  const after = (await (await fetch(`${judgeUrl}/stats`)).json()) as { calls: number; maxInFlight: number };
  judgeStats = { calls: after.calls - callsBefore, maxInFlight: after.maxInFlight };
} finally {
  await service.stop();
  judge.child.kill();
}

const none = bestSeconds(ingest.none);
const withRules = bestSeconds(ingest.rules);
const ideal = (JOBS * JUDGE_MS) / 1000 / CONCURRENCY;
const perSpan = (list: IngestRun[], figure: 'cpu' | 'planned' = 'cpu') => ((Math.min(...list.map((run) => run[figure])) / SPANS) * 1e6).toFixed(0);
const runs = (list: ClientRun[]) => list.map((run) => Math.round(rate(run.seconds))).join(', ');
console.log(`bench/online-evaluation on ${onPostgres ? 'PostgreSQL' : 'SQLite'}`);
if (ROUNDS > 0)
  console.log(
    `  (a) ingest of ${SPANS} spans (traces of ${TRACE}, OTLP/protobuf batches of ${BATCH}), best of ${ROUNDS} alternating runs: no rule ${Math.round(rate(none))} spans/s (runs: ${runs(ingest.none)}); three rules matching every trace ${Math.round(rate(withRules))} spans/s (runs: ${runs(ingest.rules)}); ratio ${(none / withRules).toFixed(3)} (aim ≥ 0.95); service CPU per span during the ingest: no rule ${perSpan(ingest.none)} µs, rules ${perSpan(ingest.rules)} µs; until every job was planned: no rule ${perSpan(ingest.none, 'planned')} µs, rules ${perSpan(ingest.rules, 'planned')} µs`,
  );
console.log(
  `  (b) ${JOBS} trace jobs, one rule, a ${JUDGE_MS} ms judge, ONLINE_EVALUATION_CONCURRENCY ${CONCURRENCY}: ${done} DONE in ${window.toFixed(2)} s = ${(JOBS / window).toFixed(1)} jobs/s; ideal ${ideal.toFixed(2)} s = ${(JOBS / ideal).toFixed(1)} jobs/s; window / ideal ${(window / ideal).toFixed(3)} (aim ≤ 1.2); judge calls ${judgeStats.calls}, at most ${judgeStats.maxInFlight} at once; service CPU ${serviceCpu.toFixed(2)} s (${((serviceCpu / JOBS) * 1000).toFixed(1)} ms a job)`,
);
