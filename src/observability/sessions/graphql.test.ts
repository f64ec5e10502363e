// Sessions over GraphQL: the `sessions` connection (filters, paging both ways), `session`, the
// Session node by global id, and its turns, each a trace. Five traces in two sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/helpers/server.js';
import { at, legacySpan } from '../../../test/helpers/spans.js';

let server: TestServer;

// a: t0, t2, t4 (user-a); b: t1, t3 (user-b, staging). The latest trace of a starts last.
beforeAll(async () => {
  server = await startServer();
  for (let i = 0; i < 5; i++) {
    const response = await server.request('POST', '/observability/trace', {
      trace: `t${i}`,
      spans: [
        legacySpan(`t${i}-root`, null, i * 60, i * 60 + 1, {
          session_id: i % 2 === 0 ? 'a' : 'b',
          user: i % 2 === 0 ? 'user-a' : 'user-b',
          environment: i % 2 === 0 ? 'production' : 'staging',
          inputs: { message: `hello ${i}` },
          outputs: { message: `reply ${i}` },
        }),
      ],
    });
    expect(response.status, response.text).toBe(200);
  }
});

afterAll(async () => {
  await server.close();
});

const sessionFields =
  'id sessionId firstSeen lastSeen traceCount errorCount failedTraceCount cost userId environment firstTraceId lastTraceId firstInput lastOutput';

describe('GraphQL sessions', () => {
  it('lists sessions with their figures, filters and pages both ways', async () => {
    const all = await server.graphql(`{ sessions { edges { node { ${sessionFields} tokens { totalTokens } } } pageInfo { hasNextPage } } }`);
    expect(all.errors).toBeUndefined();
    expect(all.data.sessions.edges.map((edge: any) => edge.node)).toEqual([
      {
        id: Buffer.from('Session:a').toString('base64'),
        sessionId: 'a',
        firstSeen: at(0),
        lastSeen: at(240),
        traceCount: 3,
        errorCount: 0,
        failedTraceCount: 0,
        cost: null,
        userId: 'user-a',
        environment: 'production',
        firstTraceId: 't0',
        lastTraceId: 't4',
        firstInput: { message: 'hello 0' },
        lastOutput: { message: 'reply 4' },
        tokens: { totalTokens: null },
      },
      expect.objectContaining({ sessionId: 'b', traceCount: 2, lastTraceId: 't3' }),
    ]);

    const staging = await server.graphql('{ sessions(environment: "staging") { edges { node { sessionId } } } }');
    expect(staging.data.sessions.edges).toEqual([{ node: { sessionId: 'b' } }]);
    const searched = await server.graphql('query($after: DateTime) { sessions(search: "A", startedAfter: $after) { edges { node { sessionId } } } }', {
      after: at(200),
    });
    expect(searched.data.sessions.edges).toEqual([{ node: { sessionId: 'a' } }]);

    const first = await server.graphql('{ sessions(first: 1) { edges { node { sessionId } } pageInfo { hasNextPage endCursor } } }');
    expect(first.data.sessions.edges).toEqual([{ node: { sessionId: 'a' } }]);
    expect(first.data.sessions.pageInfo.hasNextPage).toBe(true);
    const next = await server.graphql(
      'query($after: String) { sessions(first: 1, after: $after) { edges { node { sessionId } } pageInfo { hasNextPage hasPreviousPage startCursor } } }',
      { after: first.data.sessions.pageInfo.endCursor },
    );
    expect(next.data.sessions.edges).toEqual([{ node: { sessionId: 'b' } }]);
    expect(next.data.sessions.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const back = await server.graphql(
      'query($before: String) { sessions(last: 1, before: $before) { edges { node { sessionId } } pageInfo { hasPreviousPage } } }',
      {
        before: next.data.sessions.pageInfo.startCursor,
      },
    );
    expect(back.data.sessions.edges).toEqual([{ node: { sessionId: 'a' } }]);
    expect(back.data.sessions.pageInfo.hasPreviousPage).toBe(false);

    const bad = await server.graphql('{ sessions(after: "nonsense") { edges { cursor } } }');
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('reads a session with its turns, each a trace, by id and as a node', async () => {
    const scored = await server.graphql('mutation { upsertScores(input: [{ sessionId: "b", name: "csat", value: 4 }]) { id } }');
    expect(scored.errors).toBeUndefined();
    const read = await server.graphql(
      '{ session(sessionId: "b") { id traceCount scores { name value target } turns { edges { node { input output trace { id traceId sessionId } } } } } }',
    );
    expect(read.errors).toBeUndefined();
    expect(read.data.session.scores).toEqual([{ name: 'csat', value: 4, target: 'SESSION' }]);
    expect(read.data.session.turns.edges.map((edge: any) => edge.node)).toEqual([
      { input: { message: 'hello 1' }, output: { message: 'reply 1' }, trace: { id: expect.any(String), traceId: 't1', sessionId: 'b' } },
      { input: { message: 'hello 3' }, output: { message: 'reply 3' }, trace: { id: expect.any(String), traceId: 't3', sessionId: 'b' } },
    ]);
    const node = await server.graphql('query($id: ID!) { node(id: $id) { __typename ... on Session { sessionId traceCount } } }', { id: read.data.session.id });
    expect(node.data.node).toEqual({ __typename: 'Session', sessionId: 'b', traceCount: 2 });
    const paged = await server.graphql('{ session(sessionId: "a") { turns(first: 2) { edges { node { trace { traceId } } } pageInfo { hasNextPage } } } }');
    expect(paged.data.session.turns).toEqual({
      edges: [{ node: { trace: { traceId: 't0' } } }, { node: { trace: { traceId: 't2' } } }],
      pageInfo: { hasNextPage: true },
    });
  });

  it('answers null for a session no trace has', async () => {
    const missing = await server.graphql('{ session(sessionId: "c") { sessionId } }');
    expect(missing).toEqual({ data: { session: null } });
    const node = await server.graphql('query($id: ID!) { node(id: $id) { id } }', { id: Buffer.from('Session:c').toString('base64') });
    expect(node.data.node).toBeNull();
  });
});
