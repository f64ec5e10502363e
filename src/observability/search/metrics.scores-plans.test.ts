// The score figures over many traces (docs/scores.md#in-the-trace-list): from SCORES_FIRST_FROM
// matching traces on, SQLite walks the names' scores instead of each trace's; both ways, and
// PostgreSQL's, give the same summaries and chart means as the scores worked out here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/helpers/server.js';
import { upsertScores } from '../../scores/operations.js';
import type { ScoreInput } from '../../scores/inputs.js';
import { SCORES_FIRST_FROM } from '../../scores/trace-search.js';
import { requestContext } from '../../shared/context.js';

let server: TestServer;
const TRACES = SCORES_FIRST_FROM + 100;
const hex = (n: number, digits: number) => n.toString(16).padStart(digits, '0');
const start = 1_795_000_000_000_000_000n;
// Trace i: one span, i seconds after the first, user "even" or "odd"; quality i % 10 / 10 on
// every trace, thumbs up on every third.
const quality = (i: number) => (i % 10) / 10;

beforeAll(async () => {
  server = await startServer({ OTLP_GRPC_PORT: '0' });
  const spans = Array.from({ length: TRACES }, (_, i) => ({
    traceId: hex(i + 1, 32),
    spanId: hex(i + 1, 16),
    name: 'answer',
    kind: 1,
    startTimeUnixNano: String(start + BigInt(i) * 1_000_000_000n),
    endTimeUnixNano: String(start + BigInt(i) * 1_000_000_000n + 500_000_000n),
    attributes: [{ key: 'user.id', value: { stringValue: i % 2 === 0 ? 'even' : 'odd' } }],
  }));
  const response = await server.request('POST', '/v1/traces', { resourceSpans: [{ scopeSpans: [{ spans }] }] });
  expect(response.status, response.text).toBe(200);
  const ctx = requestContext(server.assay.services, (await server.assay.db.project.findFirstOrThrow()).id);
  const scores: ScoreInput[] = spans.flatMap((span, i) => [
    { trace_id: span.traceId, name: 'quality', value: quality(i) },
    ...(i % 3 === 0 ? [{ trace_id: span.traceId, name: 'thumbs', value: true }] : []),
  ]);
  for (let i = 0; i < scores.length; i += 1000) await upsertScores(ctx, scores.slice(i, i + 1000));
}, 60_000);

afterAll(async () => {
  await server.close();
});

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

describe('score figures over many traces', () => {
  it('sums up every trace (scores first) and a few (traces first) alike', async () => {
    const query = `query ($userId: String, $after: DateTime) {
      scoreSummary(names: ["quality", "thumbs"], userId: $userId, startedAfter: $after) { name count mean }
      traceSeries(buckets: 1, scoreNames: ["quality"], userId: $userId, startedAfter: $after) { count scores { name count mean } } }`;
    const all = Array.from({ length: TRACES }, (_, i) => i);
    const few = all.slice(-50);
    for (const [variables, traces] of [
      [{}, all],
      [{ userId: 'even' }, all.filter((i) => i % 2 === 0)],
      [{ after: new Date(Number((start + BigInt(TRACES - 50) * 1_000_000_000n) / 1_000_000n)).toISOString() }, few],
    ] as const) {
      const { data, errors } = await server.graphql(query, variables);
      expect(errors).toBeUndefined();
      const [qualitySummary, thumbs] = data.scoreSummary;
      expect(qualitySummary.count).toBe(traces.length);
      expect(qualitySummary.mean).toBeCloseTo(mean(traces.map(quality)), 9);
      expect(thumbs.count).toBe(traces.filter((i) => i % 3 === 0).length);
      expect(data.traceSeries[0].count).toBe(traces.length);
      expect(data.traceSeries[0].scores[0].count).toBe(traces.length);
      expect(data.traceSeries[0].scores[0].mean).toBeCloseTo(mean(traces.map(quality)), 9);
    }
  });

  it("puts each trace's scores in the chart interval its count is in", async () => {
    // Every trace has one quality score: each interval's score count is its trace count, whether
    // the counts come from the request's read (SQLite) or SQL, and the scores' intervals from SQL.
    const { data, errors } = await server.graphql(`{ traceSeries(buckets: 37, scoreNames: ["quality"]) { count scores { count mean } } }`);
    expect(errors).toBeUndefined();
    expect(data.traceSeries).toHaveLength(37);
    expect(data.traceSeries.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0)).toBe(TRACES);
    for (const bucket of data.traceSeries) expect(bucket.scores[0]?.count ?? 0).toBe(bucket.count);
  });
});
