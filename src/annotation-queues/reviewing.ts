// Reviewing annotation queues (docs/annotation-queues.md): reviewers take items with `nextItem` (a
// lock for lock_seconds) and finish them with `completeItem`, which writes their scores through
// scores' operations and counts one annotation with a conditional update, so racing reviewers
// never exceed annotators_per_item; then each reviewer's progress and the agreement between them.
import { agreementOf, type Agreement } from '../human-evaluations/statistics.js';
import type { ScoreInput } from '../scores/inputs.js';
import * as scores from '../scores/operations.js';
import * as scoreReads from '../scores/score-reads.js';
import { ConflictError, ForbiddenError, ValidationError } from '../shared/errors.js';
import { requireScope, type RequestContext } from '../shared/context.js';
import { sqlDate } from '../shared/sql.js';
import { isUniqueViolation } from '../shared/db.js';
import type { ValidationIssue } from '../shared/errors.js';
import { CORRECTION_SCORE, type CompleteBody, type ItemStatus, type QueueTargetType } from './inputs.js';
import { annotatorKey, configIdsOf, getItem, getQueue, type ItemRow, type QueueRow } from './operations.js';

/** Annotating needs `write` (viewers read queues only) and, on a queue with assignees, a user among them. */
function mayAnnotate(ctx: RequestContext, queue: QueueRow): void {
  requireScope(ctx.principal, 'write');
  const { actor } = ctx.principal;
  if (actor.type === 'user' && queue.assignees.length > 0 && !queue.assignees.some((assignee) => assignee.userId === actor.id))
    throw new ForbiddenError('You are not an assignee of this annotation queue');
}

/**
 * The caller's next item: the one they hold already (its lock renewed), else the oldest pending
 * item that nobody holds (or whose lock expired) and that the caller has not annotated, taken in
 * one UPDATE (on PostgreSQL chosen `FOR UPDATE SKIP LOCKED`, so racing reviewers pass over each
 * other's rows). Null when nothing is left for the caller.
 */
export async function nextItem(ctx: RequestContext, queueId: string): Promise<ItemRow | null> {
  const queue = await getQueue(ctx, queueId);
  mayAnnotate(ctx, queue);
  const me = annotatorKey(ctx);
  const now = new Date();
  const until = new Date(now.getTime() + queue.lockSeconds * 1000);
  const held = await ctx.db.annotationQueueItem.updateManyAndReturn({
    where: { queueId, status: 'pending', lockedBy: me, lockedUntil: { gt: now } },
    data: { lockedUntil: until },
  });
  if (held.length > 0) return held.sort((a, b) => a.id.localeCompare(b.id))[0];
  const { sql } = ctx;
  const claimed = await sql.query<{ id: string }>(
    ctx.db,
    `UPDATE "AnnotationQueueItem" SET "lockedBy" = ?, "lockedUntil" = ${sql.timestamp('?')} WHERE "id" IN (` +
      `SELECT i."id" FROM "AnnotationQueueItem" i WHERE i."queueId" = ? AND i."status" = 'pending' ` +
      `AND (i."lockedUntil" IS NULL OR i."lockedUntil" <= ${sql.timestamp('?')}) ` +
      `AND NOT EXISTS (SELECT 1 FROM "AnnotationQueueAnnotation" a WHERE a."itemId" = i."id" AND a."annotator" = ?) ` +
      `ORDER BY i."id" LIMIT 1${sql.skipLocked}) RETURNING "id"`,
    [me, sqlDate(until), queueId, sqlDate(now), me],
  );
  if (claimed.length === 0) return null;
  return ctx.db.annotationQueueItem.findUniqueOrThrow({ where: { id: claimed[0].id } });
}

/** Gives an item the caller holds back to the queue (a reviewer skipping it). */
export async function releaseItem(ctx: RequestContext, queueId: string, itemId: string): Promise<ItemRow> {
  const queue = await getQueue(ctx, queueId);
  mayAnnotate(ctx, queue);
  await getItem(ctx, queueId, itemId);
  await ctx.db.annotationQueueItem.updateMany({ where: { id: itemId, lockedBy: annotatorKey(ctx) }, data: { lockedBy: null, lockedUntil: null } });
  return ctx.db.annotationQueueItem.findUniqueOrThrow({ where: { id: itemId } });
}

const scoreTargetOf = { trace: 'trace', span: 'span', session: 'session', evaluation_scenario: 'scenario' } as const;

/** The scores of a completion, as scores' operations take them: the item's target, source `annotation`, the queue in metadata. */
function annotationScores(ctx: RequestContext, queue: QueueRow, item: ItemRow, body: CompleteBody): ScoreInput[] {
  const allowed = new Set(configIdsOf(queue));
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  body.scores.forEach((score, index) => {
    if (!allowed.has(score.config_id))
      issues.push({ loc: ['body', 'scores', index, 'config_id'], msg: "Not one of the queue's score configs", type: 'value_error' });
    else if (seen.has(score.config_id))
      issues.push({ loc: ['body', 'scores', index, 'config_id'], msg: 'A config takes one score per completion', type: 'value_error' });
    seen.add(score.config_id);
  });
  if (issues.length > 0) throw new ValidationError(issues);
  const target = scoreTargetOf[queue.targetType as QueueTargetType];
  const ids =
    target === 'trace'
      ? { trace_id: item.targetId }
      : target === 'span'
        ? { trace_id: item.traceId, span_id: item.targetId }
        : target === 'session'
          ? { session_id: item.targetId }
          : { scenario_id: item.targetId };
  const me = annotatorKey(ctx);
  const common = { target, ...ids, source: 'annotation' as const, metadata: { queue_id: queue.id, queue_item_id: item.id } };
  const written: ScoreInput[] = body.scores.map((score) => ({
    // One id per reviewer, item and config: a retried completion cannot double a score.
    id: `aq:${queue.id}:${item.id}:${me}:${score.config_id}`,
    ...common,
    value: score.value,
    string_value: score.string_value,
    comment: score.comment,
    config_id: score.config_id,
  }));
  if (body.correction?.trim())
    written.push({ id: `aq:${queue.id}:${item.id}:${me}:${CORRECTION_SCORE}`, ...common, name: CORRECTION_SCORE, data_type: 'TEXT', value: body.correction });
  return written;
}

export interface Completion {
  item: ItemRow;
  scores: scores.ScoreRow[];
}

/**
 * Writes the caller's scores for the item and counts their annotation, in one transaction. The
 * count is one conditional UPDATE (pending, below annotators_per_item, held by the caller or by
 * nobody), so two reviewers racing never exceed the count; the annotation's key (item, reviewer)
 * refuses a second completion by the same reviewer. 409 when the item is done, the caller annotated
 * it already, or another reviewer holds it.
 */
export async function completeItem(ctx: RequestContext, queueId: string, itemId: string, body: CompleteBody): Promise<Completion> {
  const queue = await getQueue(ctx, queueId);
  mayAnnotate(ctx, queue);
  const item = await getItem(ctx, queueId, itemId);
  const inputs = annotationScores(ctx, queue, item, body);
  const me = annotatorKey(ctx);
  return ctx.db.$transaction(async (tx) => {
    const now = new Date();
    const { count } = await tx.annotationQueueItem.updateMany({
      where: {
        id: itemId,
        status: 'pending',
        annotationCount: { lt: queue.annotatorsPerItem },
        OR: [{ lockedBy: me }, { lockedUntil: null }, { lockedUntil: { lte: now } }],
      },
      data: { annotationCount: { increment: 1 }, lockedBy: null, lockedUntil: null },
    });
    if (count !== 1) {
      const current = await tx.annotationQueueItem.findUniqueOrThrow({ where: { id: itemId } });
      if (current.status === 'done') throw new ConflictError('This item has all its annotations');
      throw new ConflictError('Another reviewer holds this item');
    }
    const already = await tx.annotationQueueAnnotation.findUnique({ where: { itemId_annotator: { itemId, annotator: me } } });
    if (already) throw new ConflictError('You have annotated this item already');
    const written = await scores.writeScores(ctx, tx, inputs, { at: (index, field) => ['body', 'scores', index, field] });
    await tx.annotationQueueAnnotation
      .create({ data: { itemId, annotator: me, label: ctx.principal.actor.label, queueId, scoreIds: written.map((score) => score.id) } })
      .catch((error: unknown) => {
        // The same reviewer completing twice at once: the second meets the first's key.
        throw isUniqueViolation(error) ? new ConflictError('You have annotated this item already') : error;
      });
    await tx.annotationQueueItem.updateMany({
      where: { id: itemId, annotationCount: { gte: queue.annotatorsPerItem } },
      data: { status: 'done', completedAt: now },
    });
    return { item: await tx.annotationQueueItem.findUniqueOrThrow({ where: { id: itemId } }), scores: written };
  });
}

// ---------------------------------------------------------------------------------------------
// Progress and agreement

export interface ReviewerProgress {
  annotator: string;
  label: string | null;
  annotations: number;
}

export interface Progress {
  items: number;
  done: number;
  pending: number;
  /** Pending items a reviewer holds now. */
  in_review: number;
  annotations: number;
  /** Annotations the queue needs in all: items × annotators_per_item. */
  required: number;
  reviewers: ReviewerProgress[];
}

export async function progress(ctx: RequestContext, queueId: string): Promise<Progress> {
  const queue = await getQueue(ctx, queueId);
  const [byStatus, inReview, reviewers] = await Promise.all([
    ctx.db.annotationQueueItem.groupBy({ by: ['status'], where: { queueId }, _count: { _all: true }, _sum: { annotationCount: true } }),
    ctx.db.annotationQueueItem.count({ where: { queueId, status: 'pending', lockedUntil: { gt: new Date() } } }),
    ctx.db.annotationQueueAnnotation.groupBy({ by: ['annotator'], where: { queueId }, _count: { _all: true }, _max: { label: true } }),
  ]);
  const count = (status: ItemStatus) => byStatus.find((row) => row.status === status)?._count._all ?? 0;
  const items = count('done') + count('pending');
  return {
    items,
    done: count('done'),
    pending: count('pending'),
    in_review: inReview,
    annotations: byStatus.reduce((sum, row) => sum + (row._sum.annotationCount ?? 0), 0),
    required: items * queue.annotatorsPerItem,
    reviewers: reviewers
      .map((row) => ({ annotator: row.annotator, label: row._max.label, annotations: row._count._all }))
      .sort((a, b) => b.annotations - a.annotations || a.annotator.localeCompare(b.annotator)),
  };
}

export interface NameAgreement extends Agreement {
  name: string;
}

/**
 * Agreement per score name over the items two or more reviewers completed: their scores' labels
 * (or values) taken as categories, Fleiss' and Cohen's kappa as human evaluations compute them.
 */
export async function agreement(ctx: RequestContext, queueId: string): Promise<NameAgreement[]> {
  await getQueue(ctx, queueId);
  const annotations = await ctx.db.annotationQueueAnnotation.findMany({ where: { queueId }, select: { itemId: true, annotator: true, scoreIds: true } });
  const ids = annotations.flatMap((annotation) => annotation.scoreIds as string[]);
  const { scores: written } = await scoreReads.listScores(ctx, { ids }, { first: Math.max(ids.length, 1) });
  const byId = new Map(written.map((score) => [score.id, score]));
  const byName = new Map<string, Map<string, Map<string, string>>>();
  for (const annotation of annotations) {
    for (const id of annotation.scoreIds as string[]) {
      const score = byId.get(id);
      if (!score || score.dataType === 'TEXT') continue;
      const verdict = score.stringValue ?? String(score.value);
      const items = byName.get(score.name) ?? new Map<string, Map<string, string>>();
      const verdicts = items.get(annotation.itemId) ?? new Map<string, string>();
      verdicts.set(annotation.annotator, verdict);
      items.set(annotation.itemId, verdicts);
      byName.set(score.name, items);
    }
  }
  return [...byName.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, items]) => ({ name, ...agreementOf(items) }));
}
