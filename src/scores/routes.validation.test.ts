// Every bad value of the score routes is a 422 in FastAPI's shape naming its field (docs/scores.md),
// never a 500: shapes checked by the schemas, values checked against data types and configs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server.close();
});

/** The `loc`s of a 422, joined with dots. */
async function refused(method: string, path: string, body?: unknown): Promise<string[]> {
  const response = await server.request(method, path, body);
  expect(response.status, response.text).toBe(422);
  return response.body.detail.map((issue: { loc: (string | number)[] }) => issue.loc.join('.'));
}

describe('POST /scores', () => {
  it('names the faulty fields of one score', async () => {
    expect(
      await refused('POST', '/scores', {
        target: 'message',
        trace_id: '',
        name: 'x'.repeat(201),
        data_type: 'PERCENT',
        value: { stars: 5 },
        comment: 7,
        source: 'app',
        config_id: 12,
      }),
    ).toEqual(
      expect.arrayContaining(['body.target', 'body.trace_id', 'body.name', 'body.data_type', 'body.value', 'body.comment', 'body.source', 'body.config_id']),
    );
  });

  it('names the input and field of each fault of a list', async () => {
    expect(
      await refused('POST', '/scores', [
        { trace_id: 't', name: 'ok', value: 1 },
        { trace_id: 't', name: 'n', data_type: 'NUMERIC', value: 'NaN' },
        { span_id: 's', name: 'n', value: 1 },
        { trace_id: 't', name: 'n', data_type: 'BOOLEAN', string_value: 'maybe' },
        { trace_id: 't', name: 'n', data_type: 'TEXT' },
      ]),
    ).toEqual(['body.1.value', 'body.2.trace_id', 'body.3.string_value', 'body.4.string_value']);
  });

  it('refuses an empty list, a list over 1000, and a body that is neither', async () => {
    expect((await server.request('POST', '/scores', [])).status).toBe(422);
    const many = Array.from({ length: 1001 }, (_, i) => ({ trace_id: 't', name: `n${i}`, value: i }));
    expect((await server.request('POST', '/scores', many)).status).toBe(422);
    expect((await server.request('POST', '/scores', 'thumbs up', { 'content-type': 'application/json' })).status).toBe(422);
    expect((await server.request('POST', '/scores', 42)).status).toBe(422);
  });

  it('checks a score against its config: range, categories, data type, name', async () => {
    const config = await server.request('POST', '/score-configs', {
      name: 'tone',
      data_type: 'CATEGORICAL',
      categories: [
        { label: 'rude', value: 0 },
        { label: 'kind', value: 1 },
      ],
    });
    const range = await server.request('POST', '/score-configs', { name: 'stars', data_type: 'NUMERIC', min_value: 1, max_value: 5 });
    const response = await server.request('POST', '/scores', [
      { trace_id: 't', config_id: config.body.id, value: 'angry' },
      { trace_id: 't', config_id: config.body.id, string_value: 'kind', value: 0 },
      { trace_id: 't', config_id: range.body.id, value: 0 },
      { trace_id: 't', config_id: range.body.id, value: 6, name: 'moons' },
      { trace_id: 't', config_id: 'not-a-config', value: 1, name: 'n' },
    ]);
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      { loc: ['body', 0, 'value'], msg: 'Not a category of score config tone: rude (0), kind (1)', type: 'value_error' },
      { loc: ['body', 1, 'value'], msg: 'The category kind has the value 1', type: 'value_error' },
      { loc: ['body', 2, 'value'], msg: 'Input should be greater than or equal to 1 (score config stars)', type: 'value_error' },
      { loc: ['body', 3, 'name'], msg: `The score config ${range.body.id} is named stars`, type: 'value_error' },
      { loc: ['body', 3, 'value'], msg: 'Input should be less than or equal to 5 (score config stars)', type: 'value_error' },
      { loc: ['body', 4, 'config_id'], msg: 'Score config not-a-config not found', type: 'value_error' },
    ]);
    expect((await server.request('GET', '/scores?trace_id=t')).body.scores).toEqual([]);
  });
});

describe('GET /scores', () => {
  it('names each bad query parameter', async () => {
    expect(await refused('GET', '/scores?data_type=PERCENT&source=app&target=x&limit=0&started_after=yesterday&started_before=2026-13-01')).toEqual([
      'query.target',
      'query.source',
      'query.data_type',
      'query.started_after',
      'query.started_before',
      'query.limit',
    ]);
    expect(await refused('GET', '/scores?limit=1001')).toEqual(['query.limit']);
    expect(await refused('GET', '/scores?cursor=not-a-cursor')).toEqual(['query.cursor']);
    expect(await refused('GET', `/scores?cursor=${Buffer.from('[1,2]').toString('base64url')}`)).toEqual(['query.cursor']);
  });
});

describe('score configs', () => {
  it('names the faulty fields of a new config', async () => {
    expect(await refused('POST', '/score-configs', { name: ' ', data_type: 'TEXT' })).toEqual(['body.name', 'body.data_type']);
    expect(await refused('POST', '/score-configs', { name: 'n', data_type: 'NUMERIC', min_value: 'low', categories: [{ label: '' }] })).toEqual([
      'body.min_value',
      'body.categories.0.label',
      'body.categories.0.value',
    ]);
    expect(await refused('POST', '/score-configs', { name: 'n', data_type: 'NUMERIC', min_value: 3, max_value: 1 })).toEqual(['body.max_value']);
    expect(await refused('POST', '/score-configs', { name: 'n', data_type: 'NUMERIC', categories: [{ label: 'a', value: 1 }] })).toEqual(['body.categories']);
    expect(await refused('POST', '/score-configs', { name: 'n', data_type: 'CATEGORICAL', categories: [] })).toEqual(['body.categories']);
  });

  it('names the faulty fields of a change, checked against the config it changes', async () => {
    const config = await server.request('POST', '/score-configs', { name: 'range', data_type: 'NUMERIC', min_value: 0, max_value: 10 });
    const path = `/score-configs/${config.body.id}`;
    expect(await refused('PATCH', path, { min_value: 11 })).toEqual(['body.max_value']);
    expect(await refused('PATCH', path, { is_archived: 'maybe', name: '' })).toEqual(['body.name', 'body.is_archived']);
    expect(await refused('PATCH', path, { categories: [{ label: 'a', value: 1 }] })).toEqual(['body.categories']);
    expect((await server.request('GET', path)).body).toMatchObject({ min_value: 0, max_value: 10, is_archived: false });
  });
});
