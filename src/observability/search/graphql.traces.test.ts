// GraphQL `traces` (search/graphql.ts): newest first, its filters, and cursors, over three traces
// a day apart.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { at, legacySpan, ingestSpans } from '../../../test/helpers/spans.js';

const server = useTestServer();

const ingest = (trace: string, spans: unknown[]) => ingestSpans(server, trace, spans);

describe('traces', () => {
  const day = (n: number) => n * 86_400;
  beforeAll(async () => {
    // Three traces a day apart, ten days after the others, sent oldest first.
    await ingest('day-1', [legacySpan('d1', null, day(10), day(10) + 1, { name: 'Checkout flow', environment: 'production', user: 'alice' })]);
    await ingest('day-2', [legacySpan('d2', null, day(11), day(11) + 1, { name: 'checkout retry', environment: 'staging', user: 'bob' })]);
    await ingest('day-3', [legacySpan('d3', null, day(12), day(12) + 1, { name: 'search', environment: 'production', user: 'alice' })]);
  });

  const traceIds = async (args: string) => {
    const { data, errors } = await server.graphql(`{ traces${args} { edges { node { traceId } } } }`);
    expect(errors).toBeUndefined();
    return data.traces.edges.map((edge: any) => edge.node.traceId);
  };

  it('lists traces newest first', async () => {
    expect(await traceIds('(first: 3)')).toEqual(['day-3', 'day-2', 'day-1']);
  });

  it('filters by start time range, name, environment and user', async () => {
    expect(await traceIds(`(startedAfter: "${at(day(11))}")`)).toEqual(['day-3', 'day-2']);
    expect(await traceIds(`(startedAfter: "${at(day(10) + 1)}", startedBefore: "${at(day(11))}")`)).toEqual(['day-2']);
    expect(await traceIds(`(startedBefore: "${at(day(10))}", startedAfter: "${at(day(9))}")`)).toEqual(['day-1']);
    // Case-insensitive for ASCII letters (SQLite LIKE).
    expect(await traceIds('(nameContains: "checkout")')).toEqual(['day-2', 'day-1']);
    expect(await traceIds('(environment: "production")')).toEqual(['day-3', 'day-1']);
    expect(await traceIds('(environment: "production", userId: "alice", nameContains: "search")')).toEqual(['day-3']);
    expect(await traceIds('(userId: "nobody")')).toEqual([]);
  });

  it('pages with cursors', async () => {
    const first = await server.graphql(
      `{ traces(first: 2, startedAfter: "${at(day(10))}") { edges { cursor node { traceId } } pageInfo { hasNextPage endCursor } } }`,
    );
    expect(first.data.traces.edges.map((edge: any) => edge.node.traceId)).toEqual(['day-3', 'day-2']);
    expect(first.data.traces.pageInfo.hasNextPage).toBe(true);
    const next = await server.graphql(
      `query ($after: String) { traces(first: 2, after: $after, startedAfter: "${at(day(10))}") {
      edges { node { traceId } } pageInfo { hasNextPage } } }`,
      { after: first.data.traces.pageInfo.endCursor },
    );
    expect(next.data.traces.edges.map((edge: any) => edge.node.traceId)).toEqual(['day-1']);
    expect(next.data.traces.pageInfo.hasNextPage).toBe(false);
  });
});
