// Real GraphQL clients against a real Assay (docs/graphql.md): the graphql-http conformance audit,
// urql's persisted-queries exchange (APQ), and a graphql-sse client in single-connection mode
// running two subscriptions over one stream.
import { createHash } from 'node:crypto';
import { Client, fetchExchange, gql } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import { createClient } from 'graphql-sse';
import { auditServer } from 'graphql-http';
import { afterAll, describe, expect, it } from 'vitest';
import { apqStoreLimits, createAPQStore } from './apq.js';
import { createGate, startEndpoint, type FakeEndpoint } from '../../test/helpers/endpoints.js';
import { createApp, createConfig, createEndpointVariant, createTestset, startEvaluations, waitForStatus } from '../../test/helpers/evaluations.js';
import { useTestServer, startServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Exchange {
  method: string;
  url: URL;
  body: any;
  answer: any;
}

/** A fetch that records what a client sends and what it is answered (as JSON when it is JSON). */
function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const sent = request.method === 'POST' ? await request.clone().text() : undefined;
    const response = await fetch(request);
    const type = response.headers.get('content-type') ?? '';
    const answer = /json/.test(type) ? await response.clone().json() : undefined;
    log.push({ method: request.method, url: new URL(request.url), body: sent ? JSON.parse(sent) : undefined, answer });
    return response;
  };
}

describe('GraphQL over HTTP conformance', () => {
  it('passes every check of the graphql-http audit', async () => {
    const results = await auditServer({ url: `${server.baseUrl}/graphql` });
    const failed = results
      .filter((result) => result.status !== 'ok')
      .map((result) => `${result.status} ${result.id} ${result.name}: ${'reason' in result ? result.reason : ''}`);
    expect(results.length).toBeGreaterThan(30);
    expect(failed).toEqual([]);
  });
});

describe('automatic persisted queries', () => {
  const query = gql`
    query AppsForApq {
      apps {
        edges {
          node {
            id
            name
          }
        }
      }
    }
  `;

  it('answers an unknown hash PersistedQueryNotFound, registers on retry, then runs hash-only', async () => {
    await createApp(server, 'apq-app');
    const log: Exchange[] = [];
    const client = new Client({
      url: `${server.baseUrl}/graphql`,
      exchanges: [persistedExchange({ preferGetForPersistedQueries: true }), fetchExchange],
      fetch: recordingFetch(log),
      requestPolicy: 'network-only',
    });

    const first = await client.query(query, {}).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data.apps.edges.map((edge: any) => edge.node.name)).toContain('apq-app');
    // Hash only, refused as unknown; then the query with its hash, which registers it.
    expect(log).toHaveLength(2);
    const hash = log[0].url.searchParams.get('extensions') && JSON.parse(log[0].url.searchParams.get('extensions')!).persistedQuery.sha256Hash;
    expect(log[0].method).toBe('GET');
    expect(log[0].url.searchParams.get('query')).toBeNull();
    expect(log[0].answer.errors).toEqual([expect.objectContaining({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } })]);
    const registered = log[1].body ?? Object.fromEntries(log[1].url.searchParams);
    expect(typeof registered.query).toBe('string');
    expect(sha256(registered.query)).toBe(hash);

    const second = await client.query(query, {}).toPromise();
    expect(second.error).toBeUndefined();
    expect(second.data).toEqual(first.data);
    expect(log).toHaveLength(3);
    expect(log[2].method).toBe('GET');
    expect(log[2].url.searchParams.get('query')).toBeNull();
    expect(log[2].answer.errors).toBeUndefined();

    // Another client, same server: the hash is known, nothing but the hash is ever sent.
    const otherLog: Exchange[] = [];
    const other = new Client({ url: `${server.baseUrl}/graphql`, exchanges: [persistedExchange(), fetchExchange], fetch: recordingFetch(otherLog) });
    const third = await other.query(query, {}).toPromise();
    expect(third.data).toEqual(first.data);
    expect(otherLog).toHaveLength(1);
  });

  it('refuses a query that does not match its hash, a malformed hash and an unknown version', async () => {
    const persisted = (extra: Record<string, unknown>) => ({
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ apps { edges { node { id } } } }'), ...extra } },
    });
    const mismatch = await server.request('POST', '/graphql', { query: '{ testsets { id } }', ...persisted({}) });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors[0]).toMatchObject({ message: 'PersistedQueryMismatch', extensions: { code: 'PERSISTED_QUERY_MISMATCH' } });

    const malformed = await server.request('POST', '/graphql', persisted({ sha256Hash: 'abc' }));
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].extensions).toMatchObject({ code: 'PERSISTED_QUERY_MISMATCH', reason: expect.stringContaining('sha256Hash') });

    const version = await server.request('POST', '/graphql', persisted({ version: 2 }));
    expect(version.status).toBe(400);
    expect(version.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');

    // Without a hash, a request without a query keeps GraphQL over HTTP's own answer.
    const empty = await server.request('POST', '/graphql', { variables: {} });
    expect(empty.body.errors[0].message).toBe('Must provide query string.');
  });

  it('keeps its store bounded by entries and by characters, least recently used out first', () => {
    const byEntries = createAPQStore({ entries: 2, characters: 1_000 });
    byEntries.set('a', '{ a }');
    byEntries.set('b', '{ b }');
    byEntries.get('a');
    byEntries.set('c', '{ c }');
    expect([...byEntries.keys()].sort()).toEqual(['a', 'c']);

    const byCharacters = createAPQStore({ entries: 100, characters: 10 });
    byCharacters.set('a', '12345');
    byCharacters.set('b', '12345');
    byCharacters.set('c', '123');
    expect([...byCharacters.keys()].sort()).toEqual(['b', 'c']);
    byCharacters.set('huge', 'x'.repeat(11));
    expect(byCharacters.has('huge')).toBe(false);

    expect(apqStoreLimits.entries).toBeGreaterThan(0);
    expect(apqStoreLimits.characters).toBeLessThan(apqStoreLimits.entries * 100_000);
  });
});

describe('graphql-sse', () => {
  let endpoint: FakeEndpoint;
  afterAll(async () => {
    await endpoint?.close();
  });

  it('runs two subscriptions over one single-connection stream', async () => {
    const gate = createGate();
    endpoint = await startEndpoint(async (request) => {
      await gate.wait();
      return { body: { message: request.body.inputs.country, cost: 0, latency: 0.01 } };
    });
    const appId = await createApp(server);
    const variants = [await createEndpointVariant(server, appId, endpoint.url), await createEndpointVariant(server, appId, endpoint.url)];
    const testset = await createTestset(server, [
      { country: 'France', correct_answer: 'France' },
      { country: 'Peru', correct_answer: 'Lima' },
    ]);
    const config = await createConfig(server, appId, 'auto_exact_match');
    const evaluations = await startEvaluations(server, {
      app_id: appId,
      variant_ids: variants.map((variant) => variant.variant_id),
      evaluators_configs: [config.id],
      testset_id: testset.id,
    });
    expect(evaluations).toHaveLength(2);

    const log: Exchange[] = [];
    const client = createClient({ url: `${server.baseUrl}/graphql/stream`, singleConnection: true, fetchFn: recordingFetch(log), retryAttempts: 0 });
    const follow = async (id: string) => {
      const seen: any[] = [];
      const events = client.iterate({ query: 'subscription($id: ID!) { evaluationProgress(id: $id) { evaluationId status total done } }', variables: { id } });
      for await (const event of events) {
        expect(event.errors).toBeUndefined();
        seen.push(event.data!.evaluationProgress);
        // Both streams are open and have answered once: let the endpoint answer.
        if (seen.length === 1 && ++started === 2) gate.open();
      }
      return seen;
    };
    let started = 0;
    try {
      const [first, second] = await Promise.all(evaluations.map((evaluation) => follow(globalId('Evaluation', evaluation.id))));
      for (const [evaluation, seen] of [
        [evaluations[0], first],
        [evaluations[1], second],
      ] as const) {
        expect(seen.every((progress: any) => progress.evaluationId === globalId('Evaluation', evaluation.id) && progress.total === 2)).toBe(true);
        expect(seen[0].done).toBe(0);
        expect(seen.at(-1)).toMatchObject({ status: 'EVALUATION_FINISHED', done: 2 });
      }
    } finally {
      client.dispose();
    }
    // One reservation and one stream; each operation was a POST on that stream's token.
    const puts = log.filter((exchange) => exchange.method === 'PUT');
    expect(puts).toHaveLength(1);
    const operations = log.filter((exchange) => exchange.method === 'POST' && exchange.body?.query);
    expect(operations).toHaveLength(2);
    const streams = log.filter((exchange) => exchange.method === 'GET');
    expect(streams).toHaveLength(1);
    for (const evaluation of evaluations) await waitForStatus(server, evaluation.id);
  }, 20_000);

  it('stops without waiting for an event stream its client keeps open', async () => {
    const own = await startServer();
    const stream = `${own.baseUrl}/graphql/stream`;
    const token = await (await fetch(stream, { method: 'PUT' })).text();
    const listening = await fetch(stream, { headers: { accept: 'text/event-stream', 'x-graphql-event-stream-token': token } });
    expect(listening.status).toBe(200);
    const started = Date.now();
    await own.close();
    // Waiting for the stream, close would never end (the test's timeout).
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(listening.text()).rejects.toThrow();
  });

  it('serves the distinct-connections mode and refuses an unknown stream token', async () => {
    const client = createClient({ url: `${server.baseUrl}/graphql/stream`, retryAttempts: 0 });
    try {
      const results: any[] = [];
      for await (const result of client.iterate({ query: '{ apps { edges { node { id } } } }' })) results.push(result);
      expect(results).toHaveLength(1);
      expect(results[0].data.apps.edges.length).toBeGreaterThan(0);
    } finally {
      client.dispose();
    }
    const unknown = await fetch(`${server.baseUrl}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-graphql-event-stream-token': 'nope' },
      body: JSON.stringify({ query: '{ apps { edges { node { id } } } }', extensions: { operationId: '1' } }),
    });
    expect(unknown.status).toBe(404);
  });

  it('answers malformed protocol requests with a 4xx, never a 5xx or a stalled connection', async () => {
    const stream = `${server.baseUrl}/graphql/stream`;
    const reserve = await fetch(stream, { method: 'PUT' });
    expect(reserve.status).toBe(201);
    const token = await reserve.text();
    const cases: [string, RequestInit][] = [
      ['invalid JSON', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":' }],
      [
        'no query',
        { method: 'POST', headers: { 'content-type': 'application/json', 'x-graphql-event-stream-token': token }, body: '{"extensions":{"operationId":"1"}}' },
      ],
      [
        'no operation id',
        { method: 'POST', headers: { 'content-type': 'application/json', 'x-graphql-event-stream-token': token }, body: '{"query":"{ __typename }"}' },
      ],
      ['a syntax error', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: '{"query":"{"}' }],
      ['unknown token on DELETE', { method: 'DELETE', headers: { 'x-graphql-event-stream-token': 'nope' } }],
      ['no operation on DELETE', { method: 'DELETE', headers: { 'x-graphql-event-stream-token': token } }],
      ['a second reservation', { method: 'PUT', headers: { 'x-graphql-event-stream-token': token } }],
      ['an unknown method body', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }],
    ];
    const answers: string[] = [];
    for (const [what, init] of cases) {
      const response = await fetch(stream, { ...init, signal: AbortSignal.timeout(5_000) });
      answers.push(`${what} → ${response.status}`);
      await response.body?.cancel();
      expect(response.status, what).toBeGreaterThanOrEqual(400);
      expect(response.status, what).toBeLessThan(500);
    }
    expect(answers).toHaveLength(cases.length);

    // The document's own faults come back as GraphQL errors naming them, with their status.
    const post = (query: string) =>
      fetch(stream, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ query }) });
    const syntax = await post('{');
    expect(syntax.status).toBe(400);
    expect((await syntax.json()).errors[0]).toMatchObject({ message: expect.stringContaining('Syntax Error'), extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
    const invalid = await post('{ nope }');
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).errors[0]).toMatchObject({
      message: expect.stringMatching(/^Cannot query field "nope" on type "Query"\./),
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    const nested = await post('{a'.repeat(70));
    expect(nested.status).toBe(400);
    expect((await nested.json()).errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'nesting' });

    // An evaluation that does not exist: one event with the error, as on /graphql.
    const client = createClient({ url: stream, retryAttempts: 0 });
    try {
      const events: any[] = [];
      for await (const event of client.iterate({
        query: 'subscription($id: ID!) { evaluationProgress(id: $id) { status } }',
        variables: { id: globalId('Evaluation', 'nope') },
      }))
        events.push(event);
      expect(events).toEqual([{ errors: [expect.objectContaining({ message: 'Evaluation with id nope not found', extensions: { code: 'NOT_FOUND' } })] }]);
    } finally {
      client.dispose();
    }
  });
});
