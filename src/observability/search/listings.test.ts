// Finding traces and spans (search/: filters, sorting, cursors, metrics) over REST and GraphQL, on
// ten traces a minute apart.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { at, legacySpan } from '../../../test/helpers/spans.js';

const server = useTestServer({ OTLP_GRPC_PORT: '0' });

// Ten traces, one a minute: t0 … t9. Even ones in production for user-a, odd in staging for
// user-b; t3 failed; latencies 1…10 s; each root has one LLM child with a model and tokens.
beforeAll(async () => {
  for (let i = 0; i < 10; i++) {
    const even = i % 2 === 0;
    const response = await server.request('POST', '/observability/trace', {
      trace: `t${i}`,
      spans: [
        legacySpan(`t${i}-root`, null, i * 60, i * 60 + i + 1, {
          name: even ? 'answer question' : 'summarise',
          spankind: 'workflow',
          status: i === 3 ? 'error' : 'ok',
          environment: even ? 'production' : 'staging',
          user: even ? 'user-a' : 'user-b',
          session_id: `session-${i % 3}`,
          app_id: 'app-1',
          variant_id: even ? 'v-1' : 'v-2',
          variant_name: even ? 'baseline' : 'candidate',
          inputs: { question: i === 7 ? 'Where is the Eiffel Tower?' : `question ${i}` },
          outputs: { answer: `answer ${i}` },
        }),
        legacySpan(`t${i}-llm`, `t${i}-root`, i * 60, i * 60 + 0.5, {
          name: 'chat',
          spankind: 'llm',
          config: { model: even ? 'gpt-4o-mini-2024-07-18' : 'claude-3-5-haiku-20241022' },
          tokens: { prompt_tokens: 1000 * (i + 1), completion_tokens: 100 },
        }),
      ],
    });
    expect(response.status).toBe(200);
  }
});

const ids = (body: any) => body.traces.map((trace: any) => trace.trace_id);

describe('GET /observability/traces', () => {
  it('lists newest first with every roll-up field', async () => {
    const response = await server.request('GET', '/observability/traces?limit=2');
    expect(response.status).toBe(200);
    expect(ids(response.body)).toEqual(['t9', 't8']);
    expect(response.body.traces[1]).toEqual({
      trace_id: 't8',
      root_span_id: 't8-root',
      name: 'answer question',
      spankind: 'WORKFLOW',
      status: 'OK',
      start_time: at(480),
      end_time: at(489),
      latency: 9,
      span_count: 2,
      error_count: 0,
      usage: { prompt_tokens: 9000, completion_tokens: 100, total_tokens: 9100 },
      // gpt-4o-mini computed at ingestion: 9000 × 0.15/M + 100 × 0.6/M
      cost: 0.00141,
      environment: 'production',
      user_id: 'user-a',
      session_id: 'session-2',
      app_id: 'app-1',
      variant: { variant_id: 'v-1', variant_name: 'baseline' },
    });
    expect(response.body.next_cursor).toEqual(expect.any(String));
  });

  it('filters by every field', async () => {
    const q = async (query: string) => ids((await server.request('GET', `/observability/traces?${query}`)).body);
    expect(await q('environment=staging')).toEqual(['t9', 't7', 't5', 't3', 't1']);
    expect(await q('user_id=user-a&started_after=' + encodeURIComponent(at(240)))).toEqual(['t8', 't6', 't4']);
    expect(await q('started_before=' + encodeURIComponent(at(60)))).toEqual(['t1', 't0']);
    expect(await q('status=error')).toEqual(['t3']);
    expect(await q('status=OK,ERROR&session_id=session-0')).toEqual(['t9', 't6', 't3', 't0']);
    expect(await q('spankind=llm')).toEqual([]); // roots are workflows
    expect(await q('name_contains=SUMMAR&variant_id=v-2&app_id=app-1')).toEqual(['t9', 't7', 't5', 't3', 't1']);
    expect(await q('variant_name=baseline&min_latency=5&max_latency=7')).toEqual(['t6', 't4']);
    expect(await q('model=claude-3-5-haiku&min_cost=0.006')).toEqual(['t9', 't7']);
    expect(await q('max_cost=0.0006')).toEqual(['t2', 't0']);
    expect(await q('text=eiffel')).toEqual(['t7']);
    expect(await q('text=100%25')).toEqual([]); // % is a literal, not a wildcard
  });

  it('sorts and pages with cursors', async () => {
    const first = (await server.request('GET', '/observability/traces?sort_by=latency&sort_direction=asc&limit=4')).body;
    expect(ids(first)).toEqual(['t0', 't1', 't2', 't3']);
    const second = (await server.request('GET', `/observability/traces?sort_by=latency&sort_direction=asc&limit=4&cursor=${first.next_cursor}`)).body;
    expect(ids(second)).toEqual(['t4', 't5', 't6', 't7']);
    const third = (await server.request('GET', `/observability/traces?sort_by=latency&sort_direction=asc&limit=4&cursor=${second.next_cursor}`)).body;
    expect(ids(third)).toEqual(['t8', 't9']);
    expect(third.next_cursor).toBeNull();
    expect(ids((await server.request('GET', '/observability/traces?sort_by=cost&limit=1')).body)).toEqual(['t9']);
  });

  it('answers 422 listing every bad parameter, and never a 500 for a bad cursor', async () => {
    const response = await server.request('GET', '/observability/traces?limit=0&status=broken&min_cost=abc&started_after=yesterday');
    expect(response.status).toBe(422);
    expect(response.body.detail.map((d: any) => [d.loc, d.type])).toEqual([
      [['query', 'started_after'], 'datetime_from_date_parsing'],
      [['query', 'status', 0], 'enum'],
      [['query', 'min_cost'], 'float_parsing'],
      [['query', 'limit'], 'greater_than_equal'],
    ]);
    const sort = await server.request('GET', '/observability/traces?sort_by=colour');
    expect(sort.body.detail[0]).toMatchObject({ loc: ['query', 'sort_by'], type: 'enum' });
    const cursor = await server.request('GET', '/observability/traces?cursor=garbage');
    expect(cursor.status).toBe(422);
    expect(cursor.body.detail[0]).toMatchObject({ loc: ['query', 'after'], type: 'value_error' });
  });

  it('lists spans with filters and answers metrics', async () => {
    const spans = (await server.request('GET', '/observability/spans?spankind=LLM&model=gpt-4o-mini&sort_by=tokens&limit=3')).body;
    expect(spans.spans.map((span: any) => span.id)).toEqual(['t8-llm', 't6-llm', 't4-llm']);
    expect(spans.spans[0]).toMatchObject({ spankind: 'LLM', children: null, metadata: { usage: { prompt_tokens: 9000 } } });
    const metrics = (await server.request('GET', '/observability/metrics?environment=staging')).body;
    expect(metrics).toMatchObject({ count: 5, error_count: 1, error_rate: 0.2, prompt_tokens: 2000 + 4000 + 6000 + 8000 + 10000, completion_tokens: 500 });
    expect(metrics.latency).toEqual({ avg: 6, min: 2, max: 10, p50: 6, p95: 10, p99: 10 });
    // claude-3-5-haiku: tokens × 0.8/M + 100 × 4/M per trace
    expect(metrics.cost).toBeCloseTo((30_000 * 0.8 + 500 * 4) / 1e6, 12);
  });
});

describe('GraphQL search', () => {
  it('pages traces forward and backward with filters and sorting', async () => {
    const query = `query ($first: Int, $after: String, $last: Int, $before: String) {
      traces(first: $first, after: $after, last: $last, before: $before, environment: "production", sortBy: COST, sortDirection: DESC) {
        edges { cursor node { traceId cost spanKind status variantName } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
    const page1 = await server.graphql(query, { first: 2 });
    expect(page1.errors).toBeUndefined();
    expect(page1.data.traces.edges.map((e: any) => e.node.traceId)).toEqual(['t8', 't6']);
    expect(page1.data.traces.edges[0].node).toMatchObject({ spanKind: 'WORKFLOW', status: 'OK', variantName: 'baseline' });
    const page2 = await server.graphql(query, { first: 2, after: page1.data.traces.pageInfo.endCursor });
    expect(page2.data.traces.edges.map((e: any) => e.node.traceId)).toEqual(['t4', 't2']);
    expect(page2.data.traces.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const back = await server.graphql(query, { last: 2, before: page2.data.traces.pageInfo.startCursor });
    expect(back.data.traces.edges.map((e: any) => e.node.traceId)).toEqual(['t8', 't6']);
    expect(back.data.traces.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
  });

  it('lists spans with filters, and aggregates metrics', async () => {
    const { data, errors } = await server.graphql(`{
      spans(spanKind: [LLM], text: "question", first: 5) { edges { node { id } } }
      errors: spans(status: [ERROR]) { edges { node { spanId spanKind } } }
      llm: spanMetrics(spanKind: [LLM]) { count cost totalTokens latency { p50 } }
      all: traceMetrics { count errorCount errorRate latency { avg min max p50 p95 p99 } }
      none: traceMetrics(userId: "nobody") { count errorRate cost latency { p50 } }
    }`);
    expect(errors).toBeUndefined();
    expect(data.spans.edges).toEqual([]); // LLM spans carry no inputs here
    expect(data.errors.edges).toEqual([{ node: { spanId: 't3-root', spanKind: 'WORKFLOW' } }]);
    expect(data.llm).toMatchObject({ count: 10, totalTokens: 56_000, latency: { p50: 0.5 } });
    expect(data.all).toEqual({ count: 10, errorCount: 1, errorRate: 0.1, latency: { avg: 5.5, min: 1, max: 10, p50: 5, p95: 10, p99: 10 } });
    expect(data.none).toEqual({ count: 0, errorRate: null, cost: null, latency: { p50: null } });
  });

  it('pages the children of a span', async () => {
    const spans = Array.from({ length: 25 }, (_, i) => legacySpan(`kid-${String(i).padStart(2, '0')}`, 'wide-root', i, i + 1));
    spans.push(legacySpan('wide-root', null, 0, 30));
    expect((await server.request('POST', '/observability/trace', { trace: 'wide', spans })).status).toBe(200);
    const query = `query ($after: String) { span(spanId: "wide-root", traceId: "wide") { childSpans(first: 10, after: $after) {
      edges { node { spanId } } pageInfo { hasNextPage endCursor } } } }`;
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 5; page++) {
      const { data, errors }: any = await server.graphql(query, { after });
      expect(errors).toBeUndefined();
      seen.push(...data.span.childSpans.edges.map((e: any) => e.node.spanId));
      if (!data.span.childSpans.pageInfo.hasNextPage) break;
      after = data.span.childSpans.pageInfo.endCursor;
    }
    expect(seen).toEqual(spans.slice(0, 25).map((span) => span.id));
  });
});
