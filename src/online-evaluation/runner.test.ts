// Online evaluation end to end: traces ingested over HTTP, jobs planned after the commit and run
// against a local OpenAI-compatible judge that answers slowly, 429 with Retry-After (a storm that
// passes), 500 for good, a reply without a score, or never. Each job ends as
// docs/online-evaluation.md#jobs says, a hung call holds up no other job, and results are scores
// of source "online" with the judge's trace in Assay's own environment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { type FakeEndpoint, sleep, startFakeOpenAI } from '../../test/helpers/endpoints.js';
import { createApp, createConfig } from '../../test/helpers/evaluations.js';
import { legacySpan } from '../../test/helpers/spans.js';

let server: TestServer;
let judge: FakeEndpoint;
let storm = 0;
const hung: (() => void)[] = [];

const usage = { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 };

beforeAll(async () => {
  judge = await startFakeOpenAI(async (body) => {
    const text: string = body.messages.at(-1).content;
    if (text.includes('mode-slow')) {
      await sleep(300);
      return { content: '{"score": 7}', usage };
    }
    if (text.includes('mode-storm')) {
      storm += 1;
      if (storm <= 4) return { status: 429, content: 'slow down', headers: { 'retry-after': '0.2' } };
      return { content: 'Score: 9', usage };
    }
    if (text.includes('mode-broken')) return { status: 500, content: 'internal error' };
    if (text.includes('mode-malformed')) return { content: 'I would rather not say', usage };
    if (text.includes('mode-hang')) {
      // Never answers on its own; released when the test ends.
      await new Promise<void>((resolve) => hung.push(resolve));
      return { content: '1', usage };
    }
    return { content: '{"score": 8}', usage };
  });
  server = await startServer({
    OPENAI_API_KEY: 'sk-judge',
    OPENAI_BASE_URL: judge.url,
    ONLINE_EVALUATION_TIMEOUT_SECONDS: '1',
    ONLINE_EVALUATION_BACKOFF_SECONDS: '0.1',
    ONLINE_EVALUATION_RETRY_DEADLINE_SECONDS: '6',
    ONLINE_EVALUATION_MAX_ATTEMPTS: '2',
    EVALUATION_LEASE_SECONDS: '1',
  });
});

afterAll(async () => {
  for (const release of hung) release();
  await server?.close();
  await judge?.close();
});

const prompt = [
  { role: 'system', content: 'Rate the answer from 0 to 10.' },
  { role: 'user', content: 'Question: {question}\nAnswer: {prediction}' },
];

async function ingest(traceId: string, question: string, environment = 'production') {
  const response = await server.request('POST', '/observability/trace', {
    trace: traceId,
    spans: [
      legacySpan(`${traceId}-root`, null, 0, 2, { spankind: 'workflow', environment, inputs: { question }, outputs: { answer: `answer to ${question}` } }),
      legacySpan(`${traceId}-llm`, `${traceId}-root`, 0.5, 1.5, { spankind: 'llm', environment }),
    ],
  });
  expect(response.status).toBe(200);
}

async function jobsOf(ruleId: string): Promise<any[]> {
  const response = await server.request('GET', `/evaluation-rules/${ruleId}/jobs?limit=1000`);
  expect(response.status).toBe(200);
  return response.body.jobs;
}

async function settled(ruleId: string, count: number, timeoutMs = 45_000): Promise<any[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const jobs = await jobsOf(ruleId);
    if (jobs.length >= count && jobs.every((job) => job.status !== 'PENDING' && job.status !== 'RUNNING')) return jobs;
    if (Date.now() > until) throw new Error(`jobs not settled: ${JSON.stringify(jobs.map((job) => [job.trace_id, job.status, job.error]))}`);
    await sleep(200);
  }
}

describe('online evaluation jobs against a judge that misbehaves', () => {
  let ruleId: string;
  const byTrace = (jobs: any[]) => Object.fromEntries(jobs.map((job) => [job.trace_id, job]));

  it('scores each matching trace once, whatever the judge does, and ends every job DONE or ERROR with a reason', async () => {
    const appId = await createApp(server);
    const config = await createConfig(server, appId, 'auto_ai_critique', { prompt_template: prompt }, 'helpfulness');
    const created = await server.request('POST', '/evaluation-rules', {
      name: 'production helpfulness',
      target: 'trace',
      filter: { environment: 'production' },
      evaluator_config_id: config.id,
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'production helpfulness',
      enabled: true,
      target: 'trace',
      sampling_rate: 1,
      score_name: 'helpfulness',
      status: 'active',
    });
    ruleId = created.body.id;

    for (const mode of ['ok', 'slow', 'storm', 'broken', 'malformed', 'hang']) await ingest(`t-${mode}`, `mode-${mode}`);
    await ingest('t-staging', 'mode-ok', 'staging');
    await ingest('t-own', 'mode-ok', 'assay-evaluation');

    // While the hung call holds one job, the others run and end.
    const until = Date.now() + 20_000;
    for (;;) {
      const jobs = byTrace(await jobsOf(ruleId));
      if (['t-ok', 't-slow', 't-storm'].every((id) => jobs[id]?.status === 'DONE')) {
        expect(jobs['t-hang'].status).not.toBe('ERROR');
        break;
      }
      if (Date.now() > until) throw new Error(`the healthy jobs did not end: ${JSON.stringify(jobs)}`);
      await sleep(200);
    }

    const jobs = byTrace(await settled(ruleId, 6));
    // The staging trace does not match; Assay's own calls never do.
    expect(Object.keys(jobs).sort()).toEqual(['t-broken', 't-hang', 't-malformed', 't-ok', 't-slow', 't-storm']);
    for (const id of ['t-ok', 't-slow', 't-storm']) {
      expect(jobs[id]).toMatchObject({ status: 'DONE', skip_reason: null, error: null, attempts: 0, target_type: 'trace' });
      expect(jobs[id].score_id).toBe(`online:${jobs[id].id}`);
      expect(jobs[id].cost).toBeGreaterThan(0);
    }
    // The 429 storm used no attempt: it waited (Retry-After) and retried until the judge recovered.
    expect(jobs['t-storm'].retries).toBeGreaterThanOrEqual(4);
    // A reply without a score is a failure of the evaluator: a few attempts, then ERROR.
    expect(jobs['t-malformed']).toMatchObject({ status: 'ERROR', attempts: 2 });
    expect(jobs['t-malformed'].error).toMatch(/score/i);
    // 500s and timeouts are transient: retried for free until the deadline, then ERROR saying so.
    expect(jobs['t-broken']).toMatchObject({ status: 'ERROR', attempts: 0 });
    expect(jobs['t-broken'].retries).toBeGreaterThan(0);
    expect(jobs['t-broken'].error).toMatch(/500|internal error/);
    expect(jobs['t-broken'].error).toMatch(/retries stopped/);
    expect(jobs['t-hang']).toMatchObject({ status: 'ERROR', attempts: 0 });
    expect(jobs['t-hang'].error).toMatch(/did not answer within 1 s/);
  }, 90_000);

  it('writes scores of source online carrying the rule, the job and the judge trace', async () => {
    const jobs = byTrace(await jobsOf(ruleId));
    const scores = (await server.request('GET', '/scores?limit=100')).body.scores.filter((score: any) => score.source === 'online');
    expect(scores).toHaveLength(3);
    const ok = scores.find((score: any) => score.trace_id === 't-ok');
    expect(ok).toMatchObject({ target: 'trace', name: 'helpfulness', value: 8, data_type: 'NUMERIC', source: 'online', author: { type: 'system' } });
    expect(ok.metadata).toMatchObject({ rule_id: ruleId, job_id: jobs['t-ok'].id, judge_trace_id: jobs['t-ok'].judge_trace_id });
    // The judge's call is traced in Assay's own environment, where no rule looks.
    const judgeTrace = await server.assay.db.trace.findFirst({ where: { traceId: jobs['t-ok'].judge_trace_id } });
    expect(judgeTrace).toMatchObject({ environment: 'assay-evaluation' });
    const calls = await server.assay.db.span.findMany({ where: { traceId: jobs['t-ok'].judge_trace_id, spanKind: 'LLM' } });
    expect(calls).toHaveLength(1);
    expect(JSON.stringify(calls[0].inputs)).toContain('mode-ok');
  });

  it('reports stats by status with the cost and the last errors', async () => {
    const stats = (await server.request('GET', `/evaluation-rules/${ruleId}/stats`)).body;
    expect(stats.jobs).toEqual({ PENDING: 0, RUNNING: 0, DONE: 3, ERROR: 3, SKIPPED: 0 });
    expect(stats.cost_usd).toBeGreaterThan(0);
    expect(stats.cost_today_usd).toBeCloseTo(stats.cost_usd);
    expect(stats.latency_p50).toBeGreaterThan(0);
    expect(stats.latency_p95).toBeGreaterThanOrEqual(stats.latency_p50);
    expect(stats.last_errors).toHaveLength(3);
    expect(stats.status).toBe('active');
  });

  it('lists jobs by status, a page at a time', async () => {
    const errors = await server.request('GET', `/evaluation-rules/${ruleId}/jobs?status=ERROR&limit=2`);
    expect(errors.body.jobs).toHaveLength(2);
    expect(errors.body.jobs.every((job: any) => job.status === 'ERROR')).toBe(true);
    const rest = await server.request('GET', `/evaluation-rules/${ruleId}/jobs?status=ERROR&limit=2&cursor=${errors.body.next_cursor}`);
    expect(rest.body).toMatchObject({ next_cursor: null });
    expect(rest.body.jobs).toHaveLength(1);
    expect((await server.request('GET', `/evaluation-rules/${ruleId}/jobs?status=LOST`)).status).toBe(422);
  });
});
