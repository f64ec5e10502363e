// A feedback key from the outside (docs/scores.md#feedback-keys): over HTTP with auth on, it writes
// scores from a page on an origin of ASSAY_CORS_ORIGINS (preflight and all), under its rate limit;
// it reads nothing, deletes nothing, and never changes another author's score.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';

const INIT_KEY = 'assay_feedback_test_admin_key_0123456789';
const SHOP = 'http://shop.example';

let server: TestServer;
let feedbackKey: string;
let otherFeedbackKey: string;

/** A request over the socket, as a browser or a script sends it. */
async function send(method: string, path: string, options: { key?: string; origin?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.origin) headers.origin = options.origin;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
}

async function issueKey(name: string, scopes: string[]): Promise<{ id: string; key: string }> {
  const projects = await send('GET', '/projects', { key: INIT_KEY });
  const created = await send('POST', `/projects/${projects.body[0].id}/api-keys`, { key: INIT_KEY, body: { name, scopes } });
  expect(created.status, created.text).toBe(200);
  return created.body;
}

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: INIT_KEY, ASSAY_CORS_ORIGINS: SHOP, ASSAY_RATE_LIMIT_PER_MINUTE: '20' });
  feedbackKey = (await issueKey('thumbs', ['feedback'])).key;
  otherFeedbackKey = (await issueKey('other page', ['feedback'])).key;
});

afterAll(async () => {
  await server.close();
});

describe('a feedback key', () => {
  it('writes a score from a page on an allowed origin, preflight first', async () => {
    const preflight = await send('OPTIONS', '/scores', {
      origin: SHOP,
      headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization, content-type');

    const written = await send('POST', '/scores', {
      key: feedbackKey,
      origin: SHOP,
      headers: { 'sec-fetch-site': 'cross-site' },
      body: { id: 'fb-thumbs', trace_id: 'answer-1', name: 'thumbs', value: true, comment: 'helpful' },
    });
    expect(written.status, written.text).toBe(200);
    expect(written.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(written.body).toMatchObject({ id: 'fb-thumbs', source: 'api', value: 1, author: { type: 'api_key', label: expect.stringMatching(/^thumbs \(/) } });
    // The user changes their mind: the same id again updates their own score.
    const changed = await send('POST', '/scores', {
      key: feedbackKey,
      origin: SHOP,
      body: { id: 'fb-thumbs', trace_id: 'answer-1', name: 'thumbs', value: false },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.value).toBe(0);
    const read = await send('GET', '/scores/fb-thumbs', { key: INIT_KEY });
    expect(read.body).toMatchObject({ value: 0, string_value: 'False' });
  });

  it('is refused from a page on another origin', async () => {
    const preflight = await send('OPTIONS', '/scores', { origin: 'http://evil.example', headers: { 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const written = await send('POST', '/scores', {
      key: feedbackKey,
      origin: 'http://evil.example',
      headers: { 'sec-fetch-site': 'cross-site' },
      body: { trace_id: 'answer-1', name: 'thumbs', value: true },
    });
    expect(written.status).toBe(403);
    expect(written.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("never changes another author's score: another feedback key's, or one written with a write key", async () => {
    await send('POST', '/scores', { key: INIT_KEY, body: { id: 'by-admin', trace_id: 'answer-2', name: 'thumbs', value: true } });
    await send('POST', '/scores', { key: otherFeedbackKey, body: { id: 'by-other-page', trace_id: 'answer-2', name: 'thumbs', value: true } });
    for (const id of ['by-admin', 'by-other-page']) {
      const overwrite = await send('POST', '/scores', { key: feedbackKey, origin: SHOP, body: { id, trace_id: 'answer-2', name: 'thumbs', value: false } });
      expect(overwrite.status, id).toBe(403);
      expect(overwrite.body.detail).toBe(`Score ${id} was written by another author: a feedback key changes only its own scores`);
      expect((await send('GET', `/scores/${id}`, { key: INIT_KEY })).body.value, id).toBe(1);
    }
    const gql = await send('POST', '/graphql', {
      key: feedbackKey,
      body: { query: 'mutation { upsertScores(input: [{ databaseId: "by-admin", traceId: "answer-2", name: "thumbs", value: 0 }]) { value } }' },
    });
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('writes source "api" only', async () => {
    const refused = await send('POST', '/scores', { key: feedbackKey, body: { trace_id: 'answer-3', name: 'thumbs', value: true, source: 'annotation' } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([{ loc: ['body', 'source'], msg: 'A feedback key writes scores of source "api" only', type: 'value_error' }]);
  });

  it('reads nothing and deletes nothing, over REST and GraphQL; GraphQL upsertScores works', async () => {
    for (const [method, path, body] of [
      ['GET', '/scores', undefined],
      ['GET', '/scores/fb-thumbs', undefined],
      ['DELETE', '/scores/fb-thumbs', undefined],
      ['GET', '/score-configs', undefined],
      ['POST', '/score-configs', { name: 'n', data_type: 'BOOLEAN' }],
      ['GET', '/observability/traces', undefined],
      ['POST', '/observability/trace', { trace: 'x', spans: [] }],
    ] as const) {
      const response = await send(method, path, { key: feedbackKey, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.detail).toBe(
        'This API key lacks the ' + (method === 'GET' ? 'read' : path === '/observability/trace' ? 'ingest' : 'write') + ' scope',
      );
    }
    const query = await send('POST', '/graphql', { key: feedbackKey, body: { query: '{ scores { edges { node { value } } } }' } });
    expect(query.status).toBe(403);
    const written = await send('POST', '/graphql', {
      key: feedbackKey,
      origin: SHOP,
      body: {
        query:
          'mutation { upsertScores(input: [{ databaseId: "fb-gql", sessionId: "chat-1", name: "resolved", value: 1, dataType: BOOLEAN }]) { databaseId value source } }',
      },
    });
    expect(written.status).toBe(200);
    expect(written.body).toEqual({ data: { upsertScores: [{ databaseId: 'fb-gql', value: 1, source: 'API' }] } });
    expect(written.headers.get('access-control-allow-origin')).toBe(SHOP);
  });

  it("counts against the key's rate limit", async () => {
    const limited = await issueKey('limited page', ['feedback']);
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) {
      statuses.push((await send('POST', '/scores', { key: limited.key, origin: SHOP, body: { trace_id: 'busy', name: 'thumbs', value: true } })).status);
    }
    expect(statuses.slice(0, 20).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429]);
    const refused = await send('POST', '/scores', { key: limited.key, origin: SHOP, body: { trace_id: 'busy', name: 'thumbs', value: true } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('access-control-allow-origin')).toBe(SHOP);
    // Another key is not slowed down.
    expect((await send('POST', '/scores', { key: feedbackKey, origin: SHOP, body: { trace_id: 'busy', name: 'thumbs', value: true } })).status).toBe(200);
  });
});
