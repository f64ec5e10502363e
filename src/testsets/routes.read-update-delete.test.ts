// Reading, replacing and deleting test sets over HTTP: the shapes of GET, lists filtered by app,
// PUT's faults before the lookup, DELETE of one or several (all or nothing), 404 for unknown ids.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createApp, CAPITALS as capitals, createTestsetFrom as createTestsetWith } from '../../test/helpers/evaluations.js';
import { ISO, UNKNOWN_ID } from '../../test/helpers/contract.js';

const server = useTestServer();
const createTestset = (body: Record<string, unknown>) => createTestsetWith(server, body);

function notFound(id: string) {
  return { detail: `Testset with id ${id} not found` };
}

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
    const appId = await createApp(server, 'filtered-app');
    const otherAppId = await createApp(server, 'other-filtered-app');
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
    const appId = await createApp(server, 'short-lived-app');
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
    // The old rows stay as revision 1 (docs/resources.md#test-set-revisions); one row is current.
    expect(await server.assay.db.testsetRow.count({ where: { testsetId: created.id, revisionTo: null } })).toBe(1);
    expect(await server.assay.db.testsetRow.count({ where: { testsetId: created.id, revisionTo: 2 } })).toBe(3);
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
