// Reviewers racing over real HTTP (docs/annotation-queues.md#next-and-complete): the count of
// annotations never exceeds annotators_per_item, however many reviewers take and complete at once.
import { beforeAll, describe, expect, it } from 'vitest';
import { requester, useTestServer } from '../../test/helpers/server.js';

const INIT_KEY = 'assay_queue_race_admin_key_0123456789ab';
const server = useTestServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: INIT_KEY, ASSAY_RATE_LIMIT_PER_MINUTE: '100000' });

let http: ReturnType<typeof requester>;
let reviewers: string[];
let correct: string;

const as = (key: string, method: string, path: string, body?: unknown) => http(method, path, body, { authorization: `Bearer ${key}` });

beforeAll(async () => {
  http = requester(server.baseUrl);
  const [project] = (await as(INIT_KEY, 'GET', '/projects')).body;
  reviewers = [];
  for (let i = 0; i < 20; i++)
    reviewers.push((await as(INIT_KEY, 'POST', `/projects/${project.id}/api-keys`, { name: `reviewer ${i}`, scopes: ['read', 'write'] })).body.key);
  correct = (await as(INIT_KEY, 'POST', '/score-configs', { name: 'correct', data_type: 'BOOLEAN' })).body.id;
});

async function queueOf(items: number, annotatorsPerItem: number): Promise<string> {
  const queue = (
    await as(INIT_KEY, 'POST', '/annotation-queues', {
      name: 'race',
      target_type: 'trace',
      score_config_ids: [correct],
      annotators_per_item: annotatorsPerItem,
    })
  ).body;
  const added = await as(INIT_KEY, 'POST', `/annotation-queues/${queue.id}/items`, {
    items: Array.from({ length: items }, (_, i) => ({ target_id: `trace-${i}` })),
  });
  expect(added.body.added).toBe(items);
  return queue.id;
}

describe('concurrent reviewers', () => {
  it('20 reviewers on 50 items with 2 annotators each end with exactly 100 annotations', async () => {
    const queueId = await queueOf(50, 2);
    const completedBy = reviewers.map(() => [] as string[]);
    await Promise.all(
      reviewers.map(async (key, index) => {
        for (;;) {
          const next = await as(key, 'POST', `/annotation-queues/${queueId}/next`);
          expect(next.status, next.text).toBe(200);
          if (!next.body.item) return;
          const done = await as(key, 'POST', `/annotation-queues/${queueId}/items/${next.body.item.id}/complete`, {
            scores: [{ config_id: correct, value: index % 2 === 0 }],
          });
          expect(done.status, done.text).toBe(200);
          completedBy[index].push(next.body.item.target_id);
        }
      }),
    );
    const progress = (await as(INIT_KEY, 'GET', `/annotation-queues/${queueId}/progress`)).body;
    expect(progress).toMatchObject({ items: 50, done: 50, pending: 0, annotations: 100, required: 100, in_review: 0 });
    expect(progress.reviewers.reduce((sum: number, r: { annotations: number }) => sum + r.annotations, 0)).toBe(100);
    const items = (await as(INIT_KEY, 'GET', `/annotation-queues/${queueId}/items?limit=100`)).body.items;
    expect(items.every((item: { annotation_count: number; status: string }) => item.annotation_count === 2 && item.status === 'done')).toBe(true);
    // No reviewer annotated an item twice, and every item has two reviewers' scores.
    for (const targets of completedBy) expect(new Set(targets).size).toBe(targets.length);
    expect(completedBy.flat()).toHaveLength(100);
    const scores = await as(INIT_KEY, 'GET', '/scores?source=annotation&name=correct&limit=1000');
    const ofQueue = scores.body.scores.filter((score: { metadata: { queue_id: string } }) => score.metadata.queue_id === queueId);
    expect(ofQueue).toHaveLength(100);
    const agreement = (await as(INIT_KEY, 'GET', `/annotation-queues/${queueId}/agreement`)).body;
    expect(agreement[0]).toMatchObject({ name: 'correct', scenarios: 50, judgements: 100 });
  }, 120_000);

  it('20 reviewers completing one free item at once: exactly annotators_per_item succeed', async () => {
    const queueId = await queueOf(1, 2);
    const [item] = (await as(INIT_KEY, 'GET', `/annotation-queues/${queueId}/items`)).body.items;
    const answers = await Promise.all(
      reviewers.map((key) => as(key, 'POST', `/annotation-queues/${queueId}/items/${item.id}/complete`, { scores: [{ config_id: correct, value: true }] })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status === 409)).toHaveLength(18);
    expect((await as(INIT_KEY, 'GET', `/annotation-queues/${queueId}/items/${item.id}`)).body).toMatchObject({ annotation_count: 2, status: 'done' });
    expect(
      (await as(INIT_KEY, 'GET', `/scores?trace_id=trace-0&source=annotation&limit=1000`)).body.scores.filter(
        (s: { metadata: { queue_id: string } }) => s.metadata.queue_id === queueId,
      ),
    ).toHaveLength(2);
  }, 60_000);
});
