import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { requestContext } from '../shared/context.js';
import { readTestsetRows } from './operations.js';
import { globalId } from '../shared/graphql/ids.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';

const capitals = [
  { country: 'France', correct_answer: 'Paris' },
  { country: 'Japan', correct_answer: 'Tokyo' },
  { country: 'Peru', correct_answer: 'Lima' },
];

async function createApp(name: string): Promise<string> {
  const response = await server.request('POST', '/apps', { app_name: name });
  expect(response.status).toBe(200);
  return response.body.app_id;
}

async function createTestset(body: Record<string, unknown>): Promise<{ id: string; name: string; created_at: string }> {
  const response = await server.request('POST', '/testsets', body);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

function notFound(id: string) {
  return { detail: `Testset with id ${id} not found` };
}

describe('POST /testsets', () => {
  it('creates a test set and answers {id, name, created_at}', async () => {
    const response = await server.request('POST', '/testsets', { name: 'capitals', csvdata: capitals });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['created_at', 'id', 'name']);
    expect(response.body.id).toMatch(UUID7);
    expect(response.body.name).toBe('capitals');
    expect(response.body.created_at).toMatch(ISO);
  });

  it('keeps any JSON value of a cell and the order of the rows', async () => {
    const rows = [{ question: 'q1', n: 1, ok: true, nothing: null, nested: { list: [1, 'two', { three: 3 }] } }, { question: 'q2', extra: 'only here' }, {}];
    const created = await createTestset({ name: 'any json', csvdata: rows });
    const response = await server.request('GET', `/testsets/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.body.csvdata).toEqual(rows);
  });

  it('allows two test sets with the same name', async () => {
    const first = await createTestset({ name: 'twin', csvdata: capitals });
    const second = await createTestset({ name: 'twin', csvdata: capitals });
    expect(second.id).not.toBe(first.id);
  });

  it('trims the name', async () => {
    const created = await createTestset({ name: '  padded  ', csvdata: capitals });
    expect(created.name).toBe('padded');
  });

  it.each([
    [
      'an empty body',
      {},
      [
        { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'csvdata'], msg: 'Field required', type: 'missing' },
      ],
    ],
    [
      'wrong types',
      { name: 42, csvdata: { country: 'France' }, app_id: 7 },
      [
        { loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type' },
        { loc: ['body', 'csvdata'], msg: 'Input should be a valid list', type: 'list_type' },
        { loc: ['body', 'app_id'], msg: 'Input should be a valid string', type: 'string_type' },
      ],
    ],
    [
      'a blank name and no rows',
      { name: '   ', csvdata: [] },
      [
        { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short' },
        { loc: ['body', 'csvdata'], msg: 'List should have at least 1 item', type: 'too_short' },
      ],
    ],
    [
      'a name over 255 characters',
      { name: 'n'.repeat(256), csvdata: capitals },
      [{ loc: ['body', 'name'], msg: 'String should have at most 255 characters', type: 'string_too_long' }],
    ],
    [
      'rows that are not objects',
      { name: 'rows', csvdata: [1, { a: 1 }, 'text', ['a'], null] },
      [0, 2, 3, 4].map((index) => ({ loc: ['body', 'csvdata', index], msg: 'Input should be a valid dictionary', type: 'dict_type' })),
    ],
    [
      'a body that is not an object',
      [capitals],
      [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }],
    ],
  ])('answers 422 for %s, listing every fault', async (_case, body, detail) => {
    const response = await server.request('POST', '/testsets', body);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail });
  });

  it('answers 422 json_invalid for malformed JSON', async () => {
    const response = await server.request('POST', '/testsets', '{"name": "broken", "csvdata": [', {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(422);
    expect(response.body.detail).toHaveLength(1);
    expect(response.body.detail[0]).toMatchObject({ loc: ['body', 31], msg: 'JSON decode error', type: 'json_invalid' });
  });

  it('answers 404 naming the app when app_id is not an app of the project', async () => {
    for (const appId of [UNKNOWN_ID, 'not-a-uuid']) {
      const response = await server.request('POST', '/testsets', { name: 'orphan', csvdata: capitals, app_id: appId });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: `App with id ${appId} not found` });
    }
  });

  it('stores 100,000 rows and reads them back in order, whole or in pages', async () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => ({ question: `What is ${i} + ${i}?`, correct_answer: String(2 * i) }));
    const created = await createTestset({ name: 'large', csvdata: rows });

    const whole = await server.request('GET', `/testsets/${created.id}`);
    expect(whole.status).toBe(200);
    expect(whole.body.csvdata).toHaveLength(100_000);
    expect(whole.body.csvdata[0]).toEqual(rows[0]);
    expect(whole.body.csvdata[54_321]).toEqual(rows[54_321]);
    expect(whole.body.csvdata[99_999]).toEqual(rows[99_999]);

    const project = await server.assay.db.project.findFirstOrThrow();
    const ctx = requestContext(server.assay.services, project.id);
    const first = await readTestsetRows(ctx, created.id, { limit: 3 });
    expect(first.map((row) => [row.position, row.data])).toEqual([
      [0, rows[0]],
      [1, rows[1]],
      [2, rows[2]],
    ]);
    const last = await readTestsetRows(ctx, created.id, { afterPosition: 99_997, limit: 10 });
    expect(last.map((row) => row.position)).toEqual([99_998, 99_999]);
    expect(last[1].data).toEqual(rows[99_999]);
    expect(last[1].id).toMatch(UUID7);
    expect(await readTestsetRows(ctx, created.id, { limit: 0 })).toEqual([]);
    expect(await readTestsetRows(ctx, created.id, { limit: -1 })).toEqual([]);
    // Another project reads nothing of this one.
    const otherCtx = requestContext(server.assay.services, UNKNOWN_ID);
    expect(await readTestsetRows(otherCtx, created.id, { limit: 3 })).toEqual([]);
  });
});

describe('GET /testsets/{id}', () => {
  it('answers {id, name, app_id, csvdata, created_at, updated_at}', async () => {
    const created = await createTestset({ name: 'shape', csvdata: capitals });
    const response = await server.request('GET', `/testsets/${created.id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['app_id', 'created_at', 'csvdata', 'id', 'name', 'updated_at']);
    expect(response.body).toEqual({
      id: created.id,
      name: 'shape',
      app_id: null,
      csvdata: capitals,
      created_at: created.created_at,
      updated_at: expect.stringMatching(ISO),
    });
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
      const response = await server.request('GET', `/testsets/${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual(notFound(id));
    }
  });

  it('is served under /api and with or without a trailing slash', async () => {
    const created = await createTestset({ name: 'paths', csvdata: capitals });
    for (const path of [`/testsets/${created.id}/`, `/api/testsets/${created.id}`, `/api/testsets/${created.id}/`]) {
      const response = await server.request('GET', path);
      expect(response.status, path).toBe(200);
      expect(response.body.id).toBe(created.id);
    }
    expect((await server.request('POST', '/api/testsets/', { name: 'posted under api', csvdata: capitals })).status).toBe(200);
  });
});

describe('GET /testsets', () => {
  it('lists test sets oldest first as {id, name, app_id, created_at, updated_at}', async () => {
    const first = await createTestset({ name: 'listed-1', csvdata: capitals });
    const second = await createTestset({ name: 'listed-2', csvdata: capitals });
    const response = await server.request('GET', '/testsets');
    expect(response.status).toBe(200);
    const ids = response.body.map((testset: { id: string }) => testset.id);
    expect(ids.indexOf(first.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(second.id)).toBeGreaterThan(ids.indexOf(first.id));
    const listed = response.body.find((testset: { id: string }) => testset.id === first.id);
    expect(Object.keys(listed).sort()).toEqual(['app_id', 'created_at', 'id', 'name', 'updated_at']);
    expect(listed).toEqual({
      id: first.id,
      name: 'listed-1',
      app_id: null,
      created_at: first.created_at,
      updated_at: expect.stringMatching(ISO),
    });
  });

  it('filters by app_id', async () => {
    const appId = await createApp('filtered-app');
    const otherAppId = await createApp('other-filtered-app');
    const mine = await createTestset({ name: 'of the app', csvdata: capitals, app_id: appId });
    await createTestset({ name: 'of the other app', csvdata: capitals, app_id: otherAppId });
    await createTestset({ name: 'of no app', csvdata: capitals });
    const response = await server.request('GET', `/testsets?app_id=${appId}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([{ id: mine.id, name: 'of the app', app_id: appId, created_at: mine.created_at, updated_at: expect.stringMatching(ISO) }]);
    expect((await server.request('GET', `/testsets/${mine.id}`)).body.app_id).toBe(appId);
  });

  it('answers 404 for an unknown app and 422 for an empty app_id', async () => {
    const unknown = await server.request('GET', `/testsets?app_id=${UNKNOWN_ID}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: `App with id ${UNKNOWN_ID} not found` });
    const empty = await server.request('GET', '/testsets?app_id=');
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({
      detail: [{ loc: ['query', 'app_id'], msg: 'String should have at least 1 character', type: 'string_too_short' }],
    });
  });

  it('keeps a test set when its app is deleted, without the app', async () => {
    const appId = await createApp('short-lived-app');
    const created = await createTestset({ name: 'outlives its app', csvdata: capitals, app_id: appId });
    expect((await server.request('DELETE', `/apps/${appId}`)).status).toBe(204);
    const response = await server.request('GET', `/testsets/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.body.app_id).toBeNull();
  });
});

describe('PUT /testsets/{id}', () => {
  it('replaces the name and all rows and answers like GET', async () => {
    const created = await createTestset({ name: 'before', csvdata: capitals });
    const before = await server.request('GET', `/testsets/${created.id}`);
    const rows = [{ question: 'Only one now', correct_answer: 'yes' }];
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await server.request('PUT', `/testsets/${created.id}`, { name: 'after', csvdata: rows });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: created.id,
      name: 'after',
      app_id: null,
      csvdata: rows,
      created_at: created.created_at,
      updated_at: expect.stringMatching(ISO),
    });
    expect(Date.parse(response.body.updated_at)).toBeGreaterThan(Date.parse(before.body.updated_at));
    const read = await server.request('GET', `/testsets/${created.id}`);
    expect(read.body).toEqual(response.body);
    expect(await server.assay.db.testsetRow.count({ where: { testsetId: created.id } })).toBe(1);
  });

  it('answers 422 listing every fault, before looking the test set up', async () => {
    const response = await server.request('PUT', `/testsets/${UNKNOWN_ID}`, { name: '', csvdata: [{ a: 1 }, 'row'] });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [
        { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short' },
        { loc: ['body', 'csvdata', 1], msg: 'Input should be a valid dictionary', type: 'dict_type' },
      ],
    });
    const missing = await server.request('PUT', `/testsets/${UNKNOWN_ID}`, { name: 'x' });
    expect(missing.body).toEqual({ detail: [{ loc: ['body', 'csvdata'], msg: 'Field required', type: 'missing' }] });
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
      const response = await server.request('PUT', `/testsets/${id}`, { name: 'x', csvdata: capitals });
      expect(response.status).toBe(404);
      expect(response.body).toEqual(notFound(id));
    }
  });
});

describe('DELETE /testsets/{id} and DELETE /testsets', () => {
  it('deletes one test set with its rows', async () => {
    const created = await createTestset({ name: 'doomed', csvdata: capitals });
    const response = await server.request('DELETE', `/testsets/${created.id}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await server.request('GET', `/testsets/${created.id}`)).body).toEqual(notFound(created.id));
    expect(await server.assay.db.testsetRow.count({ where: { testsetId: created.id } })).toBe(0);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
      const response = await server.request('DELETE', `/testsets/${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual(notFound(id));
    }
  });

  it('deletes several test sets at once', async () => {
    const a = await createTestset({ name: 'bulk-a', csvdata: capitals });
    const b = await createTestset({ name: 'bulk-b', csvdata: capitals });
    const response = await server.request('DELETE', '/testsets', { testset_ids: [a.id, b.id, a.id] });
    expect(response.status).toBe(204);
    for (const id of [a.id, b.id]) expect((await server.request('GET', `/testsets/${id}`)).status).toBe(404);
  });

  it('deletes nothing when one id is unknown, naming the first unknown', async () => {
    const kept = await createTestset({ name: 'bulk-kept', csvdata: capitals });
    const response = await server.request('DELETE', '/testsets', { testset_ids: [kept.id, 'not-a-uuid', UNKNOWN_ID] });
    expect(response.status).toBe(404);
    expect(response.body).toEqual(notFound('not-a-uuid'));
    expect((await server.request('GET', `/testsets/${kept.id}`)).status).toBe(200);
  });

  it.each([
    [{}, [{ loc: ['body', 'testset_ids'], msg: 'Field required', type: 'missing' }]],
    [{ testset_ids: 'abc' }, [{ loc: ['body', 'testset_ids'], msg: 'Input should be a valid list', type: 'list_type' }]],
    [{ testset_ids: [] }, [{ loc: ['body', 'testset_ids'], msg: 'List should have at least 1 item', type: 'too_short' }]],
    [{ testset_ids: ['ok', 5] }, [{ loc: ['body', 'testset_ids', 1], msg: 'Input should be a valid string', type: 'string_type' }]],
  ])('answers 422 for a bulk delete of %j', async (body, detail) => {
    const response = await server.request('DELETE', '/testsets', body);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail });
  });
});

const testsetFields = `id databaseId name appId columns rowCount createdAt updatedAt`;

describe('GraphQL', () => {
  it('creates a test set and reads it with its columns in first-seen order', async () => {
    const appId = await createApp('graphql-app');
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
    const appId = await createApp('graphql-list-app');
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
    const fewAppId = await createApp('few-testsets');
    const manyAppId = await createApp('many-testsets');
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
