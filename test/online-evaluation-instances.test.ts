// Online evaluation on two instances sharing one PostgreSQL (docs/online-evaluation.md#jobs): a burst
// of traces ingested through both, their jobs shared through leases; one instance SIGKILLed mid-way
// (no shutdown work), the other takes its jobs over once their leases expire; every trace ends
// with exactly one online score.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeEndpoint, sleep, startFakeOpenAI } from './helpers/endpoints.js';
import { createApp, createConfig } from './helpers/evaluations.js';
import { type AssayProcess, startAssayProcess } from './helpers/process.js';
import { createTestDatabase, postgresServerUrl, type TestDatabase } from './helpers/server.js';
import { legacySpan } from './helpers/spans.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-online-'));
const TRACES = 40;
let database: TestDatabase;
let judge: FakeEndpoint;
const processes: AssayProcess[] = [];
let a: AssayProcess;
let b: AssayProcess;

const describeOnPostgres = describe.skipIf(!postgresServerUrl);

beforeAll(async () => {
  if (!postgresServerUrl) return;
  database = await createTestDatabase(dir);
  judge = await startFakeOpenAI(async () => {
    await sleep(150);
    return { content: '{"score": 5}', usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } };
  });
  const env = {
    ...database.env,
    OPENAI_API_KEY: 'sk-judge',
    OPENAI_BASE_URL: judge.url,
    EVALUATION_LEASE_SECONDS: '2',
    ONLINE_EVALUATION_CONCURRENCY: '3',
    ONLINE_EVALUATION_BACKOFF_SECONDS: '0.2',
    OTLP_GRPC_PORT: '0',
    ASSAY_OUTBOUND_ALLOW: '127.0.0.1',
  };
  // One after the other: the first applies the migrations.
  a = await startAssayProcess(dir, env);
  processes.push(a);
  b = await startAssayProcess(dir, env);
  processes.push(b);
}, 60_000);

afterAll(async () => {
  for (const started of processes) await started.kill();
  await judge?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function count(sql: string): Promise<number> {
  const [row] = await database.query<{ n: number | string }>(sql);
  return Number(row.n);
}

describeOnPostgres('online evaluation on two instances', () => {
  it('scores each trace of a burst exactly once, though one instance is killed mid-way', { timeout: 90_000 }, async () => {
    const appId = await createApp(a);
    const config = await createConfig(a, appId, 'auto_ai_critique', { prompt_template: [{ role: 'user', content: 'Rate {prediction}' }] }, 'judge');
    const rule = await a.request('POST', '/evaluation-rules', { name: 'burst', evaluator_config_id: config.id });
    expect(rule.status, rule.text).toBe(200);
    for (let index = 0; index < TRACES; index++) {
      const server = index % 2 === 0 ? a : b;
      const response = await server.request('POST', '/observability/trace', {
        trace: `burst-${index}`,
        spans: [legacySpan(`burst-${index}`, null, 0, 1, { inputs: { q: `question ${index}` }, outputs: { a: `answer ${index}` } })],
      });
      expect(response.status).toBe(200);
    }
    const jobs = `SELECT COUNT(*) AS n FROM "EvaluationRuleJob"`;
    const done = `SELECT COUNT(*) AS n FROM "EvaluationRuleJob" WHERE "status" = 'DONE'`;
    let end = Date.now() + 20_000;
    while ((await count(jobs)) < TRACES || (await count(done)) < 8) {
      if (Date.now() > end) throw new Error(`jobs: ${await count(jobs)}, done: ${await count(done)}`);
      await sleep(50);
    }
    // A crash: whatever A holds stays RUNNING with its lease until the lease expires.
    await a.kill();
    end = Date.now() + 60_000;
    while ((await count(done)) < TRACES) {
      if (Date.now() > end) throw new Error(`only ${await count(done)} of ${TRACES} jobs done after A died`);
      await sleep(100);
    }
    expect(await count(`SELECT COUNT(*) AS n FROM "EvaluationRuleJob" WHERE "status" <> 'DONE'`)).toBe(0);
    const scores = await database.query<{ traceId: string; n: number | string }>(
      `SELECT "traceId", COUNT(*) AS n FROM "Score" WHERE "source" = 'online' GROUP BY "traceId"`,
    );
    expect(scores).toHaveLength(TRACES);
    expect(scores.every((row) => Number(row.n) === 1)).toBe(true);
    // Each job keeps the trace of its judge's call, one trace each.
    expect(await count(`SELECT COUNT(DISTINCT "judgeTraceId") AS n FROM "EvaluationRuleJob"`)).toBe(TRACES);
  });
});
