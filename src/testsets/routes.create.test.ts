// POST /testsets over HTTP: the answer, any JSON cell kept in row order, names, every 422 fault,
// 404 for another project's app, and 100,000 rows stored and read back in order.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { CAPITALS as capitals, createTestsetFrom as createTestsetWith } from '../../test/helpers/evaluations.js';
import { ISO, UNKNOWN_ID, UUID7 } from '../../test/helpers/contract.js';
import { requestContext } from '../shared/context.js';
import { readTestsetRows } from './row-reads.js';

const server = useTestServer();
const createTestset = (body: Record<string, unknown>) => createTestsetWith(server, body);

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
