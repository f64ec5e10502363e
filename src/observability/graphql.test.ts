// GraphQL over traces and spans: trees through `children` at a constant number of SQL statements,
// `roots` for orphans, flat span pages, and the traces list with its filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { at, legacySpan, threeLevelTree } from '../../test/helpers/spans.js';

let server: TestServer;

const ingest = async (trace: string, spans: unknown[]) => {
  const response = await server.request('POST', '/observability/trace', { trace, spans });
  expect(response.status).toBe(200);
};

beforeAll(async () => {
  server = await startServer();
  await ingest('small', threeLevelTree('s', 3, 2)); // 1 + 3 + 6 = 10 spans
  await ingest('large', threeLevelTree('l', 5, 11)); // 1 + 5 + 55 = 61 spans
});

afterAll(async () => {
  await server.close();
});

const spanFields = `id trace_id parent_span_id name spankind status start_time end_time latency
  metadata { cost latency usage { prompt_tokens completion_tokens total_tokens } start_time end_time }
  content { inputs outputs internals } variant { variant_id variant_name revision } config environment user_id`;

const threeLevels = `query ($id: ID!) {
  trace(id: $id) {
    trace_id name span_count
    root { ${spanFields} children { ${spanFields} children { ${spanFields} children { id } } } }
  }
}`;

type IdTree = [string, IdTree[]];
const idTree = (node: { id: string; children: any[] }): IdTree => [node.id, node.children.map(idTree)];
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
    expect(data.trace).toMatchObject({ trace_id: 'small', name: 'span s-root', span_count: 10 });
    expect(idTree(data.trace.root)).toEqual(expectedTree('s', 3, 2));
    const grandchild = data.trace.root.children[1].children[0];
    expect(grandchild).toEqual({
      id: 's-c1-g0',
      trace_id: 'small',
      parent_span_id: 's-c1',
      name: 'span s-c1-g0',
      spankind: 'LLM',
      status: 'UNSET',
      start_time: at(5.5),
      end_time: at(6.5),
      latency: 1,
      metadata: {
        cost: null,
        latency: 1,
        usage: { prompt_tokens: null, completion_tokens: null, total_tokens: null },
        start_time: at(5.5),
        end_time: at(6.5),
      },
      content: { inputs: null, outputs: null, internals: null },
      variant: { variant_id: null, variant_name: null, revision: null },
      config: null,
      environment: null,
      user_id: null,
      children: [],
    });
    expect(data.trace.root.children[0]).toMatchObject({ id: 's-c0', spankind: 'TOOL', parent_span_id: 's-root' });
    expect(data.trace.root).toMatchObject({ spankind: 'WORKFLOW', parent_span_id: null });
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
    // One for the trace row, one for all of its spans.
    expect(smallStatements).toBe(2);
    expect(largeStatements).toBe(smallStatements);
  });

  it('loads the spans of several traces in one statement', async () => {
    server.resetQueries();
    const { data, errors } = await server.graphql(`{
      traces(name_contains: "root") { edges { node { trace_id root { id children { id children { id children { id } } } } } } }
    }`);
    expect(errors).toBeUndefined();
    const roots = Object.fromEntries(data.traces.edges.map((edge: any) => [edge.node.trace_id, idTree(edge.node.root)]));
    expect(roots).toEqual({ small: expectedTree('s', 3, 2), large: expectedTree('l', 5, 11) });
    expect(server.queries.length).toBe(2); // the traces page, then the spans of both
  });

  it('walks up through parent', async () => {
    const { data } = await server.graphql(`{ span(id: "s-c2-g1") { id parent { id parent { id parent { id } } } } }`);
    expect(data.span).toEqual({ id: 's-c2-g1', parent: { id: 's-c2', parent: { id: 's-root', parent: null } } });
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
      trace(id: "orphans") { span_count root { id } roots { id parent_span_id parent { id } children { id } } }
    }`);
    expect(data.trace).toEqual({
      span_count: 4,
      root: { id: 'o-first' },
      roots: [
        { id: 'o-first', parent_span_id: 'missing-parent', parent: null, children: [{ id: 'o-kid' }] },
        { id: 'o-second', parent_span_id: 'other-missing', parent: null, children: [] },
        { id: 'o-late', parent_span_id: null, parent: null, children: [] },
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
      span(id: "f") { id status status_message model session_id app_id user_id environment attributes events links resource scope
        variant { variant_id variant_name revision } content { inputs } metadata { cost usage { total_tokens } } }
      trace(id: "fields") { trace_id name start_time end_time latency span_count error_count cost environment user_id session_id app_id variant_id
        tokens { prompt_tokens completion_tokens total_tokens } spans { edges { node { id } } } }
    }`);
    expect(errors).toBeUndefined();
    expect(data.span).toEqual({
      id: 'f',
      status: 'ERROR',
      status_message: null,
      model: 'claude-3-5-sonnet',
      session_id: 'sess-9',
      app_id: 'app-9',
      user_id: 'u-9',
      environment: 'dev',
      attributes: { 'llm.provider': 'anthropic', list: [1, 2] },
      events: null,
      links: null,
      resource: null,
      scope: null,
      variant: { variant_id: 'v-9', variant_name: 'candidate', revision: 4 },
      content: { inputs: { q: 'x' } },
      metadata: { cost: 0.125, usage: { total_tokens: 9 } },
    });
    expect(data.trace).toEqual({
      trace_id: 'fields',
      name: 'span f',
      start_time: at(0),
      end_time: at(2),
      latency: 2,
      span_count: 1,
      error_count: 1,
      cost: 0.125,
      environment: 'dev',
      user_id: 'u-9',
      session_id: 'sess-9',
      app_id: 'app-9',
      variant_id: 'v-9',
      tokens: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
      spans: { edges: [{ node: { id: 'f' } }] },
    });
  });

  it('answers NOT_FOUND errors for unknown traces and spans', async () => {
    const { data, errors } = await server.graphql(`{ trace(id: "nope") { trace_id } }`);
    expect(data.trace).toBeNull();
    expect(errors[0]).toMatchObject({ message: 'Trace with id nope not found', extensions: { code: 'NOT_FOUND' } });
    const span = await server.graphql(`{ span(id: "nope") { id } }`);
    expect(span.errors[0]).toMatchObject({ message: 'Span with id nope not found', extensions: { code: 'NOT_FOUND' } });
    const wrongTrace = await server.graphql(`{ span(id: "f", trace_id: "small") { id } }`);
    expect(wrongTrace.errors[0]).toMatchObject({ message: 'Span with id f not found' });
  });
});

describe('Trace.spans', () => {
  it('lists all spans flat in start order, a page at a time', async () => {
    const page = (after?: string) =>
      server.graphql(
        `query ($after: String) { trace(id: "small") { spans(first: 4, after: $after) {
        edges { node { id } } pageInfo { hasNextPage endCursor } } } }`,
        { after },
      );
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const { data, errors } = await page(after);
      expect(errors).toBeUndefined();
      seen.push(...data.trace.spans.edges.map((edge: any) => edge.node.id));
      if (!data.trace.spans.pageInfo.hasNextPage) break;
      after = data.trace.spans.pageInfo.endCursor;
    }
    expect(seen).toEqual(['s-root', 's-c0', 's-c0-g0', 's-c0-g1', 's-c1', 's-c1-g0', 's-c1-g1', 's-c2', 's-c2-g0', 's-c2-g1']);
  });
});

describe('traces', () => {
  const day = (n: number) => n * 86_400;
  beforeAll(async () => {
    // Three traces a day apart, ten days after the others, sent oldest first.
    await ingest('day-1', [legacySpan('d1', null, day(10), day(10) + 1, { name: 'Checkout flow', environment: 'production', user: 'alice' })]);
    await ingest('day-2', [legacySpan('d2', null, day(11), day(11) + 1, { name: 'checkout retry', environment: 'staging', user: 'bob' })]);
    await ingest('day-3', [legacySpan('d3', null, day(12), day(12) + 1, { name: 'search', environment: 'production', user: 'alice' })]);
  });

  const traceIds = async (args: string) => {
    const { data, errors } = await server.graphql(`{ traces${args} { edges { node { trace_id } } } }`);
    expect(errors).toBeUndefined();
    return data.traces.edges.map((edge: any) => edge.node.trace_id);
  };

  it('lists traces newest first', async () => {
    expect(await traceIds('(first: 3)')).toEqual(['day-3', 'day-2', 'day-1']);
  });

  it('filters by start time range, name, environment and user', async () => {
    expect(await traceIds(`(started_after: "${at(day(11))}")`)).toEqual(['day-3', 'day-2']);
    expect(await traceIds(`(started_after: "${at(day(10) + 1)}", started_before: "${at(day(11))}")`)).toEqual(['day-2']);
    expect(await traceIds(`(started_before: "${at(day(10))}", started_after: "${at(day(9))}")`)).toEqual(['day-1']);
    // Case-insensitive for ASCII letters (SQLite LIKE).
    expect(await traceIds('(name_contains: "checkout")')).toEqual(['day-2', 'day-1']);
    expect(await traceIds('(environment: "production")')).toEqual(['day-3', 'day-1']);
    expect(await traceIds('(environment: "production", user_id: "alice", name_contains: "search")')).toEqual(['day-3']);
    expect(await traceIds('(user_id: "nobody")')).toEqual([]);
  });

  it('pages with cursors', async () => {
    const first = await server.graphql(
      `{ traces(first: 2, started_after: "${at(day(10))}") { edges { cursor node { trace_id } } pageInfo { hasNextPage endCursor } } }`,
    );
    expect(first.data.traces.edges.map((edge: any) => edge.node.trace_id)).toEqual(['day-3', 'day-2']);
    expect(first.data.traces.pageInfo.hasNextPage).toBe(true);
    const next = await server.graphql(
      `query ($after: String) { traces(first: 2, after: $after, started_after: "${at(day(10))}") {
      edges { node { trace_id } } pageInfo { hasNextPage } } }`,
      { after: first.data.traces.pageInfo.endCursor },
    );
    expect(next.data.traces.edges.map((edge: any) => edge.node.trace_id)).toEqual(['day-1']);
    expect(next.data.traces.pageInfo.hasNextPage).toBe(false);
  });
});
