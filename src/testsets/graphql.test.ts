// Test sets over GraphQL: created and read with their columns, rows paged both ways with cursors
// it made, connections by app, updates and deletes, and nested rows in a constant number of statements.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createApp, CAPITALS as capitals, createTestsetFrom as createTestsetWith } from '../../test/helpers/evaluations.js';
import { ISO, UUID7 } from '../../test/helpers/contract.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();
const createTestset = (body: Record<string, unknown>) => createTestsetWith(server, body);

const testsetFields = `id databaseId name appId columns rowCount createdAt updatedAt`;

describe('GraphQL', () => {
  it('creates a test set and reads it with its columns in first-seen order', async () => {
    const appId = await createApp(server, 'graphql-app');
    const result = await server.graphql(
      `mutation($input: CreateTestsetInput!) { createTestset(input: $input) { ${testsetFields} app { id } rows { edges { cursor node { databaseId position data } } } } }`,
      {
        input: {
          name: 'from graphql',
          appId: globalId('App', appId),
          csvdata: [
            { b: 1, a: 'x' },
            { c: [1], a: 'y' },
          ],
        },
      },
    );
    expect(result.errors).toBeUndefined();
    const testset = result.data.createTestset;
    expect(testset).toMatchObject({
      name: 'from graphql',
      appId: globalId('App', appId),
      app: { id: globalId('App', appId) },
      columns: ['b', 'a', 'c'],
      rowCount: 2,
    });
    expect(testset.databaseId).toMatch(UUID7);
    expect(testset.id).toBe(globalId('Testset', testset.databaseId));
    expect(testset.createdAt).toMatch(ISO);
    expect(testset.updatedAt).toMatch(ISO);
    expect(testset.rows.edges.map((edge: any) => edge.node.data)).toEqual([
      { b: 1, a: 'x' },
      { c: [1], a: 'y' },
    ]);
    expect(testset.rows.edges.map((edge: any) => edge.node.position)).toEqual([0, 1]);
    expect(testset.rows.edges[0].node.databaseId).toMatch(UUID7);

    const rest = await server.request('GET', `/testsets/${testset.databaseId}`);
    expect(rest.body.csvdata).toEqual([
      { b: 1, a: 'x' },
      { c: [1], a: 'y' },
    ]);
  });

  it('reports invalid input with the REST loc and type', async () => {
    const result = await server.graphql(`mutation($input: CreateTestsetInput!) { createTestset(input: $input) { id } }`, {
      input: { name: ' ', csvdata: [{ a: 1 }, 'not a row'] },
    });
    expect(result.data?.createTestset ?? null).toBeNull();
    expect(result.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(result.errors[0].extensions.detail).toEqual([
      { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short' },
      { loc: ['body', 'csvdata', 1], msg: 'Input should be a valid dictionary', type: 'dict_type' },
    ]);
  });

  it('pages through the rows forwards and backwards', async () => {
    const rows = Array.from({ length: 7 }, (_, i) => ({ n: i }));
    const created = await createTestset({ name: 'paged', csvdata: rows });
    const page = (args: string) =>
      server.graphql(
        `query($id: ID!) { testset(id: $id) { rows(${args}) { pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { position data } } } } }`,
        { id: globalId('Testset', created.id) },
      );
    const seen: number[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const result = await page(after ? `first: 3, after: "${after}"` : 'first: 3');
      expect(result.errors).toBeUndefined();
      const connection = result.data.testset.rows;
      seen.push(...connection.edges.map((edge: any) => edge.node.data.n));
      pages += 1;
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== undefined);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(pages).toBe(3);

    const tail = (await page('last: 2')).data.testset.rows;
    expect(tail.edges.map((edge: any) => edge.node.position)).toEqual([5, 6]);
    expect(tail.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const beforeTail = (await page(`last: 2, before: "${tail.pageInfo.startCursor}"`)).data.testset.rows;
    expect(beforeTail.edges.map((edge: any) => edge.node.position)).toEqual([3, 4]);
  });

  it('refuses a cursor it did not make', async () => {
    const created = await createTestset({ name: 'cursor', csvdata: capitals });
    const result = await server.graphql(`query($id: ID!) { testset(id: $id) { rows(first: 1, after: "bogus") { edges { cursor } } } }`, {
      id: globalId('Testset', created.id),
    });
    expect(result.errors[0].message).toContain('Invalid cursor');
    expect(result.errors[0].extensions.detail).toEqual([{ loc: ['query', 'after'], msg: 'Invalid cursor', type: 'value_error' }]);
  });

  it('answers NOT_FOUND for an unknown test set', async () => {
    const result = await server.graphql(`query($id: ID!) { testset(id: $id) { id } }`, { id: globalId('Testset', 'not-a-uuid') });
    expect(result.errors[0].message).toBe('Testset with id not-a-uuid not found');
    expect(result.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('lists the test sets of an app as a connection', async () => {
    const appId = await createApp(server, 'graphql-list-app');
    const a = await createTestset({ name: 'gl-a', csvdata: capitals, app_id: appId });
    const b = await createTestset({ name: 'gl-b', csvdata: capitals, app_id: appId });
    const query = `query($app: ID, $after: String) { testsets(appId: $app, first: 1, after: $after) { pageInfo { hasNextPage endCursor } edges { node { databaseId name appId } } } }`;
    const app = globalId('App', appId);
    const first = await server.graphql(query, { app });
    expect(first.data.testsets.edges).toEqual([{ node: { databaseId: a.id, name: 'gl-a', appId: app } }]);
    expect(first.data.testsets.pageInfo.hasNextPage).toBe(true);
    const second = await server.graphql(query, { app, after: first.data.testsets.pageInfo.endCursor });
    expect(second.data.testsets.edges).toEqual([{ node: { databaseId: b.id, name: 'gl-b', appId: app } }]);
    expect(second.data.testsets.pageInfo.hasNextPage).toBe(false);
  });

  it('updates and deletes test sets', async () => {
    const created = await createTestset({ name: 'gql-before', csvdata: capitals });
    const updated = await server.graphql(
      `mutation($id: ID!, $input: UpdateTestsetInput!) { updateTestset(id: $id, input: $input) { id name columns rowCount rows { edges { node { data } } } } }`,
      { id: globalId('Testset', created.id), input: { name: 'gql-after', csvdata: [{ q: 'only' }] } },
    );
    expect(updated.errors).toBeUndefined();
    expect(updated.data.updateTestset).toEqual({
      id: globalId('Testset', created.id),
      name: 'gql-after',
      columns: ['q'],
      rowCount: 1,
      rows: { edges: [{ node: { data: { q: 'only' } } }] },
    });

    const deleted = await server.graphql(`mutation($id: ID!) { deleteTestset(id: $id) }`, { id: globalId('Testset', created.id) });
    expect(deleted.data.deleteTestset).toBe(globalId('Testset', created.id));
    expect((await server.request('GET', `/testsets/${created.id}`)).status).toBe(404);
    const again = await server.graphql(`mutation($id: ID!) { deleteTestset(id: $id) }`, { id: globalId('Testset', created.id) });
    expect(again.errors[0].extensions.code).toBe('NOT_FOUND');

    const a = await createTestset({ name: 'gql-bulk-a', csvdata: capitals });
    const b = await createTestset({ name: 'gql-bulk-b', csvdata: capitals });
    const bulk = await server.graphql(`mutation($ids: [ID!]!) { deleteTestsets(ids: $ids) }`, { ids: [globalId('Testset', a.id), globalId('Testset', b.id)] });
    expect(bulk.data.deleteTestsets).toEqual([globalId('Testset', a.id), globalId('Testset', b.id)]);
    expect((await server.request('GET', `/testsets/${b.id}`)).status).toBe(404);
  });

  it('reads nested rows of many test sets in a constant number of SQL statements', async () => {
    const fewAppId = await createApp(server, 'few-testsets');
    const manyAppId = await createApp(server, 'many-testsets');
    for (let i = 0; i < 2; i++) await createTestset({ name: `few-${i}`, csvdata: capitals, app_id: fewAppId });
    for (let i = 0; i < 20; i++) await createTestset({ name: `many-${i}`, csvdata: capitals, app_id: manyAppId });
    const query = `query($app: ID) { testsets(appId: $app, first: 50) { edges { node { name rowCount rows(first: 2) { pageInfo { hasNextPage } edges { node { position data } } } } } } }`;

    const statementsFor = async (appId: string) => {
      server.resetQueries();
      const result = await server.graphql(query, { app: globalId('App', appId) });
      expect(result.errors).toBeUndefined();
      return { result, statements: server.queries.length };
    };
    const few = await statementsFor(fewAppId);
    const many = await statementsFor(manyAppId);
    expect(many.result.data.testsets.edges).toHaveLength(20);
    for (const edge of many.result.data.testsets.edges) {
      expect(edge.node.rowCount).toBe(3);
      expect(edge.node.rows.pageInfo.hasNextPage).toBe(true);
      expect(edge.node.rows.edges.map((row: any) => row.node.data)).toEqual(capitals.slice(0, 2));
    }
    expect(many.statements).toBe(few.statements);
    expect(many.statements).toBeLessThanOrEqual(3);
  });
});
