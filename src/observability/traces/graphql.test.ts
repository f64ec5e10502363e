// GraphQL over traces and spans (traces/graphql.ts): trees through `children` at a constant number
// of SQL statements, `roots` for orphans, span fields, and flat span pages. The `traces` search is
// search/graphql.traces.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer, onPostgres } from '../../../test/helpers/server.js';
import { at, legacySpan, threeLevelTree, ingestSpans } from '../../../test/helpers/spans.js';
import { globalId } from '../../shared/graphql/ids.js';

const server = useTestServer();

const ingest = (trace: string, spans: unknown[]) => ingestSpans(server, trace, spans);

beforeAll(async () => {
  await ingest('small', threeLevelTree('s', 3, 2)); // 1 + 3 + 6 = 10 spans
  await ingest('large', threeLevelTree('l', 5, 11)); // 1 + 5 + 55 = 61 spans
});

const spanFields = `spanId traceId parentSpanId name spanKind status startTime endTime latency
  metadata { cost latency usage { promptTokens completionTokens totalTokens } startTime endTime }
  content { inputs outputs internals } variant { variantId variantName revision } config environment userId`;

const threeLevels = `query ($id: String!) {
  trace(traceId: $id) {
    traceId name spanCount
    root { ${spanFields} children { ${spanFields} children { ${spanFields} children { spanId } } } }
  }
}`;

type IdTree = [string, IdTree[]];
const idTree = (node: { spanId: string; children: any[] }): IdTree => [node.spanId, node.children.map(idTree)];
const expectedTree = (prefix: string, children: number, grandchildren: number): IdTree => [
  `${prefix}-root`,
  Array.from({ length: children }, (_, i): IdTree => [
    `${prefix}-c${i}`,
    Array.from({ length: grandchildren }, (_, j): IdTree => [`${prefix}-c${i}-g${j}`, []]),
  ]),
];

describe('trace tree through children', () => {
  it('answers a three-level tree with every field, children in start order', async () => {
    const { data, errors } = await server.graphql(threeLevels, { id: 'small' });
    expect(errors).toBeUndefined();
    expect(data.trace).toMatchObject({ traceId: 'small', name: 'span s-root', spanCount: 10 });
    expect(idTree(data.trace.root)).toEqual(expectedTree('s', 3, 2));
    const grandchild = data.trace.root.children[1].children[0];
    expect(grandchild).toEqual({
      spanId: 's-c1-g0',
      traceId: 'small',
      parentSpanId: 's-c1',
      name: 'span s-c1-g0',
      spanKind: 'LLM',
      status: 'UNSET',
      startTime: at(5.5),
      endTime: at(6.5),
      latency: 1,
      metadata: {
        cost: null,
        latency: 1,
        usage: { promptTokens: null, completionTokens: null, totalTokens: null },
        startTime: at(5.5),
        endTime: at(6.5),
      },
      content: { inputs: null, outputs: null, internals: null },
      variant: { variantId: null, variantName: null, revision: null },
      config: null,
      environment: null,
      userId: null,
      children: [],
    });
    expect(data.trace.root.children[0]).toMatchObject({ spanId: 's-c0', spanKind: 'TOOL', parentSpanId: 's-root' });
    expect(data.trace.root).toMatchObject({ spanKind: 'WORKFLOW', parentSpanId: null });
  });

  it('issues the same small number of SQL statements for 10 spans as for 61', async () => {
    server.resetQueries();
    const small = await server.graphql(threeLevels, { id: 'small' });
    const smallStatements = server.queries.length;
    server.resetQueries();
    const large = await server.graphql(threeLevels, { id: 'large' });
    const largeStatements = server.queries.length;

    expect(small.errors).toBeUndefined();
    expect(large.errors).toBeUndefined();
    expect(idTree(large.data.trace.root)).toEqual(expectedTree('l', 5, 11));
    // One for the trace row, one for all of its spans (on PostgreSQL first their time range, so
    // only their partitions are read: docs/database.md#span-partitions).
    expect(smallStatements).toBe(onPostgres ? 3 : 2);
    expect(largeStatements).toBe(smallStatements);
  });

  it('loads the spans of several traces in one statement', async () => {
    server.resetQueries();
    const { data, errors } = await server.graphql(`{
      traces(nameContains: "root") { edges { node { traceId root { spanId children { spanId children { spanId children { spanId } } } } } } }
    }`);
    expect(errors).toBeUndefined();
    const roots = Object.fromEntries(data.traces.edges.map((edge: any) => [edge.node.traceId, idTree(edge.node.root)]));
    expect(roots).toEqual({ small: expectedTree('s', 3, 2), large: expectedTree('l', 5, 11) });
    // The traces page, then the spans of both (on PostgreSQL after their time range).
    expect(server.queries.length).toBe(onPostgres ? 3 : 2);
  });

  it('walks up through parent', async () => {
    const { data } = await server.graphql(`{ span(spanId: "s-c2-g1") { spanId parent { spanId parent { spanId parent { spanId } } } } }`);
    expect(data.span).toEqual({ spanId: 's-c2-g1', parent: { spanId: 's-c2', parent: { spanId: 's-root', parent: null } } });
  });
});

describe('orphans', () => {
  beforeAll(async () => {
    await ingest('orphans', [
      legacySpan('o-late', null, 9, 10),
      legacySpan('o-first', 'missing-parent', 1, 2),
      legacySpan('o-kid', 'o-first', 1.5, 1.75),
      legacySpan('o-second', 'other-missing', 4, 5),
    ]);
  });

  it('lists every top-level span in roots, the earliest as root', async () => {
    const { data } = await server.graphql(`{
      trace(traceId: "orphans") { spanCount root { spanId } roots { spanId parentSpanId parent { spanId } children { spanId } } }
    }`);
    expect(data.trace).toEqual({
      spanCount: 4,
      root: { spanId: 'o-first' },
      roots: [
        { spanId: 'o-first', parentSpanId: 'missing-parent', parent: null, children: [{ spanId: 'o-kid' }] },
        { spanId: 'o-second', parentSpanId: 'other-missing', parent: null, children: [] },
        { spanId: 'o-late', parentSpanId: null, parent: null, children: [] },
      ],
    });
  });
});

describe('Span fields', () => {
  it('exposes the raw attributes, model, session, app and the rolled-up trace', async () => {
    await ingest('fields', [
      legacySpan('f', null, 0, 2, {
        spankind: 'llm',
        status: 'error',
        user: 'u-9',
        session_id: 'sess-9',
        app_id: 'app-9',
        environment: 'dev',
        variant_id: 'v-9',
        variant_name: 'candidate',
        revision: 4,
        config: { model: 'claude-3-5-sonnet' },
        inputs: { q: 'x' },
        attributes: { 'llm.provider': 'anthropic', list: [1, 2] },
        tokens: { prompt_tokens: 7, completion_tokens: 2 },
        cost: 0.125,
      }),
    ]);
    const { data, errors } = await server.graphql(`{
      span(spanId: "f") { spanId status statusMessage model sessionId appId userId environment attributes events links resource scope
        variant { variantId variantName revision } content { inputs } metadata { cost usage { totalTokens } } }
      trace(traceId: "fields") { traceId name startTime endTime latency spanCount errorCount cost environment userId sessionId appId variantId
        tokens { promptTokens completionTokens totalTokens } spans { edges { node { spanId } } } }
    }`);
    expect(errors).toBeUndefined();
    expect(data.span).toEqual({
      spanId: 'f',
      status: 'ERROR',
      statusMessage: null,
      model: 'claude-3-5-sonnet',
      sessionId: 'sess-9',
      appId: globalId('App', 'app-9'),
      userId: 'u-9',
      environment: 'dev',
      attributes: { 'llm.provider': 'anthropic', list: [1, 2] },
      events: null,
      links: null,
      resource: null,
      scope: null,
      variant: { variantId: globalId('Variant', 'v-9'), variantName: 'candidate', revision: 4 },
      content: { inputs: { q: 'x' } },
      metadata: { cost: 0.125, usage: { totalTokens: 9 } },
    });
    expect(data.trace).toEqual({
      traceId: 'fields',
      name: 'span f',
      startTime: at(0),
      endTime: at(2),
      latency: 2,
      spanCount: 1,
      errorCount: 1,
      cost: 0.125,
      environment: 'dev',
      userId: 'u-9',
      sessionId: 'sess-9',
      appId: globalId('App', 'app-9'),
      variantId: globalId('Variant', 'v-9'),
      tokens: { promptTokens: 7, completionTokens: 2, totalTokens: 9 },
      spans: { edges: [{ node: { spanId: 'f' } }] },
    });
  });

  it('answers NOT_FOUND errors for unknown traces and spans', async () => {
    const { data, errors } = await server.graphql(`{ trace(traceId: "nope") { traceId } }`);
    expect(data.trace).toBeNull();
    expect(errors[0]).toMatchObject({ message: 'Trace with id nope not found', extensions: { code: 'NOT_FOUND' } });
    const span = await server.graphql(`{ span(spanId: "nope") { spanId } }`);
    expect(span.errors[0]).toMatchObject({ message: 'Span with id nope not found', extensions: { code: 'NOT_FOUND' } });
    const wrongTrace = await server.graphql(`{ span(spanId: "f", traceId: "small") { spanId } }`);
    expect(wrongTrace.errors[0]).toMatchObject({ message: 'Span with id f not found' });
  });
});

describe('Trace.spans', () => {
  it('lists all spans flat in start order, a page at a time', async () => {
    const page = (after?: string) =>
      server.graphql(
        `query ($after: String) { trace(traceId: "small") { spans(first: 4, after: $after) {
        edges { node { spanId } } pageInfo { hasNextPage endCursor } } } }`,
        { after },
      );
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const { data, errors } = await page(after);
      expect(errors).toBeUndefined();
      seen.push(...data.trace.spans.edges.map((edge: any) => edge.node.spanId));
      if (!data.trace.spans.pageInfo.hasNextPage) break;
      after = data.trace.spans.pageInfo.endCursor;
    }
    expect(seen).toEqual(['s-root', 's-c0', 's-c0-g0', 's-c0-g1', 's-c1', 's-c1-g0', 's-c1-g1', 's-c2', 's-c2-g0', 's-c2-g1']);
  });
});
