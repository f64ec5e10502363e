// Langfuse's public API for annotation queues (docs/langfuse.md#annotation-queues) over Assay's
// queues (src/annotation-queues): the same queues, items and assignees, in Langfuse's shapes. A
// Langfuse item is done when it is COMPLETED: marking it so is the caller's annotation (their
// scores are sent through the scores API with the queue's id), counted as Assay counts one.
import { z } from 'zod';
import * as queues from '../annotation-queues/operations.js';
import * as reviewing from '../annotation-queues/reviewing.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import type { RequestContext } from '../shared/context.js';
import { pageQuery } from './inputs.js';
import { pageOf } from './responses.js';

const objectTypes = { trace: 'TRACE', span: 'OBSERVATION', session: 'SESSION' } as const;
type LangfuseTarget = keyof typeof objectTypes;
const langfuseStatus = { pending: 'PENDING', done: 'COMPLETED' } as const;

export const queuePageQuery = pageQuery;
export const itemPageQuery = pageQuery.extend({ status: z.enum(['PENDING', 'COMPLETED']).optional() });
export const createQueueBody = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000).nullish(),
  scoreConfigIds: z.array(z.string().min(1)).min(1).max(50),
});
export const createItemBody = z.object({
  objectId: z.string().min(1).max(200),
  objectType: z.enum(['TRACE', 'OBSERVATION', 'SESSION']),
  status: z.enum(['PENDING', 'COMPLETED']).optional(),
});
export const updateItemBody = z.object({ status: z.enum(['PENDING', 'COMPLETED']).optional() });
export const assignmentBody = z.object({ userId: z.string().min(1) });

export const queueResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    scoreConfigIds: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'LangfuseAnnotationQueue' });
export const itemResponse = z
  .object({
    id: z.string(),
    queueId: z.string(),
    objectId: z.string(),
    objectType: z.enum(['TRACE', 'OBSERVATION', 'SESSION']),
    status: z.enum(['PENDING', 'COMPLETED']),
    completedAt: z.string().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'LangfuseAnnotationQueueItem' });

function queueJson(row: queues.QueueRow): z.output<typeof queueResponse> {
  return {
    id: row.id,
    name: row.name,
    description: row.instructions,
    scoreConfigIds: queues.configIdsOf(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function itemJson(queue: queues.QueueRow, row: queues.ItemRow): z.output<typeof itemResponse> {
  return {
    id: row.id,
    queueId: row.queueId,
    objectId: row.targetId,
    objectType: objectTypes[queue.targetType as LangfuseTarget],
    status: langfuseStatus[row.status as keyof typeof langfuseStatus],
    ...(row.completedAt && { completedAt: row.completedAt.toISOString() }),
    createdAt: row.createdAt.toISOString(),
    updatedAt: (row.completedAt ?? row.createdAt).toISOString(),
  };
}

const langfuseTargets = (queue: queues.QueueRow) => queue.targetType in objectTypes;

/** A queue Langfuse can show: a queue of evaluation scenarios has no Langfuse object type and is a 404 here. */
async function langfuseQueue(ctx: RequestContext, id: string): Promise<queues.QueueRow> {
  const queue = await queues.getQueue(ctx, id);
  if (!langfuseTargets(queue)) throw new NotFoundError('annotation queue', id);
  return queue;
}

export async function listQueues(ctx: RequestContext, query: z.output<typeof queuePageQuery>) {
  const all = (await queues.listQueues(ctx)).filter(langfuseTargets);
  const start = (query.page - 1) * query.limit;
  return pageOf(all.slice(start, start + query.limit).map(queueJson), query.page, query.limit, all.length);
}

export async function getQueue(ctx: RequestContext, id: string) {
  return queueJson(await langfuseQueue(ctx, id));
}

/** A queue made through Langfuse's API is a trace queue (Langfuse's queues take any object type; Assay's one). */
export async function createQueue(ctx: RequestContext, body: z.output<typeof createQueueBody>) {
  const queue = await queues.createQueue(ctx, {
    name: body.name,
    instructions: body.description ?? null,
    target_type: 'trace',
    score_config_ids: body.scoreConfigIds,
    annotators_per_item: 1,
    lock_seconds: 300,
    assignees: [],
    rule_ids: [],
    rule_condition: 'all',
  });
  return queueJson(queue);
}

export async function listItems(ctx: RequestContext, queueId: string, query: z.output<typeof itemPageQuery>) {
  const queue = await langfuseQueue(ctx, queueId);
  const status = query.status === 'COMPLETED' ? 'done' : query.status === 'PENDING' ? 'pending' : undefined;
  // Items are few per queue page; the queue's own listing pages by cursor, Langfuse's by number.
  const all = await queues.listItems(ctx, queueId, { status, first: query.page * query.limit });
  const total = await queues.countItems(ctx, queueId, status);
  const start = (query.page - 1) * query.limit;
  return pageOf(
    all.items.slice(start, start + query.limit).map((item) => itemJson(queue, item)),
    query.page,
    query.limit,
    total,
  );
}

export async function getItem(ctx: RequestContext, queueId: string, itemId: string) {
  const queue = await langfuseQueue(ctx, queueId);
  return itemJson(queue, await queues.getItem(ctx, queueId, itemId));
}

/** Marks the item COMPLETED for the caller: their annotation, as `complete` without scores; already done or done by them, it stays as it is. */
async function markCompleted(ctx: RequestContext, queueId: string, itemId: string): Promise<void> {
  try {
    await reviewing.completeItem(ctx, queueId, itemId, { scores: [] });
  } catch (error) {
    const item = await queues.getItem(ctx, queueId, itemId);
    if (!(error instanceof ConflictError) || (item.status !== 'done' && !(await queues.hasAnnotated(ctx, itemId)))) throw error;
  }
}

export async function createItem(ctx: RequestContext, queueId: string, body: z.output<typeof createItemBody>) {
  const queue = await langfuseQueue(ctx, queueId);
  const expected = objectTypes[queue.targetType as LangfuseTarget];
  if (body.objectType !== expected) throw ValidationError.at(['body', 'objectType'], `This queue's items are of type ${expected}`);
  const { items } = await queues.addItems(ctx, queueId, { targets: [{ target_id: body.objectId }], at: () => ['body'] });
  if (body.status === 'COMPLETED') await markCompleted(ctx, queueId, items[0].id);
  return itemJson(queue, await queues.getItem(ctx, queueId, items[0].id));
}

export async function updateItem(ctx: RequestContext, queueId: string, itemId: string, body: z.output<typeof updateItemBody>) {
  const queue = await langfuseQueue(ctx, queueId);
  const item = await queues.getItem(ctx, queueId, itemId);
  if (body.status === 'COMPLETED') await markCompleted(ctx, queueId, itemId);
  else if (body.status === 'PENDING' && item.status === 'done') throw ValidationError.at(['body', 'status'], "A completed item's annotations are not undone");
  return itemJson(queue, await queues.getItem(ctx, queueId, itemId));
}

export async function deleteItem(ctx: RequestContext, queueId: string, itemId: string) {
  await langfuseQueue(ctx, queueId);
  await queues.deleteItem(ctx, queueId, itemId);
  return { success: true, message: 'Item removed from the annotation queue' };
}

export async function assign(ctx: RequestContext, queueId: string, userId: string) {
  await langfuseQueue(ctx, queueId);
  await queues.addAssignee(ctx, queueId, userId);
  return { userId, queueId, projectId: ctx.projectId };
}

export async function unassign(ctx: RequestContext, queueId: string, userId: string) {
  await langfuseQueue(ctx, queueId);
  await queues.removeAssignee(ctx, queueId, userId);
  return { success: true };
}
