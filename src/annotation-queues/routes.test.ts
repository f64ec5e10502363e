// Annotation queues over REST (docs/annotation-queues.md): queues and their items, next and
// complete with scores written through scores, progress and agreement, and the 422s naming fields.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { legacySpan } from '../../test/helpers/spans.js';

const INIT_KEY = 'assay_queue_test_admin_key_0123456789ab';
const server = useTestServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: INIT_KEY });

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
let reviewerA: string;
let reviewerB: string;
let reviewerC: string;
let viewer: string;
let helpfulness: string;
let correct: string;

async function as(key: string, method: string, path: string, body?: unknown) {
  return server.request(method, path, body, bearer(key));
}

async function issueKey(name: string, scopes: string[]): Promise<string> {
  const [project] = (await as(INIT_KEY, 'GET', '/projects')).body;
  const created = await as(INIT_KEY, 'POST', `/projects/${project.id}/api-keys`, { name, scopes });
  expect(created.status, created.text).toBe(200);
  return created.body.key;
}

/** A user of `role` in the project, with a password set through a link, signed in: their id and cookie. */
async function signedIn(email: string, role: 'viewer' | 'member'): Promise<{ id: string; cookie: string }> {
  const [project] = (await as(INIT_KEY, 'GET', '/projects')).body;
  const added = await as(INIT_KEY, 'POST', `/projects/${project.id}/members`, { email, role });
  const link = await as(INIT_KEY, 'POST', `/users/${added.body.user_id}/password-link`);
  const token = new URL(link.body.url).hash.replace('#token=', '');
  const password = 'a password long enough';
  expect((await server.request('POST', '/auth/password', { token, password })).status).toBe(204);
  const login = await server.request('POST', '/auth/login', { email, password });
  expect(login.status).toBe(200);
  return { id: added.body.user_id, cookie: /^assay_session=[^;]+/.exec(login.headers.get('set-cookie')!)![0] };
}

async function createQueue(body: Record<string, unknown>) {
  const created = await as(INIT_KEY, 'POST', '/annotation-queues', { name: 'review', target_type: 'trace', score_config_ids: [correct], ...body });
  expect(created.status, created.text).toBe(200);
  return created.body;
}

beforeAll(async () => {
  reviewerA = await issueKey('alice', ['read', 'write']);
  reviewerB = await issueKey('bob', ['read', 'write']);
  reviewerC = await issueKey('carol', ['read', 'write']);
  viewer = await issueKey('viewer', ['read']);
  helpfulness = (await as(INIT_KEY, 'POST', '/score-configs', { name: 'helpfulness', data_type: 'NUMERIC', min_value: 0, max_value: 5 })).body.id;
  correct = (await as(INIT_KEY, 'POST', '/score-configs', { name: 'correct', data_type: 'BOOLEAN' })).body.id;
});

describe('queues', () => {
  it('creates with defaults, reads, lists, changes and deletes', async () => {
    const queue = await createQueue({ name: 'weekly', instructions: 'Is it right?', score_config_ids: [correct, helpfulness] });
    expect(queue).toMatchObject({
      name: 'weekly',
      instructions: 'Is it right?',
      target_type: 'trace',
      score_config_ids: [correct, helpfulness],
      annotators_per_item: 1,
      lock_seconds: 300,
      assignees: [],
    });
    expect((await as(viewer, 'GET', `/annotation-queues/${queue.id}`)).body).toEqual(queue);
    expect((await as(viewer, 'GET', '/annotation-queues')).body.map((q: { id: string }) => q.id)).toContain(queue.id);
    const changed = await as(INIT_KEY, 'PATCH', `/annotation-queues/${queue.id}`, { annotators_per_item: 3, name: 'monthly' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ name: 'monthly', annotators_per_item: 3, target_type: 'trace' });
    expect((await as(INIT_KEY, 'DELETE', `/annotation-queues/${queue.id}`)).status).toBe(204);
    expect((await as(INIT_KEY, 'GET', `/annotation-queues/${queue.id}`)).status).toBe(404);
  });

  it('answers 422 naming the field', async () => {
    const bad = await as(INIT_KEY, 'POST', '/annotation-queues', {
      name: '',
      target_type: 'tweet',
      score_config_ids: [],
      annotators_per_item: 0,
      lock_seconds: 0,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((issue: { loc: unknown[] }) => issue.loc.join('.')).sort()).toEqual(
      ['body.annotators_per_item', 'body.lock_seconds', 'body.name', 'body.score_config_ids', 'body.target_type'].sort(),
    );
    const unknown = await as(INIT_KEY, 'POST', '/annotation-queues', {
      name: 'q',
      target_type: 'trace',
      score_config_ids: [correct, 'nope'],
      assignees: ['ghost'],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.map((issue: { loc: unknown[] }) => issue.loc.join('.'))).toEqual(['body.score_config_ids.1', 'body.assignees.0']);
    const queue = await createQueue({});
    const patch = await as(INIT_KEY, 'PATCH', `/annotation-queues/${queue.id}`, { lock_seconds: 'long' });
    expect(patch.status).toBe(422);
    expect(patch.body.detail[0].loc).toEqual(['body', 'lock_seconds']);
  });
});

describe('items', () => {
  it('adds one, a list (duplicates once), and refuses what does not fit the target type', async () => {
    const queue = await createQueue({});
    const one = await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { target_id: 't1' });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({
      added: 1,
      existing: 0,
      matched: null,
      items: [{ target_id: 't1', trace_id: null, status: 'pending', annotation_count: 0 }],
    });
    const list = await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, {
      items: [{ target_id: 't1' }, { target_id: 't2' }, { target_id: 't3' }, { target_id: 't2' }],
    });
    expect(list.body).toMatchObject({ added: 2, existing: 1 });
    expect(list.body.items.map((item: { target_id: string }) => item.target_id)).toEqual(['t1', 't2', 't3']);
    const page = await as(viewer, 'GET', `/annotation-queues/${queue.id}/items?limit=2`);
    expect(page.body.items.map((item: { target_id: string }) => item.target_id)).toEqual(['t1', 't2']);
    const rest = await as(viewer, 'GET', `/annotation-queues/${queue.id}/items?limit=2&cursor=${page.body.next_cursor}`);
    expect(rest.body).toMatchObject({ items: [{ target_id: 't3' }], next_cursor: null });

    const both = await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { target_id: 't4', items: [{ target_id: 't5' }] });
    expect(both.status).toBe(422);
    expect(both.body.detail[0].loc).toEqual(['body', 'items']);
    const withTrace = await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { items: [{ target_id: 's1', trace_id: 't1' }] });
    expect(withTrace.status).toBe(422);
    expect(withTrace.body.detail[0].loc).toEqual(['body', 'items', 0, 'trace_id']);
    const spans = await createQueue({ target_type: 'span' });
    const noTrace = await as(INIT_KEY, 'POST', `/annotation-queues/${spans.id}/items`, { target_id: 's1' });
    expect(noTrace.status).toBe(422);
    expect(noTrace.body.detail[0].loc).toEqual(['body', 'trace_id']);
    const span = await as(INIT_KEY, 'POST', `/annotation-queues/${spans.id}/items`, { target_id: 's1', trace_id: 't1' });
    expect(span.body.items[0]).toMatchObject({ target_id: 's1', trace_id: 't1' });
    const badFilter = await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { filter: { min_cost: 'cheap', colour: 'red' } });
    expect(badFilter.status).toBe(422);
    expect(badFilter.body.detail.map((issue: { loc: unknown[] }) => issue.loc.join('.')).sort()).toEqual(['body.filter', 'body.filter.min_cost'].sort());
    expect((await as(INIT_KEY, 'POST', `/annotation-queues/nope/items`, { target_id: 't1' })).status).toBe(404);
  });

  it("adds a filter's matches, capped, telling how many matched", async () => {
    const traceIds = Array.from({ length: 5 }, (_, i) => `filter-trace-${i}`);
    for (const [i, trace] of traceIds.entries()) {
      const spans = [legacySpan(`root-${i}`, null, i, i + 1, { name: i % 2 === 0 ? 'checkout' : 'search' })];
      const ingested = await as(INIT_KEY, 'POST', '/observability/trace', { trace, spans });
      expect(ingested.status, ingested.text).toBe(200);
    }
    const queue = await createQueue({});
    const added = await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { filter: { name_contains: 'checkout' }, limit: 2 });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toMatchObject({ added: 2, matched: 3 });
    // Newest first, as the trace search lists them.
    expect(added.body.items.map((item: { target_id: string }) => item.target_id).sort()).toEqual([traceIds[2], traceIds[4]].sort());
    const all = await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { filter: { name_contains: 'checkout' } });
    expect(all.body).toMatchObject({ added: 1, existing: 2, matched: 3 });
    // The trace list's score filters too, as JSON.
    await as(INIT_KEY, 'POST', '/scores', { trace_id: traceIds[1], name: 'flagged', value: true });
    const flagged = await createQueue({});
    const byScore = await as(INIT_KEY, 'POST', `/annotation-queues/${flagged.id}/items`, { filter: { scores: [{ name: 'flagged', present: true }] } });
    expect(byScore.status, byScore.text).toBe(200);
    expect(byScore.body).toMatchObject({ added: 1, matched: 1, items: [{ target_id: traceIds[1] }] });
    const sessions = await createQueue({ target_type: 'session' });
    const refused = await as(INIT_KEY, 'POST', `/annotation-queues/${sessions.id}/items`, { filter: {} });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'filter']);
  });
});

describe('next and complete', () => {
  it('locks an item to its reviewer, writes their scores, and is done at annotators_per_item', async () => {
    const queue = await createQueue({ annotators_per_item: 2, score_config_ids: [correct, helpfulness] });
    await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { items: [{ target_id: 'trace-1' }, { target_id: 'trace-2' }] });
    const a = (await as(reviewerA, 'POST', `/annotation-queues/${queue.id}/next`)).body.item;
    expect(a).toMatchObject({ target_id: 'trace-1', locked_by: expect.stringMatching(/^api_key:/) });
    // Asking again gives the same item (a retry holds one item, not two).
    expect((await as(reviewerA, 'POST', `/annotation-queues/${queue.id}/next`)).body.item.id).toBe(a.id);
    const b = (await as(reviewerB, 'POST', `/annotation-queues/${queue.id}/next`)).body.item;
    expect(b.target_id).toBe('trace-2');
    expect((await as(reviewerC, 'POST', `/annotation-queues/${queue.id}/next`)).body.item).toBeNull();
    const held = await as(reviewerC, 'POST', `/annotation-queues/${queue.id}/items/${a.id}/complete`, { scores: [] });
    expect(held.status).toBe(409);

    const done = await as(reviewerA, 'POST', `/annotation-queues/${queue.id}/items/${a.id}/complete`, {
      scores: [
        { config_id: correct, value: true },
        { config_id: helpfulness, value: 4, comment: 'one date wrong' },
      ],
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body.item).toMatchObject({ status: 'pending', annotation_count: 1, locked_by: null });
    expect(done.body.scores).toHaveLength(2);
    expect(done.body.scores[0]).toMatchObject({
      target: 'trace',
      trace_id: 'trace-1',
      name: 'correct',
      value: 1,
      source: 'annotation',
      metadata: { queue_id: queue.id, queue_item_id: a.id },
    });
    const stored = await as(INIT_KEY, 'GET', `/scores?trace_id=trace-1&source=annotation`);
    expect(stored.body.scores).toHaveLength(2);
    const again = await as(reviewerA, 'POST', `/annotation-queues/${queue.id}/items/${a.id}/complete`, { scores: [] });
    expect(again.status).toBe(409);
    // Reviewer A has annotated trace-1; B holds trace-2: nothing is left for A.
    expect((await as(reviewerA, 'POST', `/annotation-queues/${queue.id}/next`)).body.item).toBeNull();
    expect((await as(reviewerC, 'POST', `/annotation-queues/${queue.id}/next`)).body.item.id).toBe(a.id);
    const second = await as(reviewerC, 'POST', `/annotation-queues/${queue.id}/items/${a.id}/complete`, { scores: [{ config_id: correct, value: false }] });
    expect(second.body.item).toMatchObject({ status: 'done', annotation_count: 2 });
    expect(second.body.item.completed_at).not.toBeNull();

    const progress = await as(viewer, 'GET', `/annotation-queues/${queue.id}/progress`);
    expect(progress.body).toMatchObject({ items: 2, done: 1, pending: 1, in_review: 1, annotations: 2, required: 4 });
    expect(progress.body.reviewers.map((r: { label: string; annotations: number }) => [r.label.split(' ')[0], r.annotations]).sort()).toEqual([
      ['alice', 1],
      ['carol', 1],
    ]);
    const agreement = await as(viewer, 'GET', `/annotation-queues/${queue.id}/agreement`);
    expect(agreement.status, agreement.text).toBe(200);
    // Only `correct` has two reviewers on an item (C gave no helpfulness).
    expect(agreement.body).toEqual([
      expect.objectContaining({ name: 'correct', scenarios: 1, judgements: 2, observed_agreement: 0 }),
      expect.objectContaining({ name: 'helpfulness', scenarios: 0, fleiss_kappa: null }),
    ]);
  });

  it('refuses scores of configs not in the queue, 422 naming them', async () => {
    const queue = await createQueue({});
    const item = (await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { target_id: 'trace-x' })).body.items[0];
    const bad = await as(reviewerA, 'POST', `/annotation-queues/${queue.id}/items/${item.id}/complete`, {
      scores: [
        { config_id: helpfulness, value: 3 },
        { config_id: correct, value: 'maybe' },
      ],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'scores', 0, 'config_id']);
    const badValue = await as(reviewerA, 'POST', `/annotation-queues/${queue.id}/items/${item.id}/complete`, {
      scores: [{ config_id: correct, value: 'maybe' }],
    });
    expect(badValue.status).toBe(422);
    expect(badValue.body.detail[0].loc.slice(0, 3)).toEqual(['body', 'scores', 0]);
    // Nothing was counted.
    expect((await as(INIT_KEY, 'GET', `/annotation-queues/${queue.id}/items/${item.id}`)).body.annotation_count).toBe(0);
  });

  it('gives an item back when its lock expires', async () => {
    const queue = await createQueue({ lock_seconds: 1 });
    await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { target_id: 'slow' });
    const held = (await as(reviewerA, 'POST', `/annotation-queues/${queue.id}/next`)).body.item;
    expect((await as(reviewerB, 'POST', `/annotation-queues/${queue.id}/next`)).body.item).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await as(viewer, 'GET', `/annotation-queues/${queue.id}/items/${held.id}`)).body.locked_by).toBeNull();
    const taken = (await as(reviewerB, 'POST', `/annotation-queues/${queue.id}/next`)).body.item;
    expect(taken.id).toBe(held.id);
    expect((await as(reviewerA, 'POST', `/annotation-queues/${queue.id}/items/${held.id}/complete`, { scores: [] })).status).toBe(409);
    expect((await as(reviewerB, 'POST', `/annotation-queues/${queue.id}/items/${held.id}/complete`, { scores: [] })).status).toBe(200);
  });

  it('lets viewers read but not annotate', async () => {
    const queue = await createQueue({});
    const item = (await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { target_id: 'trace-v' })).body.items[0];
    expect((await as(viewer, 'GET', `/annotation-queues/${queue.id}/items`)).status).toBe(200);
    expect((await as(viewer, 'POST', `/annotation-queues/${queue.id}/next`)).status).toBe(403);
    expect((await as(viewer, 'POST', `/annotation-queues/${queue.id}/items/${item.id}/complete`, { scores: [] })).status).toBe(403);
    expect((await as(viewer, 'POST', `/annotation-queues/${queue.id}/items`, { target_id: 'trace-w' })).status).toBe(403);
  });

  it('on a queue with assignees, only they among users annotate; a viewer user reads but never annotates', async () => {
    const alice = await signedIn('alice@example.com', 'member');
    const bob = await signedIn('bob@example.com', 'member');
    const vera = await signedIn('vera@example.com', 'viewer');
    const queue = await createQueue({ assignees: [alice.id] });
    expect(queue.assignees).toEqual([alice.id]);
    await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { target_id: 'trace-assigned' });
    const cookie = (user: { cookie: string }) => ({ cookie: user.cookie });
    const refused = await server.request('POST', `/annotation-queues/${queue.id}/next`, undefined, cookie(bob));
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.detail).toMatch(/assignee/);
    const taken = await server.request('POST', `/annotation-queues/${queue.id}/next`, undefined, cookie(alice));
    expect(taken.body.item).toMatchObject({ target_id: 'trace-assigned', locked_by: `user:${alice.id}` });
    expect((await server.request('GET', `/annotation-queues/${queue.id}/items`, undefined, cookie(vera))).status).toBe(200);
    expect((await server.request('POST', `/annotation-queues/${queue.id}/next`, undefined, cookie(vera))).status).toBe(403);
    const done = await server.request(
      'POST',
      `/annotation-queues/${queue.id}/items/${taken.body.item.id}/complete`,
      { scores: [{ config_id: correct, value: true }] },
      cookie(alice),
    );
    expect(done.status, done.text).toBe(200);
    expect(done.body.scores[0]).toMatchObject({ source: 'annotation', author: { type: 'user', id: alice.id, label: 'alice@example.com' } });
    const progress = await as(INIT_KEY, 'GET', `/annotation-queues/${queue.id}/progress`);
    expect(progress.body.reviewers).toEqual([{ annotator: `user:${alice.id}`, label: 'alice@example.com', annotations: 1 }]);
  });

  it("answers another project's queue and items with 404", async () => {
    const queue = await createQueue({});
    const item = (await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, { target_id: 'trace-p' })).body.items[0];
    const other = await as(INIT_KEY, 'POST', '/projects', { name: 'other' });
    const outsider = other.body.api_key.key;
    for (const [method, path] of [
      ['GET', `/annotation-queues/${queue.id}`],
      ['GET', `/annotation-queues/${queue.id}/items`],
      ['GET', `/annotation-queues/${queue.id}/items/${item.id}`],
      ['POST', `/annotation-queues/${queue.id}/next`],
      ['POST', `/annotation-queues/${queue.id}/items/${item.id}/complete`],
      ['GET', `/annotation-queues/${queue.id}/progress`],
      ['DELETE', `/annotation-queues/${queue.id}`],
    ]) {
      expect((await as(outsider, method, path, method === 'POST' && path.endsWith('complete') ? { scores: [] } : undefined)).status, path).toBe(404);
    }
    expect((await as(outsider, 'GET', '/annotation-queues')).body).toEqual([]);
  });
});
