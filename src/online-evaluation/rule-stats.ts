// Reads of a rule's jobs as statistics (docs/online-evaluation.md): counts by status and skip
// reason, cost (in all and today, which the daily limit counts) and latency percentiles.
import type { RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import type { JobStatus, SkipReason } from './inputs.js';
import { getRule } from './operations.js';

export interface RuleStats {
  byStatus: Record<JobStatus, number>;
  bySkipReason: Record<SkipReason, number>;
  costUsd: number;
  costTodayUsd: number;
  latencyP50: number | null;
  latencyP95: number | null;
  lastErrors: { jobId: string; message: string; at: Date | null }[];
}

/** The UTC day's start: the daily cost limit counts from it. */
export function startOfDay(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** What a rule's judges cost since `since`, in USD. */
export async function ruleCostSince(db: Prisma.TransactionClient, ruleId: string, since: Date): Promise<number> {
  const { _sum } = await db.evaluationRuleJob.aggregate({ where: { ruleId, finishedAt: { gte: since } }, _sum: { cost: true } });
  return _sum.cost ?? 0;
}

/** A UTC day of a rule's cost chart. */
export interface CostDay {
  day: Date;
  costUsd: number;
  /** Jobs that ended that day. */
  jobs: number;
}

const DAY_MS = 86_400_000;

/** What a rule's judges cost on each of the last `days` UTC days (today last), and the jobs that ended, in one grouped scan. */
export async function ruleCostByDay(ctx: RequestContext, ruleId: string, days: number, now = new Date()): Promise<CostDay[]> {
  const rule = await getRule(ctx, ruleId);
  const from = startOfDay(now).getTime() - (days - 1) * DAY_MS;
  const { sql } = ctx;
  const day = sql.floorToInt(sql.divide(`(${sql.epochMillis('j."finishedAt"')} - ?)`, '?'));
  const rows = await sql.query<{ day: number | bigint; cost: number | string | null; jobs: number | bigint }>(
    ctx.db,
    `SELECT ${day} AS "day", SUM(j."cost") AS "cost", COUNT(*) AS "jobs" FROM "EvaluationRuleJob" AS j
     WHERE j."ruleId" = ? AND j."finishedAt" >= ? GROUP BY 1`,
    [from, DAY_MS, rule.id, new Date(from)],
  );
  const byDay = new Map(rows.map((row) => [Number(row.day), row]));
  return Array.from({ length: days }, (_, index) => {
    const row = byDay.get(index);
    return { day: new Date(from + index * DAY_MS), costUsd: Number(row?.cost ?? 0), jobs: Number(row?.jobs ?? 0) };
  });
}

/** The latencies percentiles are read over: the rule's latest finished jobs. */
const LATENCY_SAMPLE = 1000;

export async function ruleStats(ctx: RequestContext, ruleId: string): Promise<RuleStats> {
  const rule = await getRule(ctx, ruleId);
  const [statuses, reasons, total, latencies, errors, today] = await Promise.all([
    ctx.db.evaluationRuleJob.groupBy({ by: ['status'], where: { ruleId: rule.id }, _count: { _all: true } }),
    ctx.db.evaluationRuleJob.groupBy({ by: ['skipReason'], where: { ruleId: rule.id, status: 'SKIPPED' }, _count: { _all: true } }),
    ctx.db.evaluationRuleJob.aggregate({ where: { ruleId: rule.id }, _sum: { cost: true } }),
    ctx.db.evaluationRuleJob.findMany({
      where: { ruleId: rule.id, status: 'DONE', latency: { not: null } },
      orderBy: { finishedAt: 'desc' },
      take: LATENCY_SAMPLE,
      select: { latency: true },
    }),
    ctx.db.evaluationRuleJob.findMany({ where: { ruleId: rule.id, status: 'ERROR' }, orderBy: { finishedAt: 'desc' }, take: 5 }),
    ruleCostSince(ctx.db, rule.id, startOfDay()),
  ]);
  const byStatus = { PENDING: 0, RUNNING: 0, DONE: 0, ERROR: 0, SKIPPED: 0 } as Record<JobStatus, number>;
  for (const row of statuses) byStatus[row.status as JobStatus] = row._count._all;
  const bySkipReason = { sampled_out: 0, filter_no_longer_matches: 0, cost_limit_reached: 0, rule_disabled: 0, target_deleted: 0, backlog_full: 0 } as Record<
    SkipReason,
    number
  >;
  for (const row of reasons) if (row.skipReason) bySkipReason[row.skipReason as SkipReason] = row._count._all;
  const sorted = latencies.map((row) => row.latency!).sort((a, b) => a - b);
  return {
    byStatus,
    bySkipReason,
    costUsd: total._sum.cost ?? 0,
    costTodayUsd: today,
    latencyP50: percentile(sorted, 0.5),
    latencyP95: percentile(sorted, 0.95),
    lastErrors: errors.map((job) => ({ jobId: job.id, message: errorMessage(job.statusError) ?? 'failed', at: job.finishedAt })),
  };
}

/** The nearest-rank percentile of sorted values; null when there are none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export function errorMessage(stored: Prisma.JsonValue | null): string | null {
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return null;
  const message = (stored as Record<string, unknown>).message;
  return typeof message === 'string' ? message : null;
}
