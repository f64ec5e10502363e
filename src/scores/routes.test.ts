// Scores and score configs over REST (docs/scores.md#rest): one score or a list, updates by id,
// listing with every filter and cursors, deleting, configs created, listed, changed and archived.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server.close();
});

describe('POST /scores', () => {
  it('answers one score for one, a list for a list, and updates a score written again with its id', async () => {
    const one = await server.request('POST', '/scores', { id: 'rest-1', trace_id: 'rest-trace', name: 'thumbs', value: true, comment: 'nice' });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      id: 'rest-1',
      target: 'trace',
      trace_id: 'rest-trace',
      span_id: null,
      session_id: null,
      scenario_id: null,
      name: 'thumbs',
      data_type: 'BOOLEAN',
      value: 1,
      string_value: 'True',
      comment: 'nice',
      metadata: null,
      source: 'api',
      // Auth is off: the service itself writes.
      author: { type: 'system', id: null, label: null },
      config_id: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const list = await server.request('POST', '/scores', [
      { id: 'rest-1', trace_id: 'rest-trace', name: 'thumbs', value: false },
      { trace_id: 'rest-trace', span_id: 'rest-span', name: 'accuracy', value: 0.5, metadata: { by: 'grader' } },
    ]);
    expect(list.status).toBe(200);
    expect(list.body.map((score: any) => [score.id, score.target, score.value, score.metadata])).toEqual([
      ['rest-1', 'trace', 0, null],
      [expect.any(String), 'span', 0.5, { by: 'grader' }],
    ]);
    expect(list.body[0].created_at).toBe(one.body.created_at);
    const read = await server.request('GET', '/scores/rest-1');
    expect(read.body).toMatchObject({ id: 'rest-1', value: 0, string_value: 'False', comment: null });
  });

  it('answers 409 for an id written before for another target', async () => {
    await server.request('POST', '/scores', { id: 'rest-fixed', trace_id: 'one', name: 'n', value: 1 });
    const moved = await server.request('POST', '/scores', { id: 'rest-fixed', trace_id: 'two', name: 'n', value: 1 });
    expect(moved.status).toBe(409);
    expect(moved.body.detail).toMatch(/Score rest-fixed exists for another id \(trace one\)/);
  });
});

describe('GET /scores', () => {
  beforeAll(async () => {
    const written = await server.request('POST', '/scores', [
      { id: 'l-1', trace_id: 'list-t1', name: 'quality', value: 1, source: 'annotation' },
      { id: 'l-2', trace_id: 'list-t1', span_id: 'list-s1', name: 'quality', value: 2 },
      { id: 'l-3', trace_id: 'list-t2', name: 'tone', value: 'kind' },
      { id: 'l-4', session_id: 'list-session', name: 'resolved', value: true },
      { id: 'l-5', scenario_id: 'list-scenario', name: 'exact', value: 0, source: 'evaluation' },
    ]);
    expect(written.status).toBe(200);
  });

  const ids = async (query: string) => {
    const response = await server.request('GET', `/scores?${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body.scores.map((score: any) => score.id).sort();
  };

  it('filters by every field', async () => {
    expect(await ids('trace_id=list-t1')).toEqual(['l-1', 'l-2']);
    expect(await ids('span_id=list-s1')).toEqual(['l-2']);
    expect(await ids('session_id=list-session')).toEqual(['l-4']);
    expect(await ids('scenario_id=list-scenario')).toEqual(['l-5']);
    expect(await ids('name=quality')).toEqual(['l-1', 'l-2']);
    expect(await ids('source=annotation')).toEqual(['l-1']);
    expect(await ids('source=evaluation&data_type=NUMERIC')).toEqual(['l-5']);
    expect(await ids('data_type=CATEGORICAL&trace_id=list-t2')).toEqual(['l-3']);
    expect(await ids('target=session')).toEqual(['l-4']);
    expect(await ids(`started_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect((await ids('started_after=2020-01-01&name=quality')).length).toBe(2);
  });

  it('pages newest first with cursors, each score once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response: any = await server.request('GET', `/scores?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.status).toBe(200);
      seen.push(...response.body.scores.map((score: any) => score.id));
      const times = response.body.scores.map((score: any) => score.created_at);
      expect([...times].sort().reverse()).toEqual(times);
      cursor = response.body.next_cursor;
      pages++;
    } while (cursor);
    const all = (await server.request('GET', '/scores?limit=1000')).body.scores.map((score: any) => score.id);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.ceil(all.length / 2));
  });
});

describe('DELETE /scores/{id}', () => {
  it('deletes a score; an unknown one is 404', async () => {
    await server.request('POST', '/scores', { id: 'to-delete', trace_id: 't', name: 'n', value: 1 });
    expect((await server.request('DELETE', '/scores/to-delete')).status).toBe(204);
    expect((await server.request('GET', '/scores/to-delete')).status).toBe(404);
    const again = await server.request('DELETE', '/scores/to-delete');
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'Score with id to-delete not found' });
  });
});

describe('score configs', () => {
  it('are created, listed, read, changed and archived, never deleted', async () => {
    const created = await server.request('POST', '/score-configs', {
      name: 'helpfulness',
      data_type: 'NUMERIC',
      min_value: 0,
      max_value: 5,
      description: '0 to 5',
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'helpfulness',
      data_type: 'NUMERIC',
      min_value: 0,
      max_value: 5,
      categories: null,
      description: '0 to 5',
      is_archived: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const flag = await server.request('POST', '/score-configs', { name: 'flag', data_type: 'BOOLEAN' });
    expect(flag.body.categories).toEqual([
      { label: 'False', value: 0 },
      { label: 'True', value: 1 },
    ]);
    const id = created.body.id;
    expect((await server.request('GET', `/score-configs/${id}`)).body).toEqual(created.body);
    const changed = await server.request('PATCH', `/score-configs/${id}`, { max_value: 10, description: null });
    expect(changed.body).toMatchObject({ max_value: 10, description: null, is_archived: false });
    expect((await server.request('POST', '/scores', { trace_id: 't', config_id: id, value: 9 })).status).toBe(200);
    const archived = await server.request('PATCH', `/score-configs/${id}`, { is_archived: true });
    expect(archived.body.is_archived).toBe(true);
    const refused = await server.request('POST', '/scores', { trace_id: 't', config_id: id, value: 9 });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      { loc: ['body', 'config_id'], msg: 'Score config helpfulness is archived: it takes no new scores', type: 'value_error' },
    ]);
    expect((await server.request('GET', '/score-configs')).body.map((config: any) => config.name)).toEqual(['flag', 'helpfulness']);
    expect((await server.request('GET', '/score-configs?is_archived=false')).body.map((config: any) => config.name)).toEqual(['flag']);
    expect((await server.request('GET', '/score-configs?data_type=NUMERIC')).body.map((config: any) => config.name)).toEqual(['helpfulness']);
    expect((await server.request('DELETE', `/score-configs/${id}`)).status).toBe(404);
    expect((await server.request('GET', '/score-configs/nope')).status).toBe(404);
    expect((await server.request('PATCH', '/score-configs/nope', { is_archived: true })).status).toBe(404);
  });
});
