// The trace list by score and by model (docs/scores.md#in-the-trace-list,
// docs/observability.md#roll-ups): each score filter over REST and GraphQL, scores written before
// their trace and after it, the score columns, the summaries with their intervals worked out by
// hand, the chart's score means, the TraceModel roll-up kept when a span changes, and the 422s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/helpers/server.js';
import { legacySpan } from '../../../test/helpers/spans.js';
import { upsertScores } from '../../scores/operations.js';
import type { ScoreInput } from '../../scores/inputs.js';
import { requestContext, type RequestContext } from '../../shared/context.js';

let server: TestServer;
let ctx: RequestContext;

const models = ['gpt-4o-mini-2024-07-18', 'gpt-4o', 'claude-3-5-haiku', 'GPT-4o', null, 'gpt-4o-mini'];

async function ingest(trace: string, minute: number, model: string | null, extra: Record<string, unknown>[] = []) {
  const spans = [
    legacySpan(`${trace}-root`, null, minute * 60, minute * 60 + 1, { name: 'answer', spankind: 'workflow' }),
    legacySpan(`${trace}-llm`, `${trace}-root`, minute * 60, minute * 60 + 0.5, { name: 'chat', spankind: 'llm', ...(model ? { config: { model } } : {}) }),
    ...extra,
  ];
  const response = await server.request('POST', '/observability/trace', { trace, spans });
  expect(response.status).toBe(200);
}

const score = (trace_id: string, name: string, value: ScoreInput['value'], more: Partial<ScoreInput> = {}): ScoreInput => ({ trace_id, name, value, ...more });

// t0 … t5 a minute apart, t5 with a second LLM span on claude. Scores: quality (NUMERIC) on t0–t3
// and on a span of t2; thumbs (BOOLEAN) on t0–t2; topic (CATEGORICAL) on t0, t1, t3. The trace
// "late" gets its score before it arrives; t4 gets one after.
beforeAll(async () => {
  server = await startServer();
  ctx = requestContext(server.assay.services, (await server.assay.db.project.findFirstOrThrow()).id);
  await upsertScores(ctx, [score('late', 'feedback', 1)]);
  for (const [i, model] of models.entries()) {
    const extra = i === 5 ? [legacySpan('t5-llm2', 't5-root', 300.2, 300.4, { name: 'chat', spankind: 'llm', config: { model: 'claude-3-5-haiku' } })] : [];
    await ingest(`t${i}`, i, model, extra);
  }
  await ingest('late', 6, null);
  await upsertScores(ctx, [
    score('t0', 'quality', 0.9),
    score('t1', 'quality', 0.4),
    score('t2', 'quality', 0.7),
    score('t3', 'quality', 0.2),
    score('t2', 'quality', 0.5, { span_id: 't2-llm' }),
    score('t0', 'thumbs', true),
    score('t1', 'thumbs', false),
    score('t2', 'thumbs', true),
    score('t0', 'topic', 'billing'),
    score('t1', 'topic', 'shipping'),
    score('t3', 'topic', 'billing'),
    score('t4', 'feedback', 0),
  ]);
});

afterAll(async () => {
  await server.close();
});

const list = async (query: string) => {
  const response = await server.request('GET', `/observability/traces?${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body.traces.map((trace: { trace_id: string }) => trace.trace_id);
};
const byScores = (filters: unknown[]) => list(`scores=${encodeURIComponent(JSON.stringify(filters))}`);

describe('score filters', () => {
  it('a numeric range, a boolean, categories and presence, over REST', async () => {
    expect(await byScores([{ name: 'quality', min: 0.5 }])).toEqual(['t2', 't0']);
    // t2's span has 0.5: a score of the trace's spans counts for the trace.
    expect(await byScores([{ name: 'quality', min: 0.45, max: 0.6 }])).toEqual(['t2']);
    expect(await byScores([{ name: 'quality', max: 0.4 }])).toEqual(['t3', 't1']);
    expect(await byScores([{ name: 'thumbs', value: true }])).toEqual(['t2', 't0']);
    expect(await byScores([{ name: 'thumbs', value: false }])).toEqual(['t1']);
    expect(await byScores([{ name: 'topic', any_of: ['billing'] }])).toEqual(['t3', 't0']);
    expect(await byScores([{ name: 'topic', any_of: ['billing', 'shipping'] }])).toEqual(['t3', 't1', 't0']);
    expect(await byScores([{ name: 'quality', present: true }])).toEqual(['t3', 't2', 't1', 't0']);
    expect(await byScores([{ name: 'quality', present: false }])).toEqual(['late', 't5', 't4']);
    expect(await byScores([{ name: 'nobody-scores-this', present: true }])).toEqual([]);
    // All of them at once, and with the other filters.
    expect(
      await byScores([
        { name: 'quality', min: 0.5 },
        { name: 'thumbs', value: true },
        { name: 'topic', present: false },
      ]),
    ).toEqual(['t2']);
    expect(await list(`model=gpt-4o&scores=${encodeURIComponent(JSON.stringify([{ name: 'thumbs', present: true }]))}`)).toEqual(['t1', 't0']);
  });

  it('finds a score written before its trace and one written after', async () => {
    expect(await byScores([{ name: 'feedback', present: true }])).toEqual(['late', 't4']);
    expect(await byScores([{ name: 'feedback', min: 1 }])).toEqual(['late']);
  });

  it('applies to metrics and to spans (those of the matching traces)', async () => {
    const query = `scores=${encodeURIComponent(JSON.stringify([{ name: 'thumbs', value: true }]))}`;
    expect((await server.request('GET', `/observability/metrics?${query}`)).body.count).toBe(2);
    const spans = (await server.request('GET', `/observability/spans?${query}`)).body.spans;
    expect(spans.map((span: { id: string }) => span.id).sort()).toEqual(['t0-llm', 't0-root', 't2-llm', 't2-root']);
  });

  it('the same filters over GraphQL, with each trace’s score columns', async () => {
    const { data, errors } = await server.graphql(
      `query ($scores: [ScoreFilter!]) { traces(scores: $scores) { edges { node { traceId
        scoreValues(names: ["quality", "topic", "missing", "thumbs"]) { name dataType count mean value stringValue } } } } }`,
      {
        scores: [
          { name: 'topic', anyOf: ['billing', 'shipping'] },
          { name: 'thumbs', present: true },
        ],
      },
    );
    expect(errors).toBeUndefined();
    expect(data.traces.edges.map((edge: any) => edge.node)).toEqual([
      {
        traceId: 't1',
        scoreValues: [
          { name: 'quality', dataType: 'NUMERIC', count: 1, mean: 0.4, value: 0.4, stringValue: null },
          { name: 'topic', dataType: 'CATEGORICAL', count: 1, mean: null, value: null, stringValue: 'shipping' },
          { name: 'thumbs', dataType: 'BOOLEAN', count: 1, mean: 0, value: 0, stringValue: 'False' },
        ],
      },
      {
        traceId: 't0',
        scoreValues: [
          { name: 'quality', dataType: 'NUMERIC', count: 1, mean: 0.9, value: 0.9, stringValue: null },
          { name: 'topic', dataType: 'CATEGORICAL', count: 1, mean: null, value: null, stringValue: 'billing' },
          { name: 'thumbs', dataType: 'BOOLEAN', count: 1, mean: 1, value: 1, stringValue: 'True' },
        ],
      },
    ]);
    const ranged = await server.graphql(`{ traces(scores: [{name: "quality", min: 0.3, max: 0.45}]) { edges { node { traceId } } } }`);
    expect(ranged.data.traces.edges.map((edge: any) => edge.node.traceId)).toEqual(['t1']);
    const booleans = await server.graphql(`{ traces(scores: [{name: "thumbs", value: false}]) { edges { node { traceId } } } }`);
    expect(booleans.data.traces.edges.map((edge: any) => edge.node.traceId)).toEqual(['t1']);
    const none = await server.graphql(`{ traces(scores: [{name: "quality", present: false}]) { edges { node { traceId } } } }`);
    expect(none.data.traces.edges.map((edge: any) => edge.node.traceId)).toEqual(['late', 't5', 't4']);
  });

  it('REST answers the score columns asked for with `score_names`', async () => {
    const response = await server.request('GET', '/observability/traces?score_names=quality,thumbs&limit=5&started_after=2024-05-01T12:02:00Z');
    expect(response.status).toBe(200);
    const t2 = response.body.traces.find((trace: { trace_id: string }) => trace.trace_id === 't2');
    // Two quality scores (the trace's 0.7, then its span's 0.5): the newest's value, the mean of both.
    expect(t2.scores).toEqual([
      { name: 'quality', data_type: 'NUMERIC', count: 2, mean: 0.6, value: 0.5, string_value: null },
      { name: 'thumbs', data_type: 'BOOLEAN', count: 1, mean: 1, value: 1, string_value: 'True' },
    ]);
    expect(response.body.traces.find((trace: { trace_id: string }) => trace.trace_id === 't4').scores).toEqual([]);
    expect((await server.request('GET', '/observability/traces?limit=1')).body.traces[0]).not.toHaveProperty('scores');
  });

  it('refuses bad filter values with a 422 naming the field', async () => {
    const faults = async (query: string) => {
      const response = await server.request('GET', `/observability/traces?${query}`);
      expect(response.status, response.text).toBe(422);
      return response.body.detail.map((issue: { loc: unknown[] }) => issue.loc);
    };
    const scores = (filters: unknown) => `scores=${encodeURIComponent(JSON.stringify(filters))}`;
    expect(await faults('scores=not-json')).toEqual([['query', 'scores']]);
    expect(await faults(scores({ name: 'quality' }))).toEqual([['query', 'scores']]);
    expect(await faults(scores([{ name: 'quality' }]))).toEqual([['query', 'scores', 0]]);
    expect(await faults(scores([{ name: 'quality', min: 0.1, value: true }]))).toEqual([['query', 'scores', 0]]);
    expect(await faults(scores([{ name: 'quality', min: 0.9, max: 0.1 }]))).toEqual([['query', 'scores', 0, 'max']]);
    expect(await faults(scores([{ name: 'quality', min: 'high' }]))).toEqual([['query', 'scores', 0, 'min']]);
    expect(
      await faults(
        scores([
          { name: 'ok', present: true },
          { name: 'topic', any_of: [] },
        ]),
      ),
    ).toEqual([['query', 'scores', 1, 'any_of']]);
    expect(await faults(scores([{ name: '', present: true }]))).toEqual([['query', 'scores', 0, 'name']]);
    expect(await faults(scores([{ name: 'quality', above: 1 }]))).toEqual([['query', 'scores', 0]]);
    expect(await faults(scores(Array.from({ length: 11 }, () => ({ name: 'q', present: true }))))).toEqual([['query', 'scores']]);
    const graphql = await server.graphql(`{ traces(scores: [{name: "quality", min: 2, max: 1}]) { edges { node { traceId } } } }`);
    expect(graphql.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', detail: [{ loc: ['query', 'scores', 0, 'max'] }] });
    const both = await server.graphql(`{ scoreSummary(scores: [{name: "quality", present: true, value: true}]) { name } }`);
    expect(both.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', detail: [{ loc: ['query', 'scores', 0] }] });
    const names = await server.graphql(`{ scoreSummary(names: [${Array.from({ length: 21 }, (_, i) => `"n${i}"`).join(', ')}]) { name } }`);
    expect(names.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', detail: [{ loc: ['args', 'names'] }] });
  });
});

describe('score summaries and the chart', () => {
  const SUMMARY = `query ($names: [String!], $userId: String, $scores: [ScoreFilter!]) {
    scoreSummary(names: $names, userId: $userId, scores: $scores) {
      name dataType count mean stddev interval { low high } labels { label count share } } }`;

  it('counts, means with their 95% interval, and label shares, per name', async () => {
    const { data, errors } = await server.graphql(SUMMARY, { names: ['quality', 'thumbs', 'topic', 'missing'] });
    expect(errors).toBeUndefined();
    const [quality, thumbs, topic] = data.scoreSummary;
    expect(data.scoreSummary).toHaveLength(3);
    // quality: 0.9, 0.4, 0.7, 0.2 and the span's 0.5. Mean 2.7 / 5 = 0.54; squared deviations sum
    // to 0.292, variance 0.292 / 4 = 0.073, s = 0.270185; Student's t(4) 97.5% = 2.776:
    // half-width 2.776 × 0.270185 / √5 = 0.335424.
    expect(quality).toMatchObject({ name: 'quality', dataType: 'NUMERIC', count: 5, labels: [] });
    expect(quality.mean).toBeCloseTo(0.54, 9);
    expect(quality.stddev).toBeCloseTo(0.270185, 5);
    expect(quality.interval.low).toBeCloseTo(0.204576, 5);
    expect(quality.interval.high).toBeCloseTo(0.875424, 5);
    // thumbs: 2 of 3 true. Wilson, z = 1.96: centre (2/3 + z²/6) / (1 + z²/3) = 0.573082, half
    // z √(p(1−p)/3 + z²/36) / (1 + z²/3) = 0.365432.
    expect(thumbs).toMatchObject({ name: 'thumbs', dataType: 'BOOLEAN', count: 3 });
    expect(thumbs.mean).toBeCloseTo(2 / 3, 9);
    expect(thumbs.interval.low).toBeCloseTo(0.20765, 4);
    expect(thumbs.interval.high).toBeCloseTo(0.938514, 4);
    expect(thumbs.labels).toEqual([
      { label: 'True', count: 2, share: 2 / 3 },
      { label: 'False', count: 1, share: 1 / 3 },
    ]);
    // topic: labels without values (no config): shares, no mean.
    expect(topic).toMatchObject({ name: 'topic', dataType: 'CATEGORICAL', count: 3, mean: null, interval: null });
    expect(topic.labels).toEqual([
      { label: 'billing', count: 2, share: 2 / 3 },
      { label: 'shipping', count: 1, share: 1 / 3 },
    ]);
  });

  it('sums up only the traces of the filter, every name when none is given', async () => {
    const filtered = await server.graphql(SUMMARY, { names: ['quality'], scores: [{ name: 'thumbs', value: true }] });
    // t0 (0.9) and t2 (0.7 and its span's 0.5): mean 0.7, s = 0.2, half = 4.303 × 0.2 / √3.
    const [quality] = filtered.data.scoreSummary;
    expect(quality.count).toBe(3);
    expect(quality.mean).toBeCloseTo(0.7, 9);
    expect(quality.interval.high - quality.mean).toBeCloseTo((4.303 * 0.2) / Math.sqrt(3), 6);
    const all = await server.graphql(SUMMARY, {});
    expect(all.data.scoreSummary.map((summary: any) => [summary.name, summary.count])).toEqual([
      ['feedback', 2],
      ['quality', 5],
      ['thumbs', 3],
      ['topic', 3],
    ]);
    const one = await server.graphql(SUMMARY, { names: ['feedback'], scores: [{ name: 'feedback', max: 0 }] });
    expect(one.data.scoreSummary).toEqual([{ name: 'feedback', dataType: 'NUMERIC', count: 1, mean: 0, stddev: null, interval: null, labels: [] }]);
    expect((await server.graphql(SUMMARY, { names: ['quality'], userId: 'nobody' })).data.scoreSummary).toEqual([]);
  });

  it('REST metrics answer the same summaries with `score_names`', async () => {
    const response = await server.request('GET', '/observability/metrics?score_names=thumbs');
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(7);
    expect(response.body.scores).toHaveLength(1);
    expect(response.body.scores[0]).toMatchObject({
      name: 'thumbs',
      data_type: 'BOOLEAN',
      count: 3,
      labels: [
        { label: 'True', count: 2 },
        { label: 'False', count: 1 },
      ],
    });
    expect(response.body.scores[0].interval.low).toBeCloseTo(0.20765, 4);
    expect((await server.request('GET', '/observability/metrics')).body).not.toHaveProperty('scores');
  });

  it('the chart plots a score’s mean over time', async () => {
    // Seven traces from minute 0 to 6 in two buckets of three minutes: t0–t2, then t3 – late.
    const { data, errors } = await server.graphql(`{ traceSeries(buckets: 2, scoreNames: ["quality", "feedback"]) { count scores { name count mean } } }`);
    expect(errors).toBeUndefined();
    const [first, second] = data.traceSeries;
    expect(first.count).toBe(3);
    expect(first.scores).toHaveLength(1);
    expect(first.scores[0]).toMatchObject({ name: 'quality', count: 4 });
    expect(first.scores[0].mean).toBeCloseTo((0.9 + 0.4 + 0.7 + 0.5) / 4, 9);
    expect(second.count).toBe(4);
    expect(second.scores.sort((a: any, b: any) => a.name.localeCompare(b.name))).toEqual([
      { name: 'feedback', count: 2, mean: 0.5 },
      { name: 'quality', count: 1, mean: 0.2 },
    ]);
    const plain = await server.graphql(`{ traceSeries(buckets: 2) { scores { name } } }`);
    expect(plain.data.traceSeries).toEqual([{ scores: [] }, { scores: [] }]);
  });
});

describe('the model filter reads the TraceModel roll-up', () => {
  it('matches a model or its family, letter case counting, over any span of the trace', async () => {
    expect(await list('model=gpt-4o')).toEqual(['t5', 't1', 't0']);
    expect(await list('model=gpt-4o-mini')).toEqual(['t5', 't0']);
    expect(await list('model=gpt')).toEqual(['t5', 't1', 't0']);
    expect(await list('model=GPT-4o')).toEqual(['t3']);
    expect(await list('model=claude-3-5-haiku')).toEqual(['t5', 't2']);
    expect(await list('model=gpt-4')).toEqual([]);
    const { data } = await server.graphql(`{ traceMetrics(model: "claude-3-5-haiku") { count } traceSeries(model: "gpt-4o", buckets: 1) { count } }`);
    expect(data).toEqual({ traceMetrics: { count: 2 }, traceSeries: [{ count: 3 }] });
  });

  it('follows a span sent again with another model, and a deletion', async () => {
    await ingest('t1', 1, 'claude-3-5-sonnet');
    expect(await list('model=gpt-4o')).toEqual(['t5', 't0']);
    expect(await list('model=claude-3-5-sonnet')).toEqual(['t1']);
    expect((await server.request('DELETE', '/observability/traces/t1')).status).toBe(204);
    expect(await list('model=claude-3-5-sonnet')).toEqual([]);
    const rows = await server.assay.db.traceModel.findMany({ where: { traceId: 't1' } });
    expect(rows).toEqual([]);
  });
});
