// Annotation queues (docs/annotation-queues.md): queues, their assignees and items. Reviewing
// them (taking, finishing, progress and agreement) is in reviewing.ts.
import { v7 as uuidv7 } from 'uuid';
import type { Prisma } from '../generated/prisma/client.js';
import { listMembers } from '../auth/users/operations.js';
import type { SearchFilter } from '../observability/search/filters.js';
import { searchSpans, searchTraces } from '../observability/search/listings.js';
import { spanMetrics, traceMetrics } from '../observability/search/metrics.js';
import * as scoreConfigs from '../scores/score-configs.js';
import { rulesByIds } from '../online-evaluation/operations.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import type { RequestContext } from '../shared/context.js';
import type { ValidationIssue } from '../shared/errors.js';
import type { ItemStatus, ItemTarget, QueueInput, QueuePatch, QueueTargetType } from './inputs.js';

const withAssignees = { assignees: { orderBy: { userId: 'asc' } } } as const;
export type QueueRow = Prisma.AnnotationQueueGetPayload<{ include: typeof withAssignees }>;
export type ItemRow = Prisma.AnnotationQueueItemGetPayload<object>;

/** A reviewer as an item's lock and annotations name them: `user:<id>`, `api_key:<id>` or `system`. */
export function annotatorKey(ctx: Pick<RequestContext, 'principal'>): string {
  const { actor } = ctx.principal;
  return actor.id === null ? actor.type : `${actor.type}:${actor.id}`;
}

export function configIdsOf(queue: Pick<QueueRow, 'scoreConfigIds'>): string[] {
  return queue.scoreConfigIds as string[];
}

export function ruleIdsOf(queue: Pick<QueueRow, 'ruleIds'>): string[] {
  return queue.ruleIds as string[];
}

// ---------------------------------------------------------------------------------------------
// Queues

/**
 * 422s naming each config that is not the project's (or archived), each assignee who is not a
 * member, and each rule that is not the project's or scores another kind of target than the queue's.
 */
async function checkReferences(
  ctx: RequestContext,
  targetType: string,
  fields: { score_config_ids?: string[]; assignees?: string[]; rule_ids?: string[] },
): Promise<void> {
  const issues: ValidationIssue[] = [];
  if (fields.rule_ids?.length) {
    const rules = new Map((await rulesByIds(ctx, fields.rule_ids)).map((rule) => [rule.id, rule]));
    fields.rule_ids.forEach((id, index) => {
      const rule = rules.get(id);
      const at = ['body', 'rule_ids', index];
      if (!rule) issues.push({ loc: at, msg: `No online evaluation rule with id ${id}`, type: 'value_error' });
      else if (rule.target !== targetType)
        issues.push({ loc: at, msg: `Rule ${id} scores ${rule.target}s; this queue's items are ${targetType}s`, type: 'value_error' });
      else if (fields.rule_ids!.indexOf(id) !== index) issues.push({ loc: at, msg: `Rule ${id} is named twice`, type: 'value_error' });
    });
  }
  if (fields.score_config_ids) {
    const configs = new Map((await scoreConfigs.scoreConfigsByIds(ctx, fields.score_config_ids)).map((config) => [config.id, config]));
    fields.score_config_ids.forEach((id, index) => {
      const config = configs.get(id);
      if (!config) issues.push({ loc: ['body', 'score_config_ids', index], msg: `No score config with id ${id}`, type: 'value_error' });
      else if (config.isArchived) issues.push({ loc: ['body', 'score_config_ids', index], msg: `Score config ${id} is archived`, type: 'value_error' });
      else if (fields.score_config_ids!.indexOf(id) !== index)
        issues.push({ loc: ['body', 'score_config_ids', index], msg: `Score config ${id} is named twice`, type: 'value_error' });
    });
  }
  if (fields.assignees?.length) {
    const members = new Set((await listMembers(ctx, ctx.projectId)).map((member) => member.user.id));
    fields.assignees.forEach((id, index) => {
      if (!members.has(id)) issues.push({ loc: ['body', 'assignees', index], msg: `No member of the project with user id ${id}`, type: 'value_error' });
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

export async function createQueue(ctx: RequestContext, input: QueueInput): Promise<QueueRow> {
  await checkReferences(ctx, input.target_type, input);
  return ctx.db.annotationQueue.create({
    data: {
      projectId: ctx.projectId,
      name: input.name,
      instructions: input.instructions ?? null,
      targetType: input.target_type,
      scoreConfigIds: input.score_config_ids,
      annotatorsPerItem: input.annotators_per_item,
      lockSeconds: input.lock_seconds,
      ruleIds: input.rule_ids,
      ruleCondition: input.rule_condition,
      assignees: { create: [...new Set(input.assignees)].map((userId) => ({ userId })) },
    },
    include: withAssignees,
  });
}

export function listQueues(ctx: RequestContext): Promise<QueueRow[]> {
  return ctx.db.annotationQueue.findMany({ where: { projectId: ctx.projectId }, include: withAssignees, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

export function queuesByIds(ctx: RequestContext, ids: readonly string[]): Promise<QueueRow[]> {
  return ctx.db.annotationQueue.findMany({ where: { projectId: ctx.projectId, id: { in: [...ids] } }, include: withAssignees });
}

/** The queue, or 404 for an unknown id and another project's alike. */
export async function getQueue(ctx: RequestContext, id: string): Promise<QueueRow> {
  const queue = await ctx.db.annotationQueue.findFirst({ where: { id, projectId: ctx.projectId }, include: withAssignees });
  if (!queue) throw new NotFoundError('annotation queue', id);
  return queue;
}

export async function updateQueue(ctx: RequestContext, id: string, patch: QueuePatch): Promise<QueueRow> {
  const current = await getQueue(ctx, id);
  await checkReferences(ctx, current.targetType, patch);
  return ctx.db.$transaction(async (tx) => {
    if (patch.assignees) {
      await tx.annotationQueueAssignee.deleteMany({ where: { queueId: id } });
      await tx.annotationQueueAssignee.createMany({ data: [...new Set(patch.assignees)].map((userId) => ({ queueId: id, userId })) });
    }
    const queue = await tx.annotationQueue.update({
      where: { id },
      data: {
        name: patch.name,
        instructions: patch.instructions,
        scoreConfigIds: patch.score_config_ids,
        annotatorsPerItem: patch.annotators_per_item,
        lockSeconds: patch.lock_seconds,
        ruleIds: patch.rule_ids,
        ruleCondition: patch.rule_condition,
      },
      include: withAssignees,
    });
    // A changed count re-decides which items are done (docs/annotation-queues.md#changing-a-queue).
    if (patch.annotators_per_item !== undefined) {
      const required = patch.annotators_per_item;
      await tx.annotationQueueItem.updateMany({
        where: { queueId: id, status: 'pending', annotationCount: { gte: required } },
        data: { status: 'done', completedAt: new Date() },
      });
      await tx.annotationQueueItem.updateMany({
        where: { queueId: id, status: 'done', annotationCount: { lt: required } },
        data: { status: 'pending', completedAt: null },
      });
    }
    return queue;
  });
}

/** Makes a member an assignee of the queue (kept when already one); 422 at `field` for a user who is not a member. */
export async function addAssignee(ctx: RequestContext, queueId: string, userId: string, field: (string | number)[] = ['body', 'userId']): Promise<void> {
  await getQueue(ctx, queueId);
  const members = await listMembers(ctx, ctx.projectId);
  if (!members.some((member) => member.user.id === userId)) throw ValidationError.at(field, `No member of the project with user id ${userId}`);
  await ctx.db.annotationQueueAssignee.upsert({ where: { queueId_userId: { queueId, userId } }, create: { queueId, userId }, update: {} });
}

/** Removes an assignee (nothing when the user is not one). */
export async function removeAssignee(ctx: RequestContext, queueId: string, userId: string): Promise<void> {
  await getQueue(ctx, queueId);
  await ctx.db.annotationQueueAssignee.deleteMany({ where: { queueId, userId } });
}

/** Deletes the queue with its items and annotations; the scores written stay (they are the project's judgements). */
export async function deleteQueue(ctx: RequestContext, id: string): Promise<void> {
  await getQueue(ctx, id);
  await ctx.db.annotationQueue.delete({ where: { id } });
}

// ---------------------------------------------------------------------------------------------
// Items

export interface AddedItems {
  /** Items made by this request. */
  added: number;
  /** Targets given (or matched) that the queue had already. */
  existing: number;
  /** With a filter: how many traces or spans matched; only the first `limit` were taken. */
  matched: number | null;
  items: ItemRow[];
}

/** Checks each target against the queue's type: span queues need the trace id, others refuse it. */
function checkTargets(targetType: QueueTargetType, targets: readonly ItemTarget[], at: (index: number) => (string | number)[]): void {
  const issues: ValidationIssue[] = [];
  targets.forEach((target, index) => {
    if (targetType === 'span' && !target.trace_id)
      issues.push({ loc: [...at(index), 'trace_id'], msg: "A span queue's items need the span's trace_id", type: 'missing' });
    if (targetType !== 'span' && target.trace_id)
      issues.push({ loc: [...at(index), 'trace_id'], msg: `A ${targetType} queue's items take target_id alone`, type: 'extra_forbidden' });
  });
  if (issues.length > 0) throw new ValidationError(issues);
}

/** Where a filter's matches come from: a trace or span filter, and the most taken. */
export interface FilterSource {
  filter: SearchFilter;
  limit: number;
  /** Where a fault is reported (`['body', 'filter']`). */
  at: (string | number)[];
}

/** The targets of a filter's matches, newest first, at most `limit`, and how many matched. */
async function filterTargets(ctx: RequestContext, queue: QueueRow, { filter, limit, at }: FilterSource): Promise<{ targets: ItemTarget[]; matched: number }> {
  if (queue.targetType !== 'trace' && queue.targetType !== 'span')
    throw ValidationError.at(at, `A filter picks traces or spans; this queue's items are ${queue.targetType}s`);
  // One more than the limit says whether there were more; the count is a second read only then.
  const first = limit + 1;
  if (queue.targetType === 'trace') {
    const page = await searchTraces(ctx, filter, undefined, { first });
    const targets = page.edges.slice(0, limit).map(({ node }) => ({ target_id: node.traceId }));
    return { targets, matched: page.edges.length <= limit ? page.edges.length : (await traceMetrics(ctx, filter)).count };
  }
  const page = await searchSpans(ctx, filter, undefined, { first });
  const targets = page.edges.slice(0, limit).map(({ node }) => ({ target_id: node.spanId, trace_id: node.traceId }));
  return { targets, matched: page.edges.length <= limit ? page.edges.length : (await spanMetrics(ctx, filter)).count };
}

/**
 * Inserts items of the targets (checked, without repeats), answering how many were new: targets the
 * queue has already are passed over (its unique key), so adding twice, or from two instances at
 * once, adds once.
 */
export function insertItems(ctx: Pick<RequestContext, 'sql'>, queueId: string, targets: readonly ItemTarget[]): Promise<number> {
  const now = new Date();
  const rows = targets.map((target) => [uuidv7(), queueId, target.target_id, target.trace_id ?? '', now]);
  return ctx.sql.transaction((tx) =>
    ctx.sql.insertRows(tx, 'AnnotationQueueItem', ['id', 'queueId', 'targetId', 'traceId', 'createdAt'], rows, 'ON CONFLICT DO NOTHING'),
  );
}

/**
 * Adds targets (each checked against the queue's type, faults at `at(index)`) or a filter's
 * matches; targets the queue has already are kept as they are.
 */
export async function addItems(
  ctx: RequestContext,
  queueId: string,
  source: { targets: readonly ItemTarget[]; at: (index: number) => (string | number)[] } | FilterSource,
): Promise<AddedItems> {
  const queue = await getQueue(ctx, queueId);
  let targets: readonly ItemTarget[];
  let matched: number | null = null;
  if ('filter' in source) ({ targets, matched } = await filterTargets(ctx, queue, source));
  else {
    targets = source.targets;
    checkTargets(queue.targetType as QueueTargetType, targets, source.at);
  }
  const keyOf = (target: { target_id: string; trace_id?: string | null }) => `${target.trace_id ?? ''}\u0000${target.target_id}`;
  const unique = [...new Map(targets.map((target) => [keyOf(target), target])).values()];
  const added = await insertItems(ctx, queueId, unique);
  const wanted = new Set(unique.map(keyOf));
  const items = (
    await ctx.db.annotationQueueItem.findMany({ where: { queueId, targetId: { in: unique.map((target) => target.target_id) } }, orderBy: { id: 'asc' } })
  ).filter((item) => wanted.has(keyOf({ target_id: item.targetId, trace_id: item.traceId || null })));
  return { added, existing: unique.length - added, matched, items };
}

export interface ItemPage {
  items: ItemRow[];
  nextCursor: string | null;
}

/** The queue's items in the order they were added (ids are UUIDv7: the id is the cursor). */
export async function listItems(
  ctx: RequestContext,
  queueId: string,
  filter: { status?: ItemStatus; first: number; after?: string | null },
): Promise<ItemPage> {
  await getQueue(ctx, queueId);
  const rows = await ctx.db.annotationQueueItem.findMany({
    where: { queueId, status: filter.status, id: filter.after ? { gt: filter.after } : undefined },
    orderBy: { id: 'asc' },
    take: filter.first + 1,
  });
  const items = rows.slice(0, filter.first);
  return { items, nextCursor: rows.length > filter.first ? items[items.length - 1].id : null };
}

/** How many items the queue has (in `status`, when given). */
export function countItems(ctx: RequestContext, queueId: string, status?: ItemStatus): Promise<number> {
  return ctx.db.annotationQueueItem.count({ where: { queueId, status } });
}

/** Whether the caller has completed the item. */
export async function hasAnnotated(ctx: RequestContext, itemId: string): Promise<boolean> {
  return (await ctx.db.annotationQueueAnnotation.count({ where: { itemId, annotator: annotatorKey(ctx) } })) > 0;
}

export async function getItem(ctx: RequestContext, queueId: string, itemId: string): Promise<ItemRow> {
  await getQueue(ctx, queueId);
  const item = await ctx.db.annotationQueueItem.findFirst({ where: { id: itemId, queueId } });
  if (!item) throw new NotFoundError('annotation queue item', itemId);
  return item;
}

/** The queue of an item of the project (GraphQL names items alone); 404 otherwise. */
export async function queueIdOfItem(ctx: RequestContext, itemId: string): Promise<string> {
  const item = await ctx.db.annotationQueueItem.findFirst({ where: { id: itemId, queue: { projectId: ctx.projectId } }, select: { queueId: true } });
  if (!item) throw new NotFoundError('annotation queue item', itemId);
  return item.queueId;
}

export async function deleteItem(ctx: RequestContext, queueId: string, itemId: string): Promise<void> {
  await getItem(ctx, queueId, itemId);
  await ctx.db.annotationQueueItem.delete({ where: { id: itemId } });
}
