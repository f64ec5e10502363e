// The real `@langfuse/client` api client on Assay's annotation queues (docs/langfuse.md#annotation-queues):
// a queue created with a score config, trace items added, listed, completed (the caller's
// annotation, counted as Assay's own API counts it), an item of another object type refused,
// a member assigned and unassigned, an item removed, unknown ids 404.
import { LangfuseClient } from '@langfuse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { refusal } from './helpers/langfuse.js';

const KEY = 'langfuse-queues-key-0123456789abcdefghij';
let server: TestServer;
let langfuse: LangfuseClient;
const bearer = { authorization: `Bearer ${KEY}` };

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY });
  langfuse = new LangfuseClient({ publicKey: 'pk-lf-from-langfuse', secretKey: KEY, baseUrl: server.baseUrl });
});

afterAll(async () => {
  await langfuse.shutdown();
  await server.close();
});

describe('@langfuse/client annotation queues against Assay', () => {
  it('creates a queue, adds, lists and completes items, assigns a member', async () => {
    const config = await langfuse.api.scoreConfigs.create({ name: 'correct', dataType: 'BOOLEAN' });
    const queue = await langfuse.api.annotationQueues.createQueue({
      name: 'support review',
      description: 'Was the answer right?',
      scoreConfigIds: [config.id],
    });
    expect(queue).toMatchObject({ name: 'support review', description: 'Was the answer right?', scoreConfigIds: [config.id] });
    expect((await langfuse.api.annotationQueues.listQueues()).data.map((q) => q.id)).toEqual([queue.id]);
    expect(await langfuse.api.annotationQueues.getQueue(queue.id)).toEqual(queue);

    const first = await langfuse.api.annotationQueues.createQueueItem(queue.id, { objectId: 'trace-a', objectType: 'TRACE' });
    expect(first).toMatchObject({ queueId: queue.id, objectId: 'trace-a', objectType: 'TRACE', status: 'PENDING' });
    const second = await langfuse.api.annotationQueues.createQueueItem(queue.id, { objectId: 'trace-b', objectType: 'TRACE', status: 'COMPLETED' });
    expect(second.status).toBe('COMPLETED');
    expect(second.completedAt).toBeDefined();
    const items = await langfuse.api.annotationQueues.listQueueItems(queue.id);
    expect(items.meta).toMatchObject({ page: 1, totalItems: 2 });
    expect(items.data.map((item) => [item.objectId, item.status])).toEqual([
      ['trace-a', 'PENDING'],
      ['trace-b', 'COMPLETED'],
    ]);

    const completed = await langfuse.api.annotationQueues.updateQueueItem(queue.id, first.id, { status: 'COMPLETED' });
    expect(completed.status).toBe('COMPLETED');
    // Completing again changes nothing (the caller's annotation is counted once).
    expect((await langfuse.api.annotationQueues.updateQueueItem(queue.id, first.id, { status: 'COMPLETED' })).status).toBe('COMPLETED');
    expect((await langfuse.api.annotationQueues.listQueueItems(queue.id, { status: 'COMPLETED' })).data).toHaveLength(2);
    const progress = await server.request('GET', `/annotation-queues/${queue.id}/progress`, undefined, bearer);
    expect(progress.body).toMatchObject({ items: 2, done: 2, annotations: 2 });
    expect(await langfuse.api.annotationQueues.getQueueItem(queue.id, first.id)).toEqual(completed);

    const wrongType = await refusal(langfuse.api.annotationQueues.createQueueItem(queue.id, { objectId: 'span-a', objectType: 'OBSERVATION' }));
    expect(wrongType.statusCode).toBe(400);
    expect(JSON.stringify(wrongType.body)).toContain('objectType');

    const [project] = (await server.request('GET', '/projects', undefined, bearer)).body;
    const member = (await server.request('POST', `/projects/${project.id}/members`, { email: 'reviewer@example.com', role: 'member' }, bearer)).body;
    const assigned = await langfuse.api.annotationQueues.createQueueAssignment(queue.id, { userId: member.user_id });
    expect(assigned).toEqual({ userId: member.user_id, queueId: queue.id, projectId: project.id });
    expect((await server.request('GET', `/annotation-queues/${queue.id}`, undefined, bearer)).body.assignees).toEqual([member.user_id]);
    expect((await refusal(langfuse.api.annotationQueues.createQueueAssignment(queue.id, { userId: 'nobody' }))).statusCode).toBe(400);
    expect(await langfuse.api.annotationQueues.deleteQueueAssignment(queue.id, { userId: member.user_id })).toEqual({ success: true });
    expect((await server.request('GET', `/annotation-queues/${queue.id}`, undefined, bearer)).body.assignees).toEqual([]);

    expect((await langfuse.api.annotationQueues.deleteQueueItem(queue.id, second.id)).success).toBe(true);
    expect((await langfuse.api.annotationQueues.listQueueItems(queue.id)).meta.totalItems).toBe(1);
    expect((await refusal(langfuse.api.annotationQueues.getQueue('no-such-queue'))).statusCode).toBe(404);
    expect((await refusal(langfuse.api.annotationQueues.getQueueItem(queue.id, second.id))).statusCode).toBe(404);
  });
});
