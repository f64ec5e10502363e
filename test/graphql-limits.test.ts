// GraphQL answers nested lists in a constant number of SQL statements, and refuses queries built
// to exhaust the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  for (let i = 0; i < 50; i++) {
    const app = (await server.request('POST', '/apps', { app_name: `app-${String(i).padStart(2, '0')}` })).body;
    for (const name of ['a', 'b']) {
      await server.request('POST', `/apps/${app.app_id}/variants`, { variant_name: name, kind: 'endpoint', uri: 'http://127.0.0.1:9/' });
    }
  }
});
afterAll(() => server.close());

const appsWithVariants = `query($first: Int!) {
  apps(first: $first) {
    edges { node { id name created_at variants { edges { node { id name kind uri parameters revision revisions { revision parameters } app { name } } } } } }
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
    expect(response.errors[0]).toMatchObject({ message: expect.stringMatching(/^Query depth \d+ exceeds the limit of 16$/), extensions: { code: 'QUERY_TOO_COMPLEX' } });
    expect(server.queries).toEqual([]);
  });

  it('serves GraphiQL to a browser', async () => {
    const response = await server.request('GET', '/graphql', undefined, { accept: 'text/html' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(response.text).toContain('Assay GraphQL');
  });
});
