// Langfuse's batch ingestion (ingestion.ts) over HTTP with Langfuse's Basic auth: every event of a
// batch answered in the 207 body, scores stored and re-sent without doubling, a bad score refused
// alone naming its field, trace and observation events refused one by one, a body that is no
// batch a 400, and keys without the scope or of another project kept out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';

const KEY = 'langfuse-ingestion-key-0123456789abcdef';
let server: TestServer;
let otherKey: string;
let readKey: string;

const basic = (secret: string) => ({ authorization: `Basic ${Buffer.from(`pk-lf-public:${secret}`).toString('base64')}` });
const ingest = (batch: unknown, key = KEY) => server.request('POST', '/api/public/ingestion', { batch }, basic(key));
const scoreEvent = (id: string, body: Record<string, unknown>) => ({
  id: `event-${id}`,
  type: 'score-create',
  timestamp: new Date().toISOString(),
  body: { id, ...body },
});
const scoresOf = async (traceId: string, key = KEY) => (await server.request('GET', `/api/public/v2/scores?traceId=${traceId}`, undefined, basic(key))).body;

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY });
  const project = await server.request('POST', '/projects', { name: 'other' }, basic(KEY));
  otherKey = project.body.api_key.key;
  const key = await server.request(
    'POST',
    `/projects/${(await server.request('GET', '/projects', undefined, basic(KEY))).body[0].id}/api-keys`,
    { name: 'reader', scopes: ['read'] },
    basic(KEY),
  );
  readKey = key.body.key;
});

afterAll(async () => {
  await server.close();
});

describe('POST /api/public/ingestion', () => {
  it('stores score-create events of every data type and answers each 201 in a 207', async () => {
    const answer = await ingest([
      scoreEvent('s-num', { traceId: 'trace-1', name: 'accuracy', value: 0.75 }),
      scoreEvent('s-bool', { traceId: 'trace-1', observationId: 'span-1', name: 'correct', value: 1, dataType: 'BOOLEAN' }),
      scoreEvent('s-cat', { traceId: 'trace-1', name: 'tone', value: 'friendly', dataType: 'CATEGORICAL', comment: 'nice' }),
      scoreEvent('s-text', { traceId: 'trace-1', name: 'note', value: 'too long an answer', dataType: 'TEXT', metadata: { by: 'qa' } }),
      scoreEvent('s-session', { sessionId: 'session-1', name: 'satisfied', value: 0, dataType: 'BOOLEAN' }),
    ]);
    expect(answer.status).toBe(207);
    expect(answer.body.errors).toEqual([]);
    expect(answer.body.successes.map((success: { id: string }) => success.id).sort()).toEqual(
      ['event-s-bool', 'event-s-cat', 'event-s-num', 'event-s-session', 'event-s-text'].sort(),
    );
    expect(answer.body.successes.every((success: { status: number }) => success.status === 201)).toBe(true);

    const listed = await scoresOf('trace-1');
    const byId = Object.fromEntries(listed.data.map((score: { id: string }) => [score.id, score]));
    expect(byId['s-num']).toMatchObject({ dataType: 'NUMERIC', value: 0.75, traceId: 'trace-1', observationId: null, source: 'API', environment: 'default' });
    expect(byId['s-num'].stringValue).toBeUndefined();
    expect(byId['s-bool']).toMatchObject({ dataType: 'BOOLEAN', value: 1, stringValue: 'True', observationId: 'span-1' });
    expect(byId['s-cat']).toMatchObject({ dataType: 'CATEGORICAL', value: 0, stringValue: 'friendly', comment: 'nice' });
    expect(byId['s-text']).toMatchObject({ dataType: 'TEXT', stringValue: 'too long an answer', metadata: { by: 'qa' } });
    expect(byId['s-text'].value).toBeUndefined();
    const session = await server.request('GET', '/api/public/v2/scores?sessionId=session-1', undefined, basic(KEY));
    expect(session.body.data).toEqual([expect.objectContaining({ id: 's-session', sessionId: 'session-1', traceId: null, value: 0, stringValue: 'False' })]);
  });

  it('updates a score sent again with its id, never doubling it', async () => {
    await ingest([scoreEvent('again', { traceId: 'trace-2', name: 'accuracy', value: 0.1 })]);
    const resent = await ingest([
      scoreEvent('again', { traceId: 'trace-2', name: 'accuracy', value: 0.2 }),
      scoreEvent('again', { traceId: 'trace-2', name: 'accuracy', value: 0.3, comment: 'last' }),
    ]);
    expect(resent.status).toBe(207);
    expect(resent.body.successes).toHaveLength(2);
    const listed = await scoresOf('trace-2');
    expect(listed.meta.totalItems).toBe(1);
    expect(listed.data[0]).toMatchObject({ id: 'again', value: 0.3, comment: 'last' });
  });

  it('refuses a bad score alone, naming its field, and stores the rest', async () => {
    const config = await server.request('POST', '/api/public/score-configs', { name: 'stars', dataType: 'NUMERIC', minValue: 1, maxValue: 5 }, basic(KEY));
    expect(config.status).toBe(200);
    const answer = await ingest([
      scoreEvent('ok-1', { traceId: 'trace-3', name: 'stars', value: 4, configId: config.body.id }),
      scoreEvent('too-many', { traceId: 'trace-3', name: 'stars', value: 9, configId: config.body.id }),
      scoreEvent('bool-2', { traceId: 'trace-3', name: 'correct', value: 2, dataType: 'BOOLEAN' }),
      scoreEvent('no-target', { name: 'orphan', value: 1 }),
      scoreEvent('both', { traceId: 'trace-3', sessionId: 'session-3', name: 'x', value: 1 }),
      { id: 'no-body', type: 'score-create', timestamp: new Date().toISOString() },
      scoreEvent('ok-2', { traceId: 'trace-3', name: 'accuracy', value: 1 }),
    ]);
    expect(answer.status).toBe(207);
    expect(answer.body.successes.map((success: { id: string }) => success.id).sort()).toEqual(['event-ok-1', 'event-ok-2']);
    const errors = Object.fromEntries(answer.body.errors.map((error: { id: string }) => [error.id, error]));
    expect(Object.keys(errors).sort()).toEqual(['event-bool-2', 'event-both', 'event-no-target', 'event-too-many', 'no-body']);
    for (const error of Object.values(errors) as { status: number; message: string; error: string }[]) {
      expect(error.status).toBe(400);
      expect(typeof error.message).toBe('string');
      expect(typeof error.error).toBe('string');
    }
    expect(errors['event-too-many'].error).toMatch(/^value: .*5/);
    expect(errors['event-bool-2'].error).toMatch(/value: Value must be a number equal to either 0 or 1/);
    expect(errors['event-no-target'].error).toMatch(/traceId: Provide exactly one of the following/);
    expect(errors['event-both'].error).toMatch(/traceId: Provide exactly one/);
    expect(errors['no-body'].message).toBe('Invalid request data');
    expect((await scoresOf('trace-3')).meta.totalItems).toBe(2);
  });

  it('refuses alone a score whose id another target holds, as a conflict, and stores the rest', async () => {
    await ingest([scoreEvent('taken', { traceId: 'trace-c1', name: 'accuracy', value: 1 })]);
    const answer = await ingest([
      scoreEvent('fine-1', { traceId: 'trace-c2', name: 'accuracy', value: 1 }),
      scoreEvent('taken', { traceId: 'trace-c2', name: 'accuracy', value: 0 }),
      scoreEvent('fine-2', { sessionId: 'session-c', name: 'accuracy', value: 1 }),
    ]);
    expect(answer.body.successes.map((success: { id: string }) => success.id).sort()).toEqual(['event-fine-1', 'event-fine-2']);
    expect(answer.body.errors).toEqual([{ id: 'event-taken', status: 409, message: 'Conflict', error: expect.stringContaining('taken') }]);
    expect((await scoresOf('trace-c1')).data).toEqual([expect.objectContaining({ id: 'taken', value: 1 })]);
    expect((await scoresOf('trace-c2')).data.map((score: { id: string }) => score.id)).toEqual(['fine-1']);
  });

  it('refuses trace and observation events one by one, saying where they go, and takes sdk-log', async () => {
    const now = new Date().toISOString();
    const answer = await ingest([
      { id: 'e-trace', type: 'trace-create', timestamp: now, body: { id: 't', name: 'chat' } },
      { id: 'e-span', type: 'span-create', timestamp: now, body: { id: 's', traceId: 't' } },
      { id: 'e-gen', type: 'generation-create', timestamp: now, body: { id: 'g', traceId: 't', model: 'gpt-4o' } },
      { id: 'e-update', type: 'generation-update', timestamp: now, body: { id: 'g' } },
      { id: 'e-what', type: 'something-new', timestamp: now, body: {} },
      { id: 'e-log', type: 'sdk-log', timestamp: now, body: { log: 'hello' } },
      { type: 'score-create' },
      'not an event',
      scoreEvent('mixed', { traceId: 't', name: 'accuracy', value: 1 }),
    ]);
    expect(answer.status).toBe(207);
    expect(answer.body.successes).toEqual([
      { id: 'e-log', status: 201 },
      { id: 'event-mixed', status: 201 },
    ]);
    const errors = answer.body.errors as { id: string; status: number; message: string; error: string }[];
    expect(errors.map((error) => error.id)).toEqual(['e-trace', 'e-span', 'e-gen', 'e-update', 'e-what', 'unknown', 'unknown']);
    for (const error of errors.slice(0, 5)) {
      expect(error).toMatchObject({ status: 400, message: 'Event type not accepted' });
      expect(error.error).toContain('/api/public/otel');
    }
    expect(errors[0].error).toContain('"trace-create"');
    expect(errors[5]).toMatchObject({ status: 400, message: 'Invalid request data' });
  });

  it('answers 207 with nothing for an empty batch, and 400 in Langfuse’s body for a body that is no batch', async () => {
    expect(await ingest([])).toMatchObject({ status: 207, body: { successes: [], errors: [] } });
    const noBatch = await server.request('POST', '/api/public/ingestion', { events: [] }, basic(KEY));
    expect(noBatch.status).toBe(400);
    expect(noBatch.body).toEqual({ message: 'Invalid request data', error: [expect.objectContaining({ path: ['batch'] })] });
    const notJson = await server.request('POST', '/api/public/ingestion', '{"batch": [', { ...basic(KEY), 'content-type': 'application/json' });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ error: 'InvalidRequestError' });
  });

  it('keeps out keys without the ingest scope, bad keys and none, in Langfuse’s body', async () => {
    const reader = await ingest([scoreEvent('r', { traceId: 'trace-r', name: 'a', value: 1 })], readKey);
    expect(reader.status).toBe(403);
    expect(reader.body).toEqual({ message: 'This API key lacks the ingest scope', error: 'ForbiddenError' });
    const bad = await ingest([], 'not-a-key-at-all-0123456789');
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ message: 'The API key is not valid' });
    const none = await server.request('POST', '/api/public/ingestion', { batch: [] });
    expect(none.status).toBe(401);
    expect(none.body.message).toMatch(/API key/);
  });

  it("writes in the key's project: another project's scores stay apart, even under the same id", async () => {
    await ingest([scoreEvent('shared-id', { traceId: 'trace-p', name: 'accuracy', value: 0.5 })]);
    const other = await ingest([scoreEvent('shared-id', { traceId: 'trace-p', name: 'accuracy', value: 0.9 })], otherKey);
    expect(other.body.successes).toHaveLength(1);
    expect((await scoresOf('trace-p')).data).toEqual([expect.objectContaining({ id: 'shared-id', value: 0.5 })]);
    expect((await scoresOf('trace-p', otherKey)).data).toEqual([expect.objectContaining({ id: 'shared-id', value: 0.9 })]);
  });
});
