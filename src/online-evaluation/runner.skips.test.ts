// How online evaluation jobs are planned and why they are skipped (docs/online-evaluation.md#jobs):
// span, trace and session targets; a trace's delay running from its last span; every skip reason
// (sampled out, rule disabled, filter no longer matching after a new version, target deleted, cost
// limit, backlog full); a rule paused while its judge has no provider key; Assay's own calls never
// evaluated; no job starting while spans wait to be written. The evaluator is a regex config, which runs in-process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { sleep } from '../../test/helpers/endpoints.js';
import { createApp, createConfig } from '../../test/helpers/evaluations.js';
import { legacySpan } from '../../test/helpers/spans.js';
import { spanWriter } from '../observability/ingestion/span-writer.js';
import { requestContext } from '../shared/context.js';
import { sweepJobs } from './operations.js';
import { isSampled } from './sampling.js';

let server: TestServer;
let appId: string;
let regex: string;

beforeAll(async () => {
  server = await startServer({ EVALUATION_LEASE_SECONDS: '1', ONLINE_EVALUATION_BACKOFF_SECONDS: '0.1' });
  appId = await createApp(server);
  regex = (await createConfig(server, appId, 'auto_regex_test', { regex_pattern: 'Paris', regex_should_match: true }, 'paris')).id;
});

afterAll(async () => {
  await server?.close();
});

async function ingest(srv: TestServer, traceId: string, user: string, extra: Record<string, unknown> = {}, spans?: unknown[]) {
  const response = await srv.request('POST', '/observability/trace', {
    trace: traceId,
    spans: spans ?? [
      legacySpan(`${traceId}-root`, null, 0, 2, {
        spankind: 'workflow',
        environment: 'production',
        user,
        inputs: { q: 'capital of France' },
        outputs: { a: 'Paris' },
        ...extra,
      }),
      legacySpan(`${traceId}-llm`, `${traceId}-root`, 0.5, 1.5, {
        spankind: 'llm',
        environment: 'production',
        user,
        inputs: { p: 'x' },
        outputs: { t: 'Lyon' },
        ...extra,
      }),
    ],
  });
  expect(response.status, response.text).toBe(200);
}

async function rule(srv: TestServer, body: Record<string, unknown>): Promise<string> {
  const created = await srv.request('POST', '/evaluation-rules', { evaluator_config_id: regex, ...body });
  expect(created.status, created.text).toBe(200);
  return created.body.id;
}

async function jobs(srv: TestServer, ruleId: string): Promise<any[]> {
  return (await srv.request('GET', `/evaluation-rules/${ruleId}/jobs?limit=1000`)).body.jobs;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what}`);
    await sleep(100);
  }
}

const settled = (srv: TestServer, ruleId: string, count: number) =>
  until(async () => {
    const all = await jobs(srv, ruleId);
    return all.length >= count && all.every((job) => job.status !== 'PENDING' && job.status !== 'RUNNING');
  }, `jobs of ${ruleId}`).then(() => jobs(srv, ruleId));

describe('ingestion first', () => {
  it('starts no job while spans wait to be written, and runs it once they are', async () => {
    const id = await rule(server, { name: 'after ingestion', filter: { user_id: 'u-first' }, delay_seconds: 1 });
    // Writes held: an OTLP request's spans wait in the queue, as under a burst of ingestion.
    server.assay.services.spanQueue.pause();
    let waiting: Promise<void> | undefined;
    try {
      const now = BigInt(Date.now()) * 1_000_000n;
      const span = {
        traceId: 'f'.repeat(32),
        spanId: 'f'.repeat(16),
        name: 'other',
        kind: 1,
        startTimeUnixNano: String(now),
        endTimeUnixNano: String(now + 1000n),
      };
      waiting = server.request('POST', '/v1/traces', { resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans: [span] }] }] }).then((response) => {
        expect(response.status).toBe(200);
      });
      await until(() => Promise.resolve(server.assay.services.spanQueue.waitingSpans > 0), 'spans waiting');
      // A trace through the legacy route (written at once): its job's delay passes, it does not start
      // (nor is it planned yet: planning waits for ingestion too, up to 5 s, planner.ts).
      await ingest(server, 'first-trace', 'u-first');
      await sleep(2500);
      expect((await jobs(server, id)).filter((job) => job.status !== 'PENDING')).toEqual([]);
    } finally {
      server.assay.services.spanQueue.resume();
    }
    await waiting;
    const [job] = await settled(server, id, 1);
    expect(job.status).toBe('DONE');
  });
});

describe('targets', () => {
  it('evaluates each matching span once, with a span score', async () => {
    const id = await rule(server, { name: 'llm spans', target: 'span', filter: { user_id: 'u-span', spankind: ['LLM'] } });
    await ingest(server, 'span-trace', 'u-span');
    const [job] = await settled(server, id, 1);
    expect(job).toMatchObject({ target_type: 'span', trace_id: 'span-trace', span_id: 'span-trace-llm', status: 'DONE' });
    const score = (await server.request('GET', `/scores/${job.score_id}`)).body;
    expect(score).toMatchObject({
      target: 'span',
      trace_id: 'span-trace',
      span_id: 'span-trace-llm',
      name: 'paris',
      value: 0,
      data_type: 'BOOLEAN',
      source: 'online',
    });
    // Sent again (an exporter's retry), the span makes no second job.
    await ingest(server, 'span-trace', 'u-span');
    await sleep(300);
    expect(await jobs(server, id)).toHaveLength(1);
  });

  it('waits for a trace to be quiet for the delay, so a late span is seen', async () => {
    const id = await rule(server, { name: 'late spans', filter: { user_id: 'u-late' }, delay_seconds: 2, mapping: { output: '$.spans[2].output.t' } });
    await ingest(server, 'late-trace', 'u-late');
    await sleep(1000);
    const late = Date.now();
    await ingest(server, 'late-trace', 'u-late', {}, [
      legacySpan('late-trace-late', 'late-trace-root', 1.6, 1.9, { environment: 'production', user: 'u-late', outputs: { t: 'Paris, late' } }),
    ]);
    const [job] = await settled(server, id, 1);
    expect(job.status).toBe('DONE');
    expect(Date.parse(job.finished_at)).toBeGreaterThanOrEqual(late + 2000 - 50);
    // The late span (the third by start) is what the mapping read: it says Paris.
    expect((await server.request('GET', `/scores/${job.score_id}`)).body.value).toBe(1);
  });

  it('evaluates a session once for all its traces', async () => {
    const id = await rule(server, { name: 'sessions', target: 'session', filter: { user_id: 'u-session' }, mapping: { output: '$.traces[1].output.a' } });
    await ingest(server, 'session-a', 'u-session', { session_id: 'chat-1' });
    await ingest(server, 'session-b', 'u-session', { session_id: 'chat-1' });
    const all = await settled(server, id, 1);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ target_type: 'session', session_id: 'chat-1', trace_id: null, status: 'DONE' });
  });

  it("never evaluates Assay's own calls, even with no filter", async () => {
    const id = await rule(server, { name: 'everything' });
    await ingest(server, 'own-trace', 'u-own', { environment: 'assay-evaluation' });
    await ingest(server, 'visible-trace', 'u-own');
    await settled(server, id, 1);
    await sleep(300);
    expect((await jobs(server, id)).map((job) => job.trace_id)).not.toContain('own-trace');
    await server.request('PATCH', `/evaluation-rules/${id}`, { enabled: false });
  });
});

describe('sweeps', () => {
  it('plan what a process that died before planning left: spans stored without the hook get their job once', async () => {
    const id = await rule(server, { name: 'swept', filter: { user_id: 'u-swept' } });
    // Stored as a crash would leave them: committed, never planned.
    const ctx = requestContext(server.assay.services, (await server.assay.db.evaluationRule.findUniqueOrThrow({ where: { id } })).projectId);
    const store = await spanWriter(ctx);
    const now = BigInt(Date.now()) * 1_000_000n;
    await ctx.sql.transaction((tx) =>
      store(tx, [
        {
          traceId: 'swept-trace',
          spanId: 'swept-root',
          parentSpanId: null,
          name: 'root',
          spanKind: 'CHAIN',
          statusCode: 'OK',
          startTimeUnixNano: now,
          endTimeUnixNano: now + 1_000_000n,
          userId: 'u-swept',
          outputs: { a: 'Paris' },
          attributes: {},
        },
      ]),
    );
    await sleep(300);
    expect(await jobs(server, id)).toHaveLength(0);
    const settings = { maxPendingJobs: 1000 };
    expect(await sweepJobs(server.assay.services, new Date(Date.now() - 60_000), settings)).toBeGreaterThanOrEqual(1);
    expect(await sweepJobs(server.assay.services, new Date(Date.now() - 60_000), settings)).toBe(0);
    const [job] = await settled(server, id, 1);
    expect(job).toMatchObject({ trace_id: 'swept-trace', status: 'DONE' });
  });
});

describe('skips', () => {
  it('samples by the trace id: the skipped ones are exactly those the hash leaves out', async () => {
    const id = await rule(server, { name: 'sampled', filter: { user_id: 'u-sampled' }, sampling_rate: 0.3 });
    const ids = Array.from({ length: 20 }, (_, index) => `sampled-${index}`);
    for (const traceId of ids) await ingest(server, traceId, 'u-sampled');
    const all = await settled(server, id, 20);
    const skipped = all.filter((job) => job.status === 'SKIPPED').map((job) => job.trace_id);
    expect(all.every((job) => job.status === 'DONE' || job.skip_reason === 'sampled_out')).toBe(true);
    expect(skipped.sort()).toEqual(ids.filter((traceId) => !isSampled(traceId, 0.3)).sort());
  });

  it('skips the jobs of a rule disabled, changed so the target no longer matches, or whose trace was deleted, before they ran', async () => {
    const disabled = await rule(server, { name: 'to disable', filter: { user_id: 'u-skip' }, delay_seconds: 2 });
    const refiltered = await rule(server, { name: 'to refilter', filter: { user_id: 'u-skip' }, delay_seconds: 2 });
    const deleted = await rule(server, { name: 'trace deleted', filter: { user_id: 'u-deleted' }, delay_seconds: 2 });
    const capped = await rule(server, { name: 'no budget', filter: { user_id: 'u-skip' }, daily_cost_limit_usd: 0 });
    await ingest(server, 'skip-trace', 'u-skip');
    await ingest(server, 'deleted-trace', 'u-deleted');
    await until(async () => (await jobs(server, deleted)).length === 1 && (await jobs(server, refiltered)).length === 1, 'jobs planned');
    await server.request('PATCH', `/evaluation-rules/${disabled}`, { enabled: false });
    const patched = await server.request('PATCH', `/evaluation-rules/${refiltered}`, { filter: { user_id: 'someone-else' } });
    expect(patched.body.version).toBe(2);
    expect((await server.request('DELETE', '/observability/traces/deleted-trace')).status).toBe(204);
    expect((await settled(server, disabled, 1))[0]).toMatchObject({ status: 'SKIPPED', skip_reason: 'rule_disabled', score_id: null });
    expect((await settled(server, refiltered, 1))[0]).toMatchObject({ status: 'SKIPPED', skip_reason: 'filter_no_longer_matches', rule_version: 1 });
    expect((await settled(server, deleted, 1))[0]).toMatchObject({ status: 'SKIPPED', skip_reason: 'target_deleted' });
    expect((await settled(server, capped, 1))[0]).toMatchObject({ status: 'SKIPPED', skip_reason: 'cost_limit_reached' });
    const stats = (await server.request('GET', `/evaluation-rules/${capped}/stats`)).body;
    expect(stats.skipped).toMatchObject({ cost_limit_reached: 1, sampled_out: 0 });
    expect(stats.jobs).toMatchObject({ SKIPPED: 1, DONE: 0 });
  });

  it('pauses a rule whose judge has no provider key: its jobs wait and say why', async () => {
    const judge = await createConfig(server, appId, 'auto_ai_critique', { prompt_template: [{ role: 'user', content: 'Rate {prediction}' }] }, 'keyless judge');
    const id = await rule(server, { name: 'keyless', filter: { user_id: 'u-keyless' }, evaluator_config_id: judge.id });
    await ingest(server, 'keyless-trace', 'u-keyless');
    await until(async () => (await server.request('GET', `/evaluation-rules/${id}`)).body.status === 'paused', 'the rule paused');
    const got = (await server.request('GET', `/evaluation-rules/${id}`)).body;
    expect(got.paused_reason).toMatch(/OPENAI_API_KEY/);
    await until(async () => (await jobs(server, id))[0]?.error?.includes('paused') ?? false, 'the job says why it waits');
    const [job] = await jobs(server, id);
    expect(job).toMatchObject({ status: 'PENDING', attempts: 0 });
    expect(Date.parse(job.not_before)).toBeGreaterThan(Date.now() + 30_000);
    await server.request('PATCH', `/evaluation-rules/${id}`, { enabled: false });
  });
});

describe('a full backlog', () => {
  let small: TestServer;

  beforeAll(async () => {
    small = await startServer({ ONLINE_EVALUATION_MAX_PENDING_JOBS: '2' });
  });

  afterAll(async () => {
    await small?.close();
  });

  it('skips new jobs as backlog_full past the bound, and ingestion still succeeds', async () => {
    const app = await createApp(small);
    const config = (await createConfig(small, app, 'auto_regex_test', { regex_pattern: 'Paris', regex_should_match: true }, 'paris')).id;
    const created = await small.request('POST', '/evaluation-rules', { name: 'slow to start', evaluator_config_id: config, delay_seconds: 3600 });
    for (let index = 0; index < 5; index++) await ingest(small, `backlog-${index}`, 'u-backlog');
    await until(async () => (await jobs(small, created.body.id)).length === 5, 'five jobs planned');
    const all = await jobs(small, created.body.id);
    expect(all.filter((job) => job.status === 'PENDING')).toHaveLength(2);
    expect(all.filter((job) => job.skip_reason === 'backlog_full')).toHaveLength(3);
    expect((await small.request('GET', `/evaluation-rules/${created.body.id}/stats`)).body.skipped.backlog_full).toBe(3);
  });
});
