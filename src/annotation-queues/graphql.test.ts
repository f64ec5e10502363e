// Annotation queues over GraphQL (docs/annotation-queues.md#graphql): a queue created with global
// config ids, items added and taken, completed with scores, progress and agreement, nodes, and the
// faults named as REST names them.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { legacySpan } from '../../test/helpers/spans.js';

const server = useTestServer();

const QUEUE_FIELDS = 'id databaseId name instructions targetType annotatorsPerItem lockSeconds assigneeIds scoreConfigs { name } createdAt updatedAt';
const ITEM_FIELDS = 'id databaseId targetId traceId status annotationCount lockedBy lockedUntil completedAt queue { databaseId }';

async function config(name: string) {
  const created = await server.graphql(`mutation($input: ScoreConfigInput!) { createScoreConfig(input: $input) { id } }`, {
    input: { name, dataType: 'BOOLEAN' },
  });
  expect(created.errors).toBeUndefined();
  return created.data.createScoreConfig.id as string;
}

describe('annotation queues over GraphQL', () => {
  it('creates a queue, adds items, takes and completes them, and reads progress, agreement and nodes', async () => {
    const correct = await config('correct');
    const created = await server.graphql(`mutation($input: AnnotationQueueInput!) { createAnnotationQueue(input: $input) { ${QUEUE_FIELDS} } }`, {
      input: { name: 'gql', targetType: 'TRACE', scoreConfigIds: [correct], instructions: 'be fair' },
    });
    expect(created.errors).toBeUndefined();
    const queue = created.data.createAnnotationQueue;
    expect(queue).toMatchObject({
      name: 'gql',
      targetType: 'TRACE',
      annotatorsPerItem: 1,
      lockSeconds: 300,
      assigneeIds: [],
      scoreConfigs: [{ name: 'correct' }],
    });

    const added = await server.graphql(
      `mutation($queueId: ID!, $targets: [AnnotationQueueTargetInput!]!) { addAnnotationQueueItems(queueId: $queueId, targets: $targets) { added existing matched items { ${ITEM_FIELDS} } } }`,
      { queueId: queue.id, targets: [{ targetId: 'g1' }, { targetId: 'g2' }] },
    );
    expect(added.errors).toBeUndefined();
    expect(added.data.addAnnotationQueueItems).toMatchObject({ added: 2, existing: 0, matched: null });
    expect(added.data.addAnnotationQueueItems.items[0]).toMatchObject({
      targetId: 'g1',
      traceId: null,
      status: 'PENDING',
      queue: { databaseId: queue.databaseId },
    });

    const next = await server.graphql(`mutation($queueId: ID!) { nextAnnotationQueueItem(queueId: $queueId) { ${ITEM_FIELDS} } }`, { queueId: queue.id });
    expect(next.errors).toBeUndefined();
    const item = next.data.nextAnnotationQueueItem;
    expect(item).toMatchObject({ targetId: 'g1', lockedBy: 'system' });
    const done = await server.graphql(
      `mutation($id: ID!, $scores: [AnnotationScoreInput!]!) { completeAnnotationQueueItem(id: $id, scores: $scores) { item { status annotationCount completedAt } scores { name value source metadata traceId } } }`,
      { id: item.id, scores: [{ configId: correct, value: 1 }] },
    );
    expect(done.errors).toBeUndefined();
    expect(done.data.completeAnnotationQueueItem.item).toMatchObject({ status: 'DONE', annotationCount: 1 });
    expect(done.data.completeAnnotationQueueItem.scores).toEqual([
      { name: 'correct', value: 1, source: 'ANNOTATION', metadata: { queue_id: queue.databaseId, queue_item_id: item.databaseId }, traceId: 'g1' },
    ]);
    const again = await server.graphql(`mutation($id: ID!) { completeAnnotationQueueItem(id: $id, scores: []) { item { status } } }`, { id: item.id });
    expect(again.errors[0].extensions.code).toBe('CONFLICT');

    const read = await server.graphql(
      `query($id: ID!) { node(id: $id) { ... on AnnotationQueue { name progress { items done pending annotations required reviewers { annotator annotations } } agreement { name agreement { scenarios } } items(first: 1) { edges { node { targetId } } pageInfo { hasNextPage endCursor } } } } }`,
      { id: queue.id },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data.node).toMatchObject({
      name: 'gql',
      progress: { items: 2, done: 1, pending: 1, annotations: 1, required: 2, reviewers: [{ annotator: 'system', annotations: 1 }] },
      agreement: [{ name: 'correct', agreement: { scenarios: 0 } }],
      items: { edges: [{ node: { targetId: 'g1' } }], pageInfo: { hasNextPage: true } },
    });
    const pending = await server.graphql(
      `query($id: ID!) { node(id: $id) { ... on AnnotationQueue { items(status: PENDING) { edges { node { targetId } } } } } }`,
      { id: queue.id },
    );
    expect(pending.data.node.items.edges).toEqual([{ node: { targetId: 'g2' } }]);
    const list = await server.graphql(`{ annotationQueues { edges { node { databaseId } } } }`);
    expect(list.data.annotationQueues.edges.map((edge: { node: { databaseId: string } }) => edge.node.databaseId)).toContain(queue.databaseId);
    const itemNode = await server.graphql(`query($id: ID!) { node(id: $id) { ... on AnnotationQueueItem { targetId status } } }`, { id: item.id });
    expect(itemNode.data.node).toEqual({ targetId: 'g1', status: 'DONE' });

    const changed = await server.graphql(
      `mutation($id: ID!, $input: AnnotationQueuePatchInput!) { updateAnnotationQueue(id: $id, input: $input) { annotatorsPerItem } }`,
      {
        id: queue.id,
        input: { annotatorsPerItem: 2 },
      },
    );
    expect(changed.data.updateAnnotationQueue.annotatorsPerItem).toBe(2);
    expect((await server.graphql(`query($id: ID!) { node(id: $id) { ... on AnnotationQueueItem { status } } }`, { id: item.id })).data.node.status).toBe(
      'PENDING',
    );
    const removed = await server.graphql(`mutation($id: ID!) { deleteAnnotationQueue(id: $id) }`, { id: queue.id });
    expect(removed.data.deleteAnnotationQueue).toBe(queue.id);
    expect((await server.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id: queue.id })).data.node).toBeNull();
  });

  it("adds a filter's matches with the trace search's arguments", async () => {
    for (const [i, name] of ['refund', 'refund', 'greeting'].entries()) {
      const stored = await server.request('POST', '/observability/trace', { trace: `gf-${i}`, spans: [legacySpan(`r${i}`, null, i, i + 1, { name })] });
      expect(stored.status).toBe(200);
    }
    const correct = await config('refund-ok');
    const queue = (
      await server.graphql(`mutation($input: AnnotationQueueInput!) { createAnnotationQueue(input: $input) { id } }`, {
        input: { name: 'f', targetType: 'TRACE', scoreConfigIds: [correct] },
      })
    ).data.createAnnotationQueue;
    const added = await server.graphql(
      `mutation($queueId: ID!) { addAnnotationQueueItemsFromFilter(queueId: $queueId, nameContains: "refund", limit: 1) { added matched items { targetId } } }`,
      {
        queueId: queue.id,
      },
    );
    expect(added.errors).toBeUndefined();
    expect(added.data.addAnnotationQueueItemsFromFilter).toMatchObject({ added: 1, matched: 2 });
  });

  it('names the faulty field as REST does', async () => {
    const bad = await server.graphql(`mutation($input: AnnotationQueueInput!) { createAnnotationQueue(input: $input) { id } }`, {
      input: { name: 'x', targetType: 'TRACE', scoreConfigIds: [], annotatorsPerItem: 0 },
    });
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(bad.errors[0].extensions)).toContain('annotators_per_item');
    expect(JSON.stringify(bad.errors[0].extensions)).toContain('score_config_ids');
  });
});
