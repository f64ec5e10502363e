// Online evaluation jobs as a kind of the evaluation engine (docs/online-evaluation.md#jobs): one
// job is one case. Planning decides whether the job runs, waits (its delay is not over, the rule is
// paused) or is skipped (and why); the case calls the evaluator under a hard time limit with
// provider calls traced; storing writes the score, the judges' spans and the job's end in one
// fenced transaction. Transient failures (429, 5xx, timeouts, unreachable) wait and try again
// without using an attempt until the retry deadline; other failures use one of a few attempts.
import type { EvaluatorConfig } from '../generated/prisma/client.js';
import { type CaseRun, type Ending, type FencedWrite, JobFailure, type JobDb, type JobKind, type Planned } from '../evaluation-engine/job-kind.js';
import { providerModelOf, type TraceSpanView } from '../evaluators/scoring.js';
import { newTraceId } from '../invocation/ids.js';
import { spanWriter } from '../observability/ingestion/span-writer.js';
import { getEvaluatorConfig } from '../evaluators/operations.js';
import { missingKeysMessage, missingProviderKey } from '../providers/access.js';
import { writeScores } from '../scores/operations.js';
import { type RequestContext, type Services, requestContext, systemActor } from '../shared/context.js';
import { asObject } from '../shared/json.js';
import { type Outcome, numericValue, runEvaluator } from './evaluator-run.js';
import type { RuleTarget, SkipReason } from './inputs.js';
import { judgeSpans } from './judge-spans.js';
import { type TargetDocument, evaluatorVariables } from './mapping.js';
import { type JobRow, type RuleRow, WAITING_STATUSES, pauseRule, resumeRule, ruleMappingOf, ruleSearchFilter, targetMatches } from './operations.js';
import { ruleCostSince, startOfDay } from './rule-stats.js';
import { type RuleScored, publishRuleProgress, publishRuleScored } from './progress.js';
import { loadTarget, missingAsNull } from './target-loading.js';

export interface OnlineSettings {
  /** The hard limit of one evaluator call. */
  timeoutMs: number;
  /** How long after its creation a job retries transient failures for free. */
  retryDeadlineMs: number;
  maxAttempts: number;
  /** The first backoff of a failure; doubled each time, with jitter, up to MAX_BACKOFF_MS. */
  backoffMs: number;
}

/** The longest wait between two tries of a job (a Retry-After may ask for more). */
export const MAX_BACKOFF_MS = 5 * 60_000;

declare module '../shared/context.js' {
  interface Services {
    /** Online evaluation's settings that requests need too (a preview's time limit). */
    onlineEvaluation: Pick<OnlineSettings, 'timeoutMs'>;
  }
}

/** How long ingestion must have been quiet before jobs start (OnlineEvaluationJobs.busy). */
const INGEST_QUIET_MS = 250;

/** The longest jobs are held back by ingestion in a row. */
const MAX_HOLD_MS = 5_000;

/** How long a job waits while its rule is paused (no provider key) before looking again. */
const PAUSED_RETRY_MS = 60_000;

type Decision = { action: 'run' } | { action: 'skip'; reason: SkipReason } | { action: 'wait'; until: Date; reason: string | null };

interface Plan {
  ctx: RequestContext;
  job: JobRow;
  rule: RuleRow;
  decision: Decision;
  config: EvaluatorConfig | null;
  document: TargetDocument | null;
  views: TraceSpanView[];
  /** How the job ends, once its case is stored. */
  ending: Ending;
  /** The score stored, told to followers once the job ended DONE. */
  scored: RuleScored | null;
}

/** The wait before the next try of a job that failed transiently `retries` times: doubling, jittered, Retry-After winning. */
export function backoffMs(settings: Pick<OnlineSettings, 'backoffMs'>, retries: number, retryAfterMs?: number): number {
  const base = Math.min(MAX_BACKOFF_MS, settings.backoffMs * 2 ** Math.min(retries, 30));
  // Full jitter over the upper half: jobs failing together do not come back together.
  const jittered = base / 2 + Math.random() * (base / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}

export class OnlineEvaluationJobs implements JobKind<JobRow, Plan, Plan, Outcome> {
  readonly name = 'online-evaluation' as const;
  readonly table = 'EvaluationRuleJob';
  readonly due = 'notBefore';
  readonly states = { runnable: WAITING_STATUSES, started: 'RUNNING', failed: 'ERROR' } as const;

  constructor(
    private readonly services: Services,
    private readonly settings: OnlineSettings,
  ) {}

  model(db: JobDb) {
    return db.evaluationRuleJob;
  }

  private heldSince: number | null = null;
  private lastHeld = 0;

  /**
   * Ingestion comes first (docs/online-evaluation.md#jobs): while spans are being written, and for
   * INGEST_QUIET_MS after, no job starts, so rules take no CPU or write turn from the writer. Held
   * MAX_HOLD_MS in a row, one scan goes through, so jobs still move under endless ingestion.
   */
  busy(): boolean {
    if (this.services.spanQueue.idleMs >= INGEST_QUIET_MS) {
      this.heldSince = null;
      return false;
    }
    const now = Date.now();
    // A hold whose last check is long past ended then (the scheduler checks every 50 ms while held).
    if (this.heldSince === null || now - this.lastHeld > 1_000) this.heldSince = now;
    this.lastHeld = now;
    if (now - this.heldSince < MAX_HOLD_MS) return true;
    this.heldSince = now;
    return false;
  }

  load(id: string): Promise<JobRow | null> {
    return this.services.db.evaluationRuleJob.findUnique({ where: { id } });
  }

  async plan(job: JobRow): Promise<Planned<Plan>> {
    const ctx = requestContext(this.services, job.projectId);
    const rule = await ctx.db.evaluationRule.findUnique({ where: { id: job.ruleId } });
    if (!rule) throw new JobFailure('The rule was deleted');
    const plan: Plan = {
      ctx,
      job,
      rule,
      decision: { action: 'run' },
      config: null,
      document: null,
      views: [],
      ending: { status: 'PENDING', error: null },
      scored: null,
    };
    plan.decision = await this.decide(plan);
    const limits = { batchSize: 1, delayMs: 0, retries: 0, retryDelayMs: 0 };
    const { decision } = plan;
    if (decision.action === 'skip') {
      plan.ending = { status: 'SKIPPED', error: null };
      return { plan, limits, start: { skipReason: decision.reason, finishedAt: new Date() } };
    }
    if (decision.action === 'wait') {
      plan.ending = { status: 'PENDING', error: decision.reason ? { message: decision.reason, stacktrace: null } : null };
      return { plan, limits, start: { notBefore: decision.until } };
    }
    return { plan, limits, start: {} };
  }

  private async decide(plan: Plan): Promise<Decision> {
    const { ctx, job, rule } = plan;
    if (!rule.enabled) return { action: 'skip', reason: 'rule_disabled' };
    const target = await loadTarget(ctx, job.targetType as RuleTarget, job);
    if (!target) return { action: 'skip', reason: 'target_deleted' };
    // A trace is evaluated once its last span is `delay` old, a session once it was idle that long.
    if (job.targetType !== 'span') {
      const until = new Date(target.lastArrival.getTime() + rule.delaySeconds * 1000);
      if (until.getTime() > Date.now()) return { action: 'wait', until, reason: null };
    }
    if (!(await targetMatches(ctx, rule.target as RuleTarget, ruleSearchFilter(rule.filter), job)))
      return { action: 'skip', reason: 'filter_no_longer_matches' };
    if (rule.dailyCostLimitUsd !== null && (await ruleCostSince(ctx.db, rule.id, startOfDay())) >= rule.dailyCostLimitUsd) {
      return { action: 'skip', reason: 'cost_limit_reached' };
    }
    const config = await getEvaluatorConfig(ctx, rule.evaluatorConfigId).catch(missingAsNull);
    if (!config) throw new JobFailure(`The rule's evaluator config ${rule.evaluatorConfigId} was deleted: choose another config for the rule`);
    const model = providerModelOf(config.evaluatorKey, asObject(config.settingsValues));
    const missing = model ? missingProviderKey(model, null, this.services.providerEnv) : null;
    if (missing) {
      const reason = missingKeysMessage([missing]);
      await pauseRule(ctx.db, rule.id, reason);
      return { action: 'wait', until: new Date(Date.now() + PAUSED_RETRY_MS), reason: `The rule is paused: ${reason}` };
    }
    plan.config = config;
    plan.document = target.document;
    plan.views = target.views;
    return { action: 'run' };
  }

  pending(plan: Plan): Plan[] {
    return plan.decision.action === 'run' ? [plan] : [];
  }

  runCase(plan: Plan, _item: Plan, run: CaseRun): Promise<Outcome> {
    return runEvaluator(
      this.services,
      this.settings.timeoutMs,
      plan.ctx,
      plan.config!,
      evaluatorVariables(plan.document!, ruleMappingOf(plan.rule)),
      plan.views,
      run.signal,
    );
  }

  async store(plan: Plan, outcomes: Outcome[], fenced: FencedWrite): Promise<void> {
    const [outcome] = outcomes;
    const { ctx, job, rule } = plan;
    const storeSpans = await spanWriter(ctx);
    const now = new Date();
    const judgeTraceId = outcome.calls.length > 0 ? newTraceId() : null;
    const spans = judgeTraceId ? judgeSpans(plan, outcome, judgeTraceId, now) : [];
    const cost = outcome.calls.reduce((sum, call) => sum + (call.cost?.cost ?? 0), 0);
    await fenced(async (tx) => {
      if (spans.length > 0) await storeSpans(tx, spans);
      const common = { judgeTraceId, cost: (job.cost ?? 0) + cost };
      if (outcome.kind === 'scored') {
        const [score] = await writeScores(
          ctx,
          tx,
          [
            {
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
                evaluator_key: plan.config!.evaluatorKey,
              },
            },
          ],
          { author: systemActor },
        );
        await tx.evaluationRuleJob.update({ where: { id: job.id }, data: { ...common, scoreId: score.id, latency: outcome.latency, finishedAt: now } });
        // A job that ran makes a paused rule active again; an active one (the rule as this job read
        // it) costs no write (bench/online-evaluation.ts counts every statement of a job).
        if (rule.status === 'PAUSED') await resumeRule(tx, rule.id);
        plan.ending = { status: 'DONE', error: null };
        const target = job.targetType as RuleTarget;
        plan.scored = {
          projectId: job.projectId,
          ruleId: rule.id,
          target,
          targetId: target === 'trace' ? job.traceId! : target === 'span' ? job.spanId! : job.sessionId!,
          traceId: target === 'span' ? job.traceId : null,
          value: score.value!,
          dataType: score.dataType as RuleScored['dataType'],
        };
        return { written: 1, errors: 0 };
      }
      const error = { message: outcome.message, stacktrace: null };
      const deadline = job.createdAt.getTime() + this.settings.retryDeadlineMs;
      if (outcome.kind === 'transient' && now.getTime() < deadline) {
        const wait = backoffMs(this.settings, job.retries, outcome.retryAfterMs);
        await tx.evaluationRuleJob.update({ where: { id: job.id }, data: { ...common, retries: { increment: 1 }, notBefore: new Date(now.getTime() + wait) } });
        plan.ending = { status: 'PENDING', error: { message: `Waiting to try again: ${outcome.message}`, stacktrace: null } };
        return { written: 1, errors: 0 };
      }
      const attempts = job.attempts + 1;
      if (outcome.kind === 'failed' && attempts < this.settings.maxAttempts) {
        const wait = backoffMs(this.settings, attempts - 1);
        await tx.evaluationRuleJob.update({ where: { id: job.id }, data: { ...common, attempts, notBefore: new Date(now.getTime() + wait) } });
        plan.ending = {
          status: 'PENDING',
          error: { message: `Attempt ${attempts} of ${this.settings.maxAttempts} failed: ${outcome.message}`, stacktrace: null },
        };
        return { written: 1, errors: 1 };
      }
      await tx.evaluationRuleJob.update({
        where: { id: job.id },
        data: { ...common, attempts: outcome.kind === 'failed' ? attempts : job.attempts, finishedAt: now },
      });
      const why =
        outcome.kind === 'failed'
          ? `${outcome.message} (after ${attempts} attempts)`
          : `${outcome.message} (still failing ${Math.round(this.settings.retryDeadlineMs / 1000)} s after the job was created; the retries stopped)`;
      plan.ending = { status: 'ERROR', error: { ...error, message: why } };
      return { written: 1, errors: 1 };
    });
  }

  finish(plan: Plan): Promise<Ending> {
    return Promise.resolve(plan.ending);
  }

  changed(id: string, plan: Plan | null): void {
    if (plan) {
      // Called at the job's start and end; the score is told once, when the job ended with one.
      if (plan.ending.status === 'DONE' && plan.scored) publishRuleScored(this.services.events, plan.scored);
      return publishRuleProgress(this.services.events, plan.rule.id);
    }
    // A job whose planning threw (rare): its rule is read, when it is still there.
    this.services.db.evaluationRuleJob
      .findUnique({ where: { id }, select: { ruleId: true } })
      .then((job) => job && publishRuleProgress(this.services.events, job.ruleId))
      .then(undefined, () => undefined);
  }
}
