// Backfills of online evaluation rules (docs/online-evaluation.md#backfills): the rows of
// EvaluationRuleBackfill and the planning of a page of one, run by backfill-runner.ts.
import type { SearchFilter } from '../observability/search/filters.js';
import { countMatchingTraces, matchingTracePage } from '../observability/search/matching.js';
import type { RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import {
  BACKFILL_PAGE,
  type PlanSettings,
  type PlannedTarget,
  type RuleRow,
  backlogRoom,
  getRule,
  matchingTargets,
  ruleSearchFilter,
  writeJobs,
} from './operations.js';
import { publishRuleProgress } from './progress.js';

export type BackfillRow = Prisma.EvaluationRuleBackfillGetPayload<object>;

/** Statuses of backfills that still need work. */
export const BACKFILL_WAITING = ['PENDING', 'RUNNING'] as const;

/** The most targets one backfill plans. */
export const MAX_BACKFILL_TARGETS = 50_000;

export async function createBackfill(
  ctx: RequestContext,
  ruleId: string,
  input: { started_after: Date; started_before: Date; limit: number },
): Promise<BackfillRow> {
  const rule = await getRule(ctx, ruleId);
  if (input.started_after >= input.started_before) throw ValidationError.at(['body', 'started_before'], 'Input should be after started_after');
  const backfill = await ctx.db.evaluationRuleBackfill.create({
    data: { projectId: ctx.projectId, ruleId: rule.id, startedAfter: input.started_after, startedBefore: input.started_before, limit: input.limit },
  });
  ctx.events.publish('jobs:created', 'online-evaluation-backfill');
  publishRuleProgress(ctx.events, rule.id);
  return backfill;
}

/** A backfill of the project (of the rule `ruleId` when given, as its REST path says). */
export async function getBackfill(ctx: Pick<RequestContext, 'db' | 'projectId'>, backfillId: string, ruleId?: string): Promise<BackfillRow> {
  const backfill = await ctx.db.evaluationRuleBackfill.findFirst({ where: { id: backfillId, ruleId, projectId: ctx.projectId } });
  if (!backfill) throw new NotFoundError('EvaluationRuleBackfill', backfillId);
  return backfill;
}

export function listBackfills(ctx: Pick<RequestContext, 'db' | 'projectId'>, ruleId: string): Promise<BackfillRow[]> {
  return ctx.db.evaluationRuleBackfill.findMany({ where: { ruleId, projectId: ctx.projectId }, orderBy: { id: 'desc' }, take: 100 });
}

/** Stops a backfill still under way (its planned jobs stay); one that ended is answered as it is. */
export async function cancelBackfill(ctx: RequestContext, backfillId: string, ruleId?: string): Promise<BackfillRow> {
  const backfill = await getBackfill(ctx, backfillId, ruleId);
  const { count } = await ctx.db.evaluationRuleBackfill.updateMany({
    where: { id: backfill.id, status: { in: [...BACKFILL_WAITING] } },
    data: { status: 'CANCELLED', finishedAt: new Date() },
  });
  if (count > 0) {
    ctx.events.publish('job:stopped', backfill.id);
    publishRuleProgress(ctx.events, backfill.ruleId);
  }
  return getBackfill(ctx, backfillId);
}

/** What a backfill pages over: the rule's filter on traces (span targets: every trace, their spans filtered after), in its time range. */
function backfillFilter(rule: RuleRow, backfill: BackfillRow): SearchFilter {
  const filter: SearchFilter = rule.target === 'span' ? {} : ruleSearchFilter(rule.filter);
  return { ...filter, startedAfter: backfill.startedAfter, startedBefore: backfill.startedBefore };
}

/** The traces of the backfill's range matching its rule (at most `limit`): its total. */
export function countBackfillTraces(ctx: RequestContext, rule: RuleRow, backfill: BackfillRow): Promise<number> {
  return countMatchingTraces(ctx, backfillFilter(rule, backfill), backfill.limit);
}

/** The next page of the backfill's traces after `cursor`, in start order. */
export function backfillPage(ctx: RequestContext, rule: RuleRow, backfill: BackfillRow, cursor: string | null): Promise<{ traceId: string; cursor: string }[]> {
  return matchingTracePage(ctx, backfillFilter(rule, backfill), cursor, BACKFILL_PAGE);
}

/** The targets of a page of a backfill's traces (any arrival: the rule applies to them by the backfill). */
export function backfillTargets(ctx: RequestContext, rule: RuleRow, traceIds: readonly string[]): Promise<PlannedTarget[]> {
  return matchingTargets(ctx, rule, traceIds, null);
}

/**
 * Plans the jobs of a page of a backfill in `tx` (the engine's fenced write): its targets, up to
 * what is left of the limit, never a second job for a target; then its cursor and counts.
 * Answers the jobs written.
 */
export async function storeBackfillPage(
  ctx: RequestContext,
  tx: Prisma.TransactionClient,
  rule: RuleRow,
  backfill: Pick<BackfillRow, 'id' | 'limit'>,
  page: { targets: readonly PlannedTarget[]; cursor: string },
  settings: PlanSettings,
): Promise<number> {
  const { seen } = await tx.evaluationRuleBackfill.findUniqueOrThrow({ where: { id: backfill.id }, select: { seen: true } });
  const targets = page.targets.slice(0, Math.max(0, backfill.limit - seen));
  const { written } = await writeJobs(ctx, tx, rule, targets, { room: await backlogRoom(tx, settings) });
  await tx.evaluationRuleBackfill.update({ where: { id: backfill.id }, data: { cursor: page.cursor, seen: { increment: targets.length } } });
  return written;
}
