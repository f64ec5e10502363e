// The reads the web UI's trace screens use (docs/ui.md): a trace's light outline (parallel lists,
// no payloads; traces/graphql.ts) and the trace list's chart series (search/graphql.ts), over the
// same two traces. The live `tracesStored` subscription is ingestion/graphql.traces-stored.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { at, legacySpan, threeLevelTree, ingestSpans } from '../../../test/helpers/spans.js';

const server = useTestServer();

const ingest = (trace: string, spans: unknown[]) => ingestSpans(server, trace, spans);

beforeAll(async () => {
  await ingest('tree', threeLevelTree('t', 2, 2)); // 1 + 2 + 4 spans, children sent first
  // An orphan (parent never stored) and a parent cycle: both come out top-level.
  await ingest('odd', [
    legacySpan('root', null, 0, 10),
    legacySpan('orphan', 'missing', 1, 2, { status: 'ERROR' }),
    legacySpan('a', 'b', 3, 4),
    legacySpan('b', 'a', 5, 6),
  ]);
});

const outlineQuery = `query ($id: String!) { trace(traceId: $id) { outline { spanIds parents names kinds statuses offsets latencies } } }`;

describe('Trace.outline', () => {
  it('lists every span in start order with the position of its parent, offsets and latencies', async () => {
    const { data, errors } = await server.graphql(outlineQuery, { id: 'tree' });
    expect(errors).toBeUndefined();
    const outline = data.trace.outline;
    expect(outline.spanIds).toEqual(['t-root', 't-c0', 't-c0-g0', 't-c0-g1', 't-c1', 't-c1-g0', 't-c1-g1']);
    expect(outline.parents).toEqual([null, 0, 1, 1, 0, 4, 4]);
    expect(outline.kinds).toEqual(['WORKFLOW', 'TOOL', 'LLM', 'LLM', 'TOOL', 'LLM', 'LLM']);
    expect(outline.names[2]).toBe('span t-c0-g0');
    expect(outline.statuses.every((status: string) => status === 'UNSET')).toBe(true);
    expect(outline.offsets).toEqual([0, 1, 1.5, 2.5, 5, 5.5, 6.5]);
    expect(outline.latencies).toEqual([9, 3, 1, 1, 3, 1, 1]);
  });

  it('makes orphans top-level and leaves a parent cycle as sent (the UI cuts it)', async () => {
    const { data } = await server.graphql(outlineQuery, { id: 'odd' });
    const { spanIds, parents, statuses } = data.trace.outline;
    expect(spanIds).toEqual(['root', 'orphan', 'a', 'b']);
    expect(parents).toEqual([null, null, 3, 2]);
    expect(statuses[1]).toBe('ERROR');
  });

  it('answers null with NOT_FOUND for an unknown trace', async () => {
    const { data, errors } = await server.graphql(outlineQuery, { id: 'nope' });
    expect(data.trace).toBeNull();
    expect(errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

const seriesQuery = `query ($buckets: Int, $after: DateTime, $before: DateTime, $status: [SpanStatusCode!]) {
  traceSeries(buckets: $buckets, startedAfter: $after, startedBefore: $before, status: $status) { start end count errorCount cost avgLatency }
}`;

describe('traceSeries', () => {
  it('counts the matching traces over equal intervals of the given range', async () => {
    const { data, errors } = await server.graphql(seriesQuery, { buckets: 4, after: at(-60), before: at(60) });
    expect(errors).toBeUndefined();
    const series = data.traceSeries;
    expect(series).toHaveLength(4);
    expect(series[0].start).toBe(at(-60));
    expect(series[3].end).toBe(at(60));
    // Both traces start at T0, in the third interval [0 s, 30 s).
    expect(series.map((bucket: { count: number }) => bucket.count)).toEqual([0, 0, 2, 0]);
    expect(series[2].errorCount).toBe(1);
    expect(series[2].avgLatency).toBeCloseTo((9 + 10) / 2);
    expect(series[0]).toMatchObject({ count: 0, errorCount: 0, cost: null, avgLatency: null });
  });

  it('spans the matches themselves without a range, follows the filters, and is empty when nothing matches', async () => {
    const all = await server.graphql(seriesQuery, { buckets: 3 });
    expect(all.data.traceSeries.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0)).toBe(2);
    const failed = await server.graphql(seriesQuery, { buckets: 3, status: ['ERROR'] });
    expect(failed.data.traceSeries.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0)).toBe(1);
    const none = await server.graphql(seriesQuery, { after: at(3600) });
    expect(none.data.traceSeries).toEqual([]);
  });

  it('refuses a bucket count out of range, naming the argument', async () => {
    for (const buckets of [0, 201]) {
      const { errors } = await server.graphql(seriesQuery, { buckets });
      expect(errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(errors[0].extensions.detail[0].loc).toEqual(['args', 'buckets']);
    }
  });
});
