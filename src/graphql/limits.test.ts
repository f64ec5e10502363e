// GraphQL answers nested lists in a constant number of SQL statements, and refuses queries built
// to exhaust the server.
import { getIntrospectionQuery } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';

const server = useTestServer();
beforeAll(async () => {
  for (let i = 0; i < 50; i++) {
    const app = (await server.request('POST', '/apps', { app_name: `app-${String(i).padStart(2, '0')}` })).body;
    for (const name of ['a', 'b']) {
      await server.request('POST', `/apps/${app.app_id}/variants`, { variant_name: name, kind: 'endpoint', uri: 'http://127.0.0.1:9/' });
    }
  }
});

const appsWithVariants = `query($first: Int!) {
  apps(first: $first) {
    edges { node { id name createdAt variants { edges { node { id name kind uri parameters revision revisions { revision parameters } app { name } } } } } }
  }
}`;

async function statementsFor(first: number) {
  server.resetQueries();
  const response = await server.graphql(appsWithVariants, { first });
  expect(response.errors).toBeUndefined();
  expect(response.data.apps.edges).toHaveLength(first);
  for (const edge of response.data.apps.edges) {
    expect(edge.node.variants.edges.map((e: any) => e.node.name)).toEqual(['a', 'b']);
    expect(edge.node.variants.edges[0].node.revisions).toEqual([{ revision: 1, parameters: {} }]);
    expect(edge.node.variants.edges[0].node.app.name).toBe(edge.node.name);
  }
  return server.queries.length;
}

describe('GraphQL', () => {
  it('loads 50 apps with their variants, revisions and back-links in a constant number of statements', async () => {
    const forFifty = await statementsFor(50);
    const forFive = await statementsFor(5);
    expect(forFifty).toBe(forFive);
    expect(forFifty).toBeLessThanOrEqual(6);
  });

  it('refuses a query deeper than the limit', async () => {
    let selection = 'id';
    for (let i = 0; i < 12; i++) selection = `app { variants { edges { node { ${selection} } } } }`;
    server.resetQueries();
    const response = await server.graphql(`{ apps { edges { node { variants { edges { node { ${selection} } } } } } } }`);
    // Pothos checks the limits before the root field runs: nothing is read (and the non-null
    // field's failure nulls the whole answer).
    expect(response.data).toBeNull();
    expect(response.errors[0]).toMatchObject({
      message: expect.stringMatching(/^Query depth \d+ exceeds the limit of 16$/),
      extensions: { code: 'QUERY_TOO_COMPLEX' },
    });
    expect(server.queries).toEqual([]);
  });

  describe('refuses documents built to exhaust the server, quickly and before anything runs', () => {
    const aliased = (count: number, field: string) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
    const cases: [string, string, string][] = [
      // These overflowed graphql-js' recursive parser: "Unexpected error.".
      ['selections nested 2,000 deep', `{ apps { ${'edges { '.repeat(2_000)}id${' }'.repeat(2_000)} } }`, 'nesting'],
      ['a list literal nested 10,000 deep', `{ apps(first: ${'['.repeat(10_000)}1${']'.repeat(10_000)}) { edges { node { id } } } }`, 'nesting'],
      ['selections nested 10,000 deep', `{ apps { ${'edges { '.repeat(10_000)}id${' }'.repeat(10_000)} } }`, 'length'],
      // These ran: 2.5 s and 670 MB, and 6.8 s and 1.38 GB.
      ['300,000 aliased __typename fields', aliased(300_000, '__typename'), 'length'],
      ['3,000 aliased __schema selections', aliased(3_000, '__schema { types { name fields { name } } }'), 'length'],
      ['1,000 aliased __typename fields in a short document', aliased(1_000, '__typename'), 'tokens'],
      ['51 aliases', aliased(51, '__typename'), 'aliases'],
      ['four __schema selections', aliased(4, '__schema { types { name } }'), 'introspection'],
      [
        '__schema and __type through fragments',
        `{ ...A ...B } fragment A on Query { s: __schema { types { name } } t: __type(name: "App") { name } }
        fragment B on Query { u: __type(name: "Query") { name } v: __type(name: "Span") { name } }`,
        'introspection',
      ],
    ];
    for (const [name, query, limit] of cases) {
      it(name, async () => {
        server.resetQueries();
        const started = performance.now();
        const response = await server.request('POST', '/graphql', { query });
        expect(performance.now() - started).toBeLessThan(1_000);
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          errors: [{ message: expect.stringMatching(/\(limit \d+\)$/), extensions: { code: 'QUERY_TOO_COMPLEX', limit, max: expect.any(Number) } }],
        });
        expect(server.queries).toEqual([]);
      });
    }

    it('answers 400 also to a client asking for application/graphql-response+json', async () => {
      const response = await server.request(
        'POST',
        '/graphql',
        { query: aliased(4, '__schema { types { name } }') },
        { accept: 'application/graphql-response+json' },
      );
      expect(response.status).toBe(400);
      expect(response.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    });

    it("still answers a document at the limits, and GraphiQL's introspection query", async () => {
      const atLimits = await server.graphql(
        `{ ${Array.from({ length: 47 }, (_, i) => `a${i}: __typename`).join(' ')} s: __schema { queryType { name } } t: __type(name: "App") { name } u: __type(name: "Query") { name } }`,
      );
      expect(atLimits.errors).toBeUndefined();
      expect(atLimits.data).toMatchObject({ a0: 'Query', a46: 'Query', s: { queryType: { name: 'Query' } }, t: { name: 'App' } });
      const nested = await server.graphql(`{ apps(first: 1) { edges { node { name } } } }\n# ${'x'.repeat(50_000)}`);
      expect(nested.errors).toBeUndefined();
      const introspection = await server.graphql(
        getIntrospectionQuery({
          descriptions: true,
          specifiedByUrl: true,
          directiveIsRepeatable: true,
          schemaDescription: true,
          inputValueDeprecation: true,
          oneOf: true,
        }),
      );
      expect(introspection.errors).toBeUndefined();
      expect(introspection.data.__schema.types.map((type: any) => type.name)).toContain('App');
    });
  });

  it('serves GraphiQL to a browser', async () => {
    const response = await server.request('GET', '/graphql', undefined, { accept: 'text/html' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(response.text).toContain('Assay GraphQL');
  });
});
