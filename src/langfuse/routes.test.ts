// Langfuse's REST routes for scores, score configs and sessions (routes.ts) over HTTP: Langfuse's
// shapes, pages and cursors, its 400 bodies naming the field, 404 for unknown ids and another
// project's alike, configs enforced and archived, and sessions read from Assay's traces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';

const KEY = 'langfuse-routes-key-0123456789abcdef';
let server: TestServer;
let otherKey: string;

const basic = (secret = KEY) => ({ authorization: `Basic ${Buffer.from(`pk-lf-public:${secret}`).toString('base64')}` });
const call = (method: string, path: string, body?: unknown, key = KEY) => server.request(method, `/api/public${path}`, body, basic(key));

async function storeTrace(trace: string, session: string | null, start: string, input: string) {
  const answer = await server.request(
    'POST',
    '/observability/trace',
    {
      trace,
      spans: [
        {
          id: `${trace}-root`,
          name: 'chat',
          spankind: 'AGENT',
          start_time: start,
          end_time: start,
          session_id: session,
          user: 'ada',
          inputs: { question: input },
          outputs: { answer: `re: ${input}` },
        },
      ],
    },
    basic(),
  );
  expect(answer.status).toBe(200);
}

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY });
  otherKey = (await server.request('POST', '/projects', { name: 'other' }, basic())).body.api_key.key;
});

afterAll(async () => {
  await server.close();
});

describe('scores', () => {
  it('creates a score, reads it by v1 and v2 paths, updates it by id and deletes it', async () => {
    const created = await call('POST', '/scores', { id: 'score-a', traceId: 'trace-a', name: 'accuracy', value: 0.5, comment: 'first' });
    expect(created).toMatchObject({ status: 200, body: { id: 'score-a' } });
    for (const path of ['/scores/score-a', '/v2/scores/score-a']) {
      const read = await call('GET', path);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        id: 'score-a',
        traceId: 'trace-a',
        observationId: null,
        sessionId: null,
        datasetRunId: null,
        name: 'accuracy',
        dataType: 'NUMERIC',
        value: 0.5,
        source: 'API',
        comment: 'first',
        configId: null,
        queueId: null,
        authorUserId: null,
        environment: 'default',
      });
      expect(Date.parse(read.body.timestamp)).not.toBeNaN();
    }
    expect((await call('POST', '/scores', { id: 'score-a', traceId: 'trace-a', name: 'accuracy', value: 0.7 })).status).toBe(200);
    expect((await call('GET', '/scores/score-a')).body).toMatchObject({ value: 0.7, comment: null });
    expect((await call('GET', '/v2/scores?traceId=trace-a')).body.meta.totalItems).toBe(1);

    const deleted = await call('DELETE', '/scores/score-a');
    expect(deleted).toMatchObject({ status: 200, body: { message: expect.any(String) } });
    const gone = await call('GET', '/scores/score-a');
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: expect.stringContaining('score-a'), error: 'LangfuseNotFoundError' });
    expect((await call('DELETE', '/scores/score-a')).status).toBe(404);
  });

  it('answers 404 for another project’s score, as for an unknown one, and never changes it', async () => {
    await call('POST', '/scores', { id: 'mine', traceId: 'trace-m', name: 'accuracy', value: 1 });
    for (const [method, path] of [
      ['GET', '/scores/mine'],
      ['GET', '/v2/scores/mine'],
      ['DELETE', '/scores/mine'],
    ] as const) {
      const answer = await call(method, path, undefined, otherKey);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error).toBe('LangfuseNotFoundError');
    }
    expect((await call('GET', '/v2/scores', undefined, otherKey)).body.data).toEqual([]);
    expect((await call('GET', '/scores/mine')).status).toBe(200);
  });

  it('lets a feedback key create scores through POST /api/public/scores, and nothing else', async () => {
    const projectId = (await server.request('GET', '/projects', undefined, basic())).body[0].id;
    const feedback = (await server.request('POST', `/projects/${projectId}/api-keys`, { name: 'thumbs', scopes: ['feedback'] }, basic())).body.key;
    expect((await call('POST', '/scores', { id: 'thumb-1', traceId: 'trace-f', name: 'thumbs_up', value: 1, dataType: 'BOOLEAN' }, feedback)).status).toBe(200);
    expect((await call('GET', '/scores/thumb-1')).body).toMatchObject({ source: 'API', stringValue: 'True' });
    for (const [method, path, body] of [
      ['GET', '/v2/scores', undefined],
      ['GET', '/scores/thumb-1', undefined],
      ['DELETE', '/scores/thumb-1', undefined],
      ['POST', '/ingestion', { batch: [] }],
      ['POST', '/score-configs', { name: 'x', dataType: 'NUMERIC' }],
    ] as const) {
      const refused = await call(method, path, body, feedback);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error, `${method} ${path}`).toBe('ForbiddenError');
    }
  });

  it('refuses a bad score with Langfuse’s 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ traceId: 't', value: 1 }, ['name']],
      [{ traceId: 't', name: 'x' }, ['value']],
      [{ name: 'x', value: 1 }, ['traceId']],
      [{ sessionId: 's', observationId: 'o', name: 'x', value: 1 }, ['traceId']],
      [{ traceId: 't', name: 'x', value: 'yes', dataType: 'NUMERIC' }, ['value']],
      [{ traceId: 't', name: 'x', value: 3, dataType: 'BOOLEAN' }, ['value']],
      [{ traceId: 't', name: 'x', value: 1, dataType: 'CORRECTION' }, ['dataType']],
      [{ traceId: 't', name: 'x', value: 1, source: 'HUMAN' }, ['source']],
      [{ traceId: 't', name: 'x', value: 'a'.repeat(501), dataType: 'TEXT' }, ['value']],
      [{ datasetRunId: 'run', name: 'x', value: 1 }, ['datasetRunId']],
    ];
    for (const [body, path] of cases) {
      const answer = await call('POST', '/scores', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.message, JSON.stringify(body)).toBe('Invalid request data');
      expect(
        answer.body.error.map((fault: { path: string[] }) => fault.path),
        JSON.stringify(body),
      ).toContainEqual(path);
    }
    expect((await call('GET', '/v2/scores?traceId=t')).body.data).toEqual([]);
  });

  it('pages the v2 list with Langfuse’s meta and its filters', async () => {
    for (let index = 0; index < 5; index++) {
      await call('POST', '/scores', {
        id: `page-${index}`,
        traceId: 'trace-page',
        observationId: index % 2 ? 'span-odd' : undefined,
        name: 'rank',
        value: index,
      });
    }
    const first = await call('GET', '/v2/scores?traceId=trace-page&limit=2&page=1');
    expect(first.body.meta).toEqual({ page: 1, limit: 2, totalItems: 5, totalPages: 3 });
    const third = await call('GET', '/v2/scores?traceId=trace-page&limit=2&page=3');
    expect(third.body.data).toHaveLength(1);
    const all = [...first.body.data, ...(await call('GET', '/v2/scores?traceId=trace-page&limit=2&page=2')).body.data, ...third.body.data];
    expect(new Set(all.map((score: { id: string }) => score.id)).size).toBe(5);
    expect((await call('GET', '/v2/scores?traceId=trace-page&operator=>=&value=3')).body.meta.totalItems).toBe(2);
    expect((await call('GET', '/v2/scores?traceId=trace-page&observationId=span-odd')).body.meta.totalItems).toBe(2);
    expect((await call('GET', '/v2/scores?scoreIds=page-0,page-4')).body.meta.totalItems).toBe(2);
    expect((await call('GET', '/v2/scores?traceId=trace-page&environment=production')).body.meta.totalItems).toBe(0);
    expect((await call('GET', '/v2/scores?traceId=trace-page&dataType=BOOLEAN')).body.meta.totalItems).toBe(0);
    expect((await call('GET', '/scores?traceId=trace-page&source=API')).body.meta.totalItems).toBe(5);

    const tooMany = await call('GET', '/v2/scores?limit=101');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error[0].path).toEqual(['limit']);
    const userId = await call('GET', '/v2/scores?userId=ada');
    expect(userId.status).toBe(400);
    expect(userId.body.error[0]).toMatchObject({ path: ['userId'], message: expect.stringContaining('not served') });
  });

  it('walks the v3 list by cursor, with the field groups asked for', async () => {
    for (let index = 0; index < 3; index++) {
      await call('POST', '/scores', {
        id: `v3-${index}`,
        traceId: 'trace-v3',
        observationId: 'span-v3',
        name: 'flag',
        value: index % 2,
        dataType: 'BOOLEAN',
        comment: `c${index}`,
      });
    }
    const first = await call('GET', '/v3/scores?traceId=trace-v3&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.meta).toEqual({ limit: 2, cursor: expect.any(String) });
    expect(first.body.data[0]).toEqual({
      id: expect.any(String),
      projectId: expect.any(String),
      name: 'flag',
      source: 'API',
      timestamp: expect.any(String),
      environment: 'default',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      dataType: 'BOOLEAN',
      value: expect.any(Boolean),
    });
    const second = await call('GET', `/v3/scores?traceId=trace-v3&limit=2&cursor=${first.body.meta.cursor}&fields=details,subject,annotation`);
    expect(second.body.meta).toEqual({ limit: 2 });
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0]).toMatchObject({
      comment: expect.stringMatching(/^c/),
      configId: null,
      authorUserId: null,
      queueId: null,
      subject: { kind: 'observation', id: 'span-v3', traceId: 'trace-v3' },
    });
    expect((await call('GET', '/v3/scores?traceId=trace-v3&dataType=boolean&value=true')).body.data.map((score: { id: string }) => score.id)).toEqual(['v3-1']);
    for (const [query, field] of [
      ['observationId=span-v3', 'observationId'],
      ['valueMin=1', 'dataType'],
      ['fields=everything', 'fields'],
      ['traceId=a&sessionId=b', 'traceId'],
      ['cursor=not-a-cursor', 'cursor'],
    ]) {
      const refused = await call('GET', `/v3/scores?${query}`);
      expect(refused.status, query).toBe(400);
      expect(
        refused.body.error.map((fault: { path: string[] }) => fault.path[0]),
        query,
      ).toContain(field);
    }
  });
});

describe('score configs', () => {
  it('creates, lists, reads, changes and archives configs, which scores must fit', async () => {
    const numeric = await call('POST', '/score-configs', { name: 'stars', dataType: 'NUMERIC', minValue: 1, maxValue: 5, description: 'one to five' });
    expect(numeric.status).toBe(200);
    expect(numeric.body).toMatchObject({
      name: 'stars',
      dataType: 'NUMERIC',
      minValue: 1,
      maxValue: 5,
      isArchived: false,
      description: 'one to five',
      categories: null,
    });
    const boolean = await call('POST', '/score-configs', { name: 'correct', dataType: 'BOOLEAN' });
    expect(boolean.body.categories).toEqual([
      { label: 'True', value: 1 },
      { label: 'False', value: 0 },
    ]);
    const categorical = await call('POST', '/score-configs', {
      name: 'tone',
      dataType: 'CATEGORICAL',
      categories: [
        { label: 'friendly', value: 1 },
        { label: 'rude', value: 0 },
      ],
    });
    expect(categorical.status).toBe(200);

    const listed = await call('GET', '/score-configs?limit=2&page=1');
    expect(listed.body.meta).toEqual({ page: 1, limit: 2, totalItems: 3, totalPages: 2 });
    expect((await call('GET', `/score-configs/${numeric.body.id}`)).body).toEqual(numeric.body);

    expect((await call('POST', '/scores', { traceId: 'tc', name: 'stars', value: 4, configId: numeric.body.id })).status).toBe(200);
    const tooHigh = await call('POST', '/scores', { traceId: 'tc', name: 'stars', value: 6, configId: numeric.body.id });
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.body.error.map((fault: { path: string[] }) => fault.path)).toContainEqual(['value']);
    const category = await call('POST', '/scores', { id: 'tone-1', traceId: 'tc', name: 'tone', value: 'rude', configId: categorical.body.id });
    expect(category.status).toBe(200);
    expect((await call('GET', '/scores/tone-1')).body).toMatchObject({ dataType: 'CATEGORICAL', value: 0, stringValue: 'rude', configId: categorical.body.id });
    const notACategory = await call('POST', '/scores', { traceId: 'tc', name: 'tone', value: 'bored', configId: categorical.body.id });
    expect(notACategory.status).toBe(400);
    const boolScore = await call('POST', '/scores', { id: 'correct-1', traceId: 'tc', name: 'correct', value: 1, configId: boolean.body.id });
    expect(boolScore.status).toBe(200);
    expect((await call('GET', '/scores/correct-1')).body).toMatchObject({ dataType: 'BOOLEAN', stringValue: 'True' });

    const changed = await call('PATCH', `/score-configs/${numeric.body.id}`, { maxValue: 10, description: 'one to ten' });
    expect(changed.body).toMatchObject({ maxValue: 10, minValue: 1, description: 'one to ten' });
    expect((await call('POST', '/scores', { traceId: 'tc', name: 'stars', value: 6, configId: numeric.body.id })).status).toBe(200);
    const archived = await call('PATCH', `/score-configs/${numeric.body.id}`, { isArchived: true });
    expect(archived.body.isArchived).toBe(true);
    const onArchived = await call('POST', '/scores', { traceId: 'tc', name: 'stars', value: 3, configId: numeric.body.id });
    expect(onArchived.status).toBe(400);
  });

  it('refuses a bad config naming the field, and answers 404 for another project’s', async () => {
    for (const [body, field] of [
      [{ dataType: 'NUMERIC' }, 'name'],
      [{ name: 'x', dataType: 'LIST' }, 'dataType'],
      [{ name: 'x'.repeat(36), dataType: 'NUMERIC' }, 'name'],
      [{ name: 'range', dataType: 'NUMERIC', minValue: 5, maxValue: 1 }, 'maxValue'],
      [{ name: 'empty', dataType: 'CATEGORICAL', categories: [] }, 'categories'],
      [{ name: 'text', dataType: 'TEXT' }, 'dataType'],
    ] as const) {
      const answer = await call('POST', '/score-configs', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.message, JSON.stringify(body)).toBe('Invalid request data');
      expect(
        answer.body.error.map((fault: { path: string[] }) => fault.path[0]),
        JSON.stringify(body),
      ).toContain(field);
    }
    const mine = await call('POST', '/score-configs', { name: 'private', dataType: 'NUMERIC' });
    expect((await call('GET', `/score-configs/${mine.body.id}`, undefined, otherKey)).status).toBe(404);
    const patched = await call('PATCH', `/score-configs/${mine.body.id}`, { isArchived: true }, otherKey);
    expect(patched).toMatchObject({ status: 404, body: { error: 'LangfuseNotFoundError' } });
    expect((await call('GET', `/score-configs/${mine.body.id}`)).body.isArchived).toBe(false);
    expect((await call('POST', '/scores', { traceId: 't', name: 'private', value: 1, configId: mine.body.id }, otherKey)).status).toBe(400);
  });
});

describe('sessions', () => {
  it('lists sessions with Langfuse’s meta and reads one with its traces', async () => {
    await storeTrace('sess-t1', 'conversation-1', '2026-01-01T10:00:00Z', 'hello');
    await storeTrace('sess-t2', 'conversation-1', '2026-01-01T10:05:00Z', 'and then?');
    await storeTrace('sess-t3', 'conversation-2', '2026-01-02T10:00:00Z', 'hi');
    await storeTrace('sess-t4', null, '2026-01-03T10:00:00Z', 'alone');

    const listed = await call('GET', '/sessions?limit=1');
    expect(listed.status).toBe(200);
    expect(listed.body.meta).toEqual({ page: 1, limit: 1, totalItems: 2, totalPages: 2 });
    expect(listed.body.data).toEqual([{ id: 'conversation-2', createdAt: '2026-01-02T10:00:00.000Z', projectId: expect.any(String), environment: 'default' }]);
    expect((await call('GET', '/sessions?limit=1&page=2')).body.data[0]).toMatchObject({ id: 'conversation-1', createdAt: '2026-01-01T10:00:00.000Z' });
    expect((await call('GET', '/sessions?fromTimestamp=2026-01-02T00:00:00Z')).body.data.map((session: { id: string }) => session.id)).toEqual([
      'conversation-2',
    ]);

    const read = await call('GET', '/sessions/conversation-1');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: 'conversation-1', createdAt: '2026-01-01T10:00:00.000Z', environment: 'default' });
    expect(read.body.traces.map((trace: { id: string }) => trace.id)).toEqual(['sess-t1', 'sess-t2']);
    expect(read.body.traces[0]).toMatchObject({
      sessionId: 'conversation-1',
      userId: 'ada',
      input: { question: 'hello' },
      output: { answer: 're: hello' },
      tags: [],
      public: false,
    });

    // A listed score shows its trace's user, environment and session (Langfuse's `trace` field group).
    await call('POST', '/scores', { id: 'on-sess-t2', traceId: 'sess-t2', name: 'accuracy', value: 1 });
    await call('POST', '/scores', { id: 'on-missing', traceId: 'not-arrived', name: 'accuracy', value: 1 });
    const listedScores = (await call('GET', '/v2/scores?name=accuracy&scoreIds=on-sess-t2,on-missing')).body.data;
    const withTrace = Object.fromEntries(listedScores.map((score: { id: string }) => [score.id, score]));
    expect(withTrace['on-sess-t2'].trace).toEqual({ userId: 'ada', tags: [], environment: 'default', sessionId: 'conversation-1' });
    expect(withTrace['on-missing'].trace).toBeUndefined();
    expect((await call('GET', '/v2/scores?scoreIds=on-sess-t2&fields=score')).body.data[0].trace).toBeUndefined();
    expect((await call('GET', '/v2/scores?fields=scores')).status).toBe(400);

    expect((await call('GET', '/sessions/nobody')).status).toBe(404);
    expect((await call('GET', '/sessions/conversation-1', undefined, otherKey)).status).toBe(404);
    expect((await call('GET', '/sessions', undefined, otherKey)).body.data).toEqual([]);
  });
});
