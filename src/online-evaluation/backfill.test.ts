// Backfills (docs/online-evaluation.md#backfills): a rule run over traces that arrived before it,
// in a time range, up to a limit, with progress; a second backfill over the same range plans no
// target twice; a cancelled one stops; a 422 names each bad field and other ids are 404s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { sleep } from '../../test/helpers/endpoints.js';
import { createApp, createConfig } from '../../test/helpers/evaluations.js';
import { at, legacySpan } from '../../test/helpers/spans.js';

let server: TestServer;
let ruleId: string;

beforeAll(async () => {
  server = await startServer({ EVALUATION_LEASE_SECONDS: '1' });
  const appId = await createApp(server);
  const config = await createConfig(server, appId, 'auto_regex_test', { regex_pattern: 'Paris', regex_should_match: true }, 'paris');
  // 30 traces a minute apart, before the rule exists: live planning never sees them.
  for (let index = 0; index < 30; index++) {
    const response = await server.request('POST', '/observability/trace', {
      trace: `old-${String(index).padStart(2, '0')}`,
      spans: [legacySpan(`old-${index}`, null, index * 60, index * 60 + 1, { environment: 'production', outputs: { a: 'Paris' } })],
    });
    expect(response.status).toBe(200);
  }
  const created = await server.request('POST', '/evaluation-rules', {
    name: 'backfilled',
    evaluator_config_id: config.id,
    filter: { environment: 'production' },
  });
  ruleId = created.body.id;
});

afterAll(async () => {
  await server?.close();
});

async function finished(backfillId: string): Promise<any> {
  const end = Date.now() + 30_000;
  for (;;) {
    const backfill = (await server.request('GET', `/evaluation-rules/${ruleId}/backfills/${backfillId}`)).body;
    if (!['PENDING', 'RUNNING'].includes(backfill.status)) return backfill;
    if (Date.now() > end) throw new Error(`backfill not finished: ${JSON.stringify(backfill)}`);
    await sleep(100);
  }
}

const jobs = async () => (await server.request('GET', `/evaluation-rules/${ruleId}/jobs?limit=1000`)).body.jobs as any[];

describe('POST /evaluation-rules/{id}/backfill', () => {
  it('plans the jobs of the range up to its limit, which then run', async () => {
    expect(await jobs()).toHaveLength(0);
    const started = await server.request('POST', `/evaluation-rules/${ruleId}/backfill`, { started_after: at(0), started_before: at(20 * 60), limit: 15 });
    expect(started.status, started.text).toBe(200);
    expect(started.body).toMatchObject({ rule_id: ruleId, limit: 15, done: 0 });
    const backfill = await finished(started.body.id);
    expect(backfill).toMatchObject({ status: 'DONE', total: 15, done: 15, error: null });
    const planned = await jobs();
    // The first 15 traces of the range, in start order.
    expect(planned.map((job) => job.trace_id).sort()).toEqual(Array.from({ length: 15 }, (_, index) => `old-${String(index).padStart(2, '0')}`));
    const end = Date.now() + 30_000;
    while ((await jobs()).some((job) => job.status !== 'DONE')) {
      if (Date.now() > end) throw new Error('backfilled jobs did not run');
      await sleep(100);
    }
  });

  it('plans no target twice: a second backfill over the range adds only what the first left', async () => {
    const started = await server.request('POST', `/evaluation-rules/${ruleId}/backfill`, { started_after: at(0), started_before: at(40 * 60) });
    const backfill = await finished(started.body.id);
    expect(backfill).toMatchObject({ status: 'DONE', total: 30, done: 15, limit: 50000 });
    const planned = await jobs();
    expect(planned).toHaveLength(30);
    expect(new Set(planned.map((job) => job.trace_id)).size).toBe(30);
  });

  it('cancels a backfill, and refuses bad ranges and limits naming the field', async () => {
    const started = await server.request('POST', `/evaluation-rules/${ruleId}/backfill`, { started_after: at(0), started_before: at(40 * 60) });
    const cancelled = await server.request('POST', `/evaluation-rules/${ruleId}/backfills/${started.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(['CANCELLED', 'DONE']).toContain(cancelled.body.status);
    expect((await finished(started.body.id)).status).toBe(cancelled.body.status);
    for (const [body, loc] of [
      [{ started_after: at(10), started_before: at(0) }, ['body', 'started_before']],
      [{ started_after: 'yesterday', started_before: at(0) }, ['body', 'started_after']],
      [{ started_after: at(0), started_before: at(10), limit: 50_001 }, ['body', 'limit']],
      [{ started_after: at(0), started_before: at(10), limit: 0 }, ['body', 'limit']],
    ] as const) {
      const response = await server.request('POST', `/evaluation-rules/${ruleId}/backfill`, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail.map((issue: any) => issue.loc)).toContainEqual(loc);
    }
    expect((await server.request('GET', `/evaluation-rules/${ruleId}/backfills/no-such-backfill`)).status).toBe(404);
    expect((await server.request('POST', `/evaluation-rules/no-such-rule/backfill`, { started_after: at(0), started_before: at(10) })).status).toBe(404);
  });

  it('runs and reads backfills through GraphQL too', async () => {
    const id = Buffer.from(`EvaluationRule:${ruleId}`).toString('base64');
    const started = await server.graphql(
      `mutation($id: ID!) { backfillEvaluationRule(id: $id, startedAfter: "${at(0)}", startedBefore: "${at(600)}", limit: 3) { id databaseId status limit } }`,
      { id },
    );
    expect(started.errors).toBeUndefined();
    expect(started.data.backfillEvaluationRule).toMatchObject({ limit: 3 });
    await finished(started.data.backfillEvaluationRule.databaseId);
    const read = await server.graphql(`query($id: ID!) { node(id: $id) { ... on EvaluationRule { backfills { databaseId status total done } } } }`, { id });
    expect(read.data.node.backfills[0]).toMatchObject({ databaseId: started.data.backfillEvaluationRule.databaseId, status: 'DONE', total: 3, done: 0 });
    const bad = await server.graphql(
      `mutation($id: ID!) { backfillEvaluationRule(id: $id, startedAfter: "${at(0)}", startedBefore: "${at(600)}", limit: 0) { id } }`,
      { id },
    );
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
