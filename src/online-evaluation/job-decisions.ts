// What becomes of a batch of claimed online evaluation jobs before their evaluators run
// (docs/online-evaluation.md#jobs): each runs, waits (its delay is not over, the rule is paused)
// or is skipped (and why), or fails. A batch reads its rules, their configs, its targets and the
// filter checks together, a few statements for the batch rather than a dozen a job.
import type { EvaluatorConfig } from '../generated/prisma/client.js';
import { findEvaluatorConfigs } from '../evaluators/operations.js';
import { providerModelOf, type TraceSpanView } from '../evaluators/scoring.js';
import { matchingTargetRows, type TargetQuery } from '../observability/search/matching.js';
import { missingKeysMessage, missingProviderKey } from '../providers/access.js';
import { type RequestContext, type Services, requestContext } from '../shared/context.js';
import { asObject } from '../shared/json.js';
import type { SkipReason } from './inputs.js';
import type { TargetDocument } from './mapping.js';
import { type JobRow, type RuleRow, pauseRule, ruleSearchFilter, targetMatches } from './operations.js';
import { ruleCostSince, startOfDay } from './rule-stats.js';
import { loadTargets } from './target-loading.js';

/** How long a job waits while its rule is paused (no provider key) before looking again. */
const PAUSED_RETRY_MS = 60_000;

export type Decision =
  | { action: 'run'; config: EvaluatorConfig; document: TargetDocument; views: TraceSpanView[] }
  | { action: 'skip'; reason: SkipReason }
  | { action: 'wait'; until: Date; reason: string | null }
  /** Ends ERROR with this message (a fault the user can act on). */
  | { action: 'fail'; message: string };

export interface DecidedJob {
  ctx: RequestContext;
  job: JobRow;
  /** Null when the rule was deleted (its jobs go with it). */
  rule: RuleRow | null;
  decision: Decision;
}

/**
 * Decides the claimed jobs `rows`, in order: `SKIPPED rule_disabled`, `target_deleted`, put back
 * while a trace's or session's delay since its last arrival is not over, `filter_no_longer_matches`
 * against the rule's current filter, `cost_limit_reached`, failed when the config was deleted, put
 * back with the rule paused when its model's provider has no key, else run.
 */
export async function decideJobs(services: Services, rows: readonly JobRow[]): Promise<DecidedJob[]> {
  const rules = new Map(
    (await services.db.evaluationRule.findMany({ where: { id: { in: [...new Set(rows.map((row) => row.ruleId))] } } })).map((rule) => [rule.id, rule]),
  );
  const decided: DecidedJob[] = [];
  const byProject = new Map<string, JobRow[]>();
  for (const row of rows) {
    const list = byProject.get(row.projectId);
    if (list) list.push(row);
    else byProject.set(row.projectId, [row]);
  }
  for (const [projectId, jobs] of byProject) {
    const ctx = requestContext(services, projectId);
    const live = jobs.filter((job) => rules.get(job.ruleId)?.enabled);
    // At once (on PostgreSQL, on connections of their own): a job's wait is its reads' longest, not
    // their sum. The filter is checked for every live job: one whose target is gone is skipped
    // as deleted before its match is looked at.
    const [configs, targets, matching] = await Promise.all([
      findEvaluatorConfigs(ctx, [...new Set(jobs.flatMap((job) => rules.get(job.ruleId)?.evaluatorConfigId ?? []))]),
      loadTargets(ctx, live),
      matchingJobs(ctx, live, rules),
    ]);
    const target = new Map(live.map((job, index) => [job.id, targets[index]]));
    const spent = new Map<string, boolean>();
    const paused = new Map<string, string | null>();
    for (const job of jobs) {
      const rule = rules.get(job.ruleId) ?? null;
      decided.push({
        ctx,
        job,
        rule,
        decision: rule ? await decide(ctx, job, rule, target.get(job.id) ?? null) : { action: 'fail', message: 'The rule was deleted' },
      });
    }

    async function decide(ctx: RequestContext, job: JobRow, rule: RuleRow, loaded: Awaited<ReturnType<typeof loadTargets>>[number]): Promise<Decision> {
      if (!rule.enabled) return { action: 'skip', reason: 'rule_disabled' };
      if (!loaded) return { action: 'skip', reason: 'target_deleted' };
      // A trace is evaluated once its last span is `delay` old, a session once it was idle that long.
      if (job.targetType !== 'span') {
        const until = new Date(loaded.lastArrival.getTime() + rule.delaySeconds * 1000);
        if (until.getTime() > Date.now()) return { action: 'wait', until, reason: null };
      }
      if (!matching.has(job.id)) return { action: 'skip', reason: 'filter_no_longer_matches' };
      if (rule.dailyCostLimitUsd !== null) {
        // Once per rule and batch: jobs already running may pass the limit by their own cost.
        if (!spent.has(rule.id)) spent.set(rule.id, (await ruleCostSince(ctx.db, rule.id, startOfDay())) >= rule.dailyCostLimitUsd);
        if (spent.get(rule.id)) return { action: 'skip', reason: 'cost_limit_reached' };
      }
      const config = configs.get(rule.evaluatorConfigId);
      if (!config) {
        return { action: 'fail', message: `The rule's evaluator config ${rule.evaluatorConfigId} was deleted: choose another config for the rule` };
      }
      if (!paused.has(rule.id)) {
        const model = providerModelOf(config.evaluatorKey, asObject(config.settingsValues));
        const missing = model ? missingProviderKey(model, null, services.providerEnv) : null;
        const reason = missing ? missingKeysMessage([missing]) : null;
        if (reason) await pauseRule(ctx.db, rule.id, reason);
        paused.set(rule.id, reason);
      }
      const reason = paused.get(rule.id);
      if (reason) return { action: 'wait', until: new Date(Date.now() + PAUSED_RETRY_MS), reason: `The rule is paused: ${reason}` };
      return { action: 'run', config, document: loaded.document, views: loaded.views };
    }
  }
  return decided;
}

/** The ids of the jobs whose target matches its rule's current filter: one statement for the batch's spans and traces (a session: one a job). */
async function matchingJobs(ctx: RequestContext, jobs: readonly JobRow[], rules: ReadonlyMap<string, RuleRow>): Promise<Set<string>> {
  const matching = new Set<string>();
  // One query per rule and target type; a job's target is found by its query's index.
  const queryOf = new Map<string, number>();
  const queries: TargetQuery[] = [];
  const traceIds = new Set<string>();
  for (const job of jobs) {
    if (job.targetType === 'session') {
      if (await targetMatches(ctx, 'session', ruleSearchFilter(rules.get(job.ruleId)!.filter), job)) matching.add(job.id);
      continue;
    }
    const key = `${job.ruleId}\u0000${job.targetType}`;
    if (!queryOf.has(key)) {
      queryOf.set(key, queries.length);
      queries.push({ span: job.targetType === 'span', filter: ruleSearchFilter(rules.get(job.ruleId)!.filter), since: null });
    }
    traceIds.add(job.traceId!);
  }
  const found = new Set((await matchingTargetRows(ctx, queries, [...traceIds])).map((row) => `${row.query}/${row.traceId}/${row.spanId ?? ''}`));
  for (const job of jobs) {
    const query = queryOf.get(`${job.ruleId}\u0000${job.targetType}`);
    if (query !== undefined && found.has(`${query}/${job.traceId}/${job.targetType === 'span' ? job.spanId : ''}`)) matching.add(job.id);
  }
  return matching;
}
