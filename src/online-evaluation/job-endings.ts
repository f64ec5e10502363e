// How an online evaluation job ends, and the fenced write of the ends of a group of jobs
// (docs/online-evaluation.md#jobs): each job's lease renewed, then the judges' spans, the scores
// and each job's end (its lease given back in the same update) in one transaction, so a worker that
// lost a job's lease writes nothing of it and a score is never stored twice.
import { newTraceId } from '../invocation/ids.js';
import { spanWriter } from '../observability/ingestion/span-writer.js';
import type { SpanRecord } from '../observability/ingestion/span-record.js';
import type { ScoreInput } from '../scores/inputs.js';
import { writeScores } from '../scores/operations.js';
import { type RequestContext, systemActor } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import { toJson } from '../shared/json.js';
import { jsonText, sqlDate, type SqlValue } from '../shared/sql.js';
import { type Outcome, numericValue } from './evaluator-run.js';
import type { RuleTarget } from './inputs.js';
import { judgeSpans } from './judge-spans.js';
import type { JobRow, RuleRow } from './operations.js';
import type { RuleScored } from './progress.js';

export interface EndSettings {
  /** How long after its creation a job retries transient failures for free. */
  retryDeadlineMs: number;
  maxAttempts: number;
  /** The first backoff of a failure; doubled each time, with jitter, up to MAX_BACKOFF_MS. */
  backoffMs: number;
}

/** The longest wait between two tries of a job (a Retry-After may ask for more). */
export const MAX_BACKOFF_MS = 5 * 60_000;

/** The wait before the next try of a job that failed transiently `retries` times: doubling, jittered, Retry-After winning. */
export function backoffMs(settings: Pick<EndSettings, 'backoffMs'>, retries: number, retryAfterMs?: number): number {
  const base = Math.min(MAX_BACKOFF_MS, settings.backoffMs * 2 ** Math.min(retries, 30));
  // Full jitter over the upper half: jobs failing together do not come back together.
  const jittered = base / 2 + Math.random() * (base / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** The lease given back with the end: no separate release. */
const released = { leaseOwner: null, leaseExpiresAt: null };

/** The row's fields as a job ends without running: skipped, put back, or failed. */
export function endData(
  ending:
    | { status: 'SKIPPED'; reason: string }
    | { status: 'PENDING'; until: Date; reason: string | null }
    | { status: 'ERROR'; message: string; stacktrace?: string | null },
) {
  if (ending.status === 'SKIPPED') return { status: 'SKIPPED', skipReason: ending.reason, statusError: Prisma.JsonNull, finishedAt: new Date(), ...released };
  if (ending.status === 'PENDING')
    return {
      status: 'PENDING',
      notBefore: ending.until,
      statusError: ending.reason ? toJson({ message: ending.reason, stacktrace: null }) : Prisma.JsonNull,
      ...released,
    };
  return { status: 'ERROR', statusError: toJson({ message: ending.message, stacktrace: ending.stacktrace ?? null }), finishedAt: new Date(), ...released };
}

/** A job whose evaluator answered, to be stored. */
export interface Finished {
  ctx: RequestContext;
  job: JobRow;
  rule: RuleRow;
  evaluatorKey: string;
  outcome: Outcome;
}

/** What storing a group told: the jobs stored (with their ends), those whose lease was lost. */
export interface GroupWrite {
  stored: { finished: Finished; status: string; scored: RuleScored | null }[];
  lost: Finished[];
}

/**
 * Stores the outcomes of `group` in one transaction of `db` (docs/online-evaluation.md#jobs):
 * renews the leases this worker still holds (on PostgreSQL locking those rows), then writes the
 * judges' spans of the jobs held, their scores (id `online:<job id>`) and each job's end. A job
 * whose lease was lost is left as it is.
 */
export async function writeEnds(
  db: Pick<Prisma.TransactionClient, never> & { $transaction: <T>(work: (tx: Prisma.TransactionClient) => Promise<T>) => Promise<T> },
  owner: string,
  leaseMs: number,
  settings: EndSettings,
  group: readonly Finished[],
): Promise<GroupWrite> {
  const now = new Date();
  const { ctx } = group[0];
  return db.$transaction(async (tx) => {
    // The fence of every job of the group in one statement: those this worker still holds.
    const held = new Set(
      (
        await ctx.sql.query<{ id: string }>(
          tx,
          `UPDATE "EvaluationRuleJob" SET "leaseExpiresAt" = ${ctx.sql.timestamp('?')} WHERE "id" IN (${ctx.sql.jsonValues('?')}) AND "leaseOwner" = ? RETURNING "id"`,
          [sqlDate(new Date(now.getTime() + leaseMs)), JSON.stringify(group.map((item) => item.job.id)), owner],
        )
      ).map((row) => row.id),
    );
    const kept = group.filter((item) => held.has(item.job.id));
    const result: GroupWrite = { stored: [], lost: group.filter((item) => !held.has(item.job.id)) };
    const byProject = new Map<string, { ctx: RequestContext; spans: SpanRecord[]; scores: ScoreInput[] }>();
    const judges = new Map<string, string | null>();
    for (const item of kept) {
      const { job, rule, outcome } = item;
      const judgeTraceId = outcome.calls.length > 0 ? newTraceId() : null;
      judges.set(job.id, judgeTraceId);
      let project = byProject.get(job.projectId);
      if (!project) byProject.set(job.projectId, (project = { ctx: item.ctx, spans: [], scores: [] }));
      if (judgeTraceId) project.spans.push(...judgeSpans(item, outcome, judgeTraceId, now));
      if (outcome.kind === 'scored')
        project.scores.push({
          id: `online:${job.id}`,
          target: job.targetType as RuleTarget,
          trace_id: job.traceId ?? undefined,
          span_id: job.spanId ?? undefined,
          session_id: job.targetType === 'session' ? (job.sessionId ?? undefined) : undefined,
          name: rule.scoreName,
          data_type: outcome.result.type === 'bool' ? 'BOOLEAN' : 'NUMERIC',
          value: numericValue(outcome.result)!,
          source: 'online',
          metadata: {
            rule_id: rule.id,
            job_id: job.id,
            rule_version: job.ruleVersion,
            judge_trace_id: judgeTraceId,
            evaluator_config_id: rule.evaluatorConfigId,
            evaluator_key: item.evaluatorKey,
          },
        });
    }
    const scores = new Map<string, { id: string; value: number | null; dataType: string }>();
    for (const project of byProject.values()) {
      if (project.spans.length > 0) await (await spanWriter(project.ctx, { newTraces: true }))(tx, project.spans);
      for (const score of await writeScores(project.ctx, tx, project.scores, { author: systemActor })) scores.set(score.id, score);
    }
    const resumed = new Set<string>();
    // The ends as one update per set of columns written (a group of DONE jobs: one statement).
    const ends = new Map<string, { columns: string[]; rows: SqlValue[][] }>();
    for (const item of kept) {
      const { job, rule, outcome } = item;
      const judgeTraceId = judges.get(job.id) ?? null;
      const cost = (job.cost ?? 0) + outcome.calls.reduce((sum, call) => sum + (call.cost?.cost ?? 0), 0);
      const { status, values } = outcomeEnd(settings, job, outcome, now);
      const score = outcome.kind === 'scored' ? scores.get(`online:${job.id}`)! : null;
      const end: Record<string, SqlValue> = { ...values, judgeTraceId, cost, ...(score ? { scoreId: score.id } : {}), ...released };
      const columns = Object.keys(end);
      const shape = columns.join();
      const update = ends.get(shape) ?? { columns, rows: [] };
      update.rows.push([job.id, ...Object.values(end)]);
      ends.set(shape, update);
      // A job that ran makes a paused rule active again; an active one (the rule as the batch read it) costs no write.
      if (score && rule.status === 'PAUSED' && !resumed.has(rule.id)) {
        resumed.add(rule.id);
        await tx.evaluationRule.updateMany({ where: { id: rule.id, status: 'PAUSED' }, data: { status: 'ACTIVE', pausedReason: null } });
      }
      const target = job.targetType as RuleTarget;
      result.stored.push({
        finished: item,
        status,
        scored: score
          ? {
              projectId: job.projectId,
              ruleId: rule.id,
              target,
              targetId: target === 'trace' ? job.traceId! : target === 'span' ? job.spanId! : job.sessionId!,
              traceId: target === 'span' ? job.traceId : null,
              value: score.value!,
              dataType: score.dataType as RuleScored['dataType'],
            }
          : null,
      });
    }
    for (const { columns, rows } of ends.values()) await ctx.sql.updateRows(tx, 'EvaluationRuleJob', 'id', columns, rows);
    return result;
  });
}

/** A job's end after its evaluator answered, as the columns it writes: DONE, back to PENDING after a backoff (a transient failure, or an attempt left), or ERROR. */
function outcomeEnd(settings: EndSettings, job: JobRow, outcome: Outcome, now: Date): { status: string; values: Record<string, SqlValue> } {
  if (outcome.kind === 'scored') {
    return { status: 'DONE', values: { status: 'DONE', statusError: null, latency: outcome.latency, finishedAt: now } };
  }
  const deadline = job.createdAt.getTime() + settings.retryDeadlineMs;
  if (outcome.kind === 'transient' && now.getTime() < deadline) {
    const wait = backoffMs(settings, job.retries, outcome.retryAfterMs);
    return {
      status: 'PENDING',
      values: {
        status: 'PENDING',
        statusError: jsonText({ message: `Waiting to try again: ${outcome.message}`, stacktrace: null }),
        // The row is fenced (this worker holds its lease), so the count read at the claim is current.
        retries: job.retries + 1,
        notBefore: new Date(now.getTime() + wait),
      },
    };
  }
  const attempts = job.attempts + 1;
  if (outcome.kind === 'failed' && attempts < settings.maxAttempts) {
    const wait = backoffMs(settings, attempts - 1);
    return {
      status: 'PENDING',
      values: {
        status: 'PENDING',
        statusError: jsonText({ message: `Attempt ${attempts} of ${settings.maxAttempts} failed: ${outcome.message}`, stacktrace: null }),
        attempts,
        notBefore: new Date(now.getTime() + wait),
      },
    };
  }
  const why =
    outcome.kind === 'failed'
      ? `${outcome.message} (after ${attempts} attempts)`
      : `${outcome.message} (still failing ${Math.round(settings.retryDeadlineMs / 1000)} s after the job was created; the retries stopped)`;
  return {
    status: 'ERROR',
    values: {
      status: 'ERROR',
      statusError: jsonText({ message: why, stacktrace: null }),
      attempts: outcome.kind === 'failed' ? attempts : job.attempts,
      finishedAt: now,
    },
  };
}
