// The `evaluationRuleProgress` subscription (progress.ts) over GraphQL's SSE stream on a real
// port: the rule now, then its stats as live traces are planned and scored, a backfill's progress
// to its end, a disable, and the end of the stream when the rule is deleted; and the rule's cost
// by day, which the rule page charts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { createApp, createConfig } from '../../test/helpers/evaluations.js';
import { subscribe } from '../../test/helpers/sse.js';
import { at, legacySpan } from '../../test/helpers/spans.js';
import { globalId } from '../shared/graphql/ids.js';

let server: TestServer;
let configId: string;

const progressQuery = `subscription($id: ID!) { evaluationRuleProgress(id: $id) {
  enabled stats { jobs { status count } skipped { reason count } costUsd } backfills { status total done } } }`;

const countOf = (payload: any, status: string) => payload.data.evaluationRuleProgress.stats.jobs.find((row: any) => row.status === status).count as number;

beforeAll(async () => {
  server = await startServer({ EVALUATION_LEASE_SECONDS: '1' });
  const appId = await createApp(server);
  configId = (await createConfig(server, appId, 'auto_regex_test', { regex_pattern: 'Paris', regex_should_match: true }, 'paris')).id;
});

afterAll(async () => {
  await server?.close();
});

const ingest = async (trace: string, start: number, output: string) => {
  const response = await server.request('POST', '/observability/trace', {
    trace,
    spans: [legacySpan(trace, null, start, start + 1, { environment: 'production', outputs: { answer: output } })],
  });
  expect(response.status).toBe(200);
};

describe('evaluationRuleProgress', () => {
  it('answers the rule now, then its stats as jobs are planned and end, and a backfill to its end', async () => {
    // Two traces before the rule: only a backfill reaches them.
    await ingest('before-1', 0, 'Paris');
    await ingest('before-2', 60, 'Lyon');
    const rule = (await server.request('POST', '/evaluation-rules', { name: 'followed', evaluator_config_id: configId, filter: { environment: 'production' } }))
      .body;
    const id = globalId('EvaluationRule', rule.id);
    const stream = await subscribe(server.baseUrl, progressQuery, { id });
    try {
      const first = await stream.next();
      expect(first.data.evaluationRuleProgress).toMatchObject({ enabled: true, backfills: [], stats: { costUsd: 0 } });
      expect(countOf(first, 'DONE')).toBe(0);

      // Live traces: their jobs are planned and run, and the stream shows them done.
      await ingest('live-1', 120, 'Paris');
      await ingest('live-2', 180, 'Rome');
      await stream.until((payload) => countOf(payload, 'DONE') === 2);

      const started = await server.graphql(
        `mutation($id: ID!, $after: DateTime!, $before: DateTime!) { backfillEvaluationRule(id: $id, startedAfter: $after, startedBefore: $before) { id } }`,
        { id, after: at(0), before: at(90) },
      );
      expect(started.errors).toBeUndefined();
      const ended = await stream.until((payload) => payload.data.evaluationRuleProgress.backfills[0]?.status === 'DONE' && countOf(payload, 'DONE') === 4);
      expect(ended.data.evaluationRuleProgress.backfills).toEqual([{ status: 'DONE', total: 2, done: 2 }]);
      expect(countOf(ended, 'ERROR') + countOf(ended, 'PENDING') + countOf(ended, 'RUNNING')).toBe(0);

      // The cost chart's days: today last, holding the four jobs that ended (a regex costs nothing).
      const days = await server.graphql(`query($id: ID!) { node(id: $id) { ... on EvaluationRule { costByDay(days: 3) { day costUsd jobs } } } }`, { id });
      expect(days.errors).toBeUndefined();
      const today = new Date();
      today.setUTCHours(0, 0, 0, 0);
      expect(days.data.node.costByDay.map((day: any) => day.jobs)).toEqual([0, 0, 4]);
      expect(days.data.node.costByDay.at(-1)).toEqual({ day: today.toISOString(), costUsd: 0, jobs: 4 });
      const bad = await server.graphql(`query($id: ID!) { node(id: $id) { ... on EvaluationRule { costByDay(days: 0) { day } } } }`, { id });
      expect(bad.errors[0].extensions.detail[0].loc).toEqual(['args', 'days']);

      expect((await server.request('PATCH', `/evaluation-rules/${rule.id}`, { enabled: false })).status).toBe(200);
      await stream.until((payload) => payload.data.evaluationRuleProgress.enabled === false);

      // Deleting the rule ends the stream.
      expect((await server.request('DELETE', `/evaluation-rules/${rule.id}`)).status).toBe(204);
      for (let payload = await stream.next(); payload !== null; payload = await stream.next()) expect(payload.data.evaluationRuleProgress).toBeTruthy();
    } finally {
      stream.close();
    }
  });

  it('answers NOT_FOUND for an unknown rule', async () => {
    const stream = await subscribe(server.baseUrl, progressQuery, { id: globalId('EvaluationRule', 'nope') });
    try {
      const payload = await stream.next();
      expect(payload.errors[0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    } finally {
      stream.close();
    }
  });
});
