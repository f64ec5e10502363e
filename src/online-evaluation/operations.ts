// Online evaluation rules and their jobs (docs/online-evaluation.md): plain functions over Prisma.
// Rules are read and written by REST and GraphQL; jobs are planned from committed spans
// (`planJobs`, called after ingestion, apart from it) and run by runner.ts. A rule's statistics
// are read by rule-stats.ts, its backfills kept by backfills.ts.
import { v7 as uuidv7 } from 'uuid';
import { getEvaluatorConfig } from '../evaluators/operations.js';
import { getScorer } from '../evaluators/scoring.js';
import type { SearchFilter } from '../observability/search/filters.js';
import { matchingTargetRows, matchingTracePage, spanMatches, traceMatches } from '../observability/search/matching.js';
import { searchFilter } from '../observability/search/inputs.js';
import { type RequestContext, type Services, requestContext } from '../shared/context.js';
import { isUniqueViolation, type Prisma } from '../shared/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { toJson } from '../shared/json.js';
import { type SqlValue, type Tx, sqlDate } from '../shared/sql.js';
import type { JobStatus, RuleFilter, RuleInput, RuleMapping, RulePatch, RuleTarget, SkipReason } from './inputs.js';
import { publishRuleProgress } from './progress.js';
import { isSampled } from './sampling.js';

export type RuleRow = Prisma.EvaluationRuleGetPayload<object>;
export type JobRow = Prisma.EvaluationRuleJobGetPayload<object>;

const RULE = 'EvaluationRule';

declare module '../shared/events.js' {
  interface AssayTopics {
    /** A rule of this project was created, changed or deleted: the planner reads the project's rules again (planner.ts). */
    'evaluation-rules:changed': [projectId: string];
  }
}

/** The project's enabled rules, as planning reads them (planner.ts caches them until `evaluation-rules:changed`). */
export function enabledRules(db: Prisma.TransactionClient, projectId: string): Promise<RuleRow[]> {
  return db.evaluationRule.findMany({ where: { projectId, enabled: true }, orderBy: { id: 'asc' } });
}

/** Statuses of jobs that still need work: a RUNNING job whose worker died is taken again. */
export const WAITING_STATUSES = ['PENDING', 'RUNNING'] as const;

/** The search filter of a rule's stored filter (its query parameters' names, read as the trace search reads them). */
export function ruleSearchFilter(filter: Prisma.JsonValue): SearchFilter {
  return searchFilter((filter ?? {}) as RuleFilter, 'body');
}

/** The project's evaluator config a rule names: 404 for another project's or an unknown one, as evaluations answer. */
export async function checkConfig(ctx: RequestContext, configId: string) {
  const config = await getEvaluatorConfig(ctx, configId);
  if (!getScorer(config.evaluatorKey)) {
    throw ValidationError.at(['body', 'evaluator_config_id'], `The evaluator ${config.evaluatorKey} cannot run online in this version`);
  }
  return config;
}

async function uniqueName<T>(write: Promise<T>, name: string): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`A rule named ${name} already exists in this project`);
    throw error;
  }
}

function checkCosts(filter: RuleFilter): void {
  for (const [low, high] of [
    ['min_cost', 'max_cost'],
    ['min_latency', 'max_latency'],
  ] as const) {
    const a = filter[low];
    const b = filter[high];
    if (a !== undefined && b !== undefined && a > b) throw ValidationError.at(['body', 'filter', low], `Input should be at most ${high} (${b})`);
  }
}

export async function createRule(ctx: RequestContext, input: RuleInput): Promise<RuleRow> {
  const config = await checkConfig(ctx, input.evaluator_config_id);
  checkCosts(input.filter);
  const rule = await uniqueName(
    ctx.db.evaluationRule.create({
      data: {
        projectId: ctx.projectId,
        name: input.name,
        enabled: input.enabled,
        target: input.target,
        filter: toJson(input.filter),
        samplingRate: input.sampling_rate,
        delaySeconds: input.delay_seconds,
        evaluatorConfigId: input.evaluator_config_id,
        mapping: input.mapping ? toJson(input.mapping) : undefined,
        scoreName: input.score_name ?? config.name,
        dailyCostLimitUsd: input.daily_cost_limit_usd ?? null,
      },
    }),
    input.name,
  );
  ctx.events.publish('evaluation-rules:changed', ctx.projectId);
  return rule;
}

export function listRules(ctx: RequestContext): Promise<RuleRow[]> {
  return ctx.db.evaluationRule.findMany({ where: { projectId: ctx.projectId }, orderBy: { id: 'asc' } });
}

/** The project's rules among `ids` (unknown ones left out). */
export function rulesByIds(ctx: Pick<RequestContext, 'db' | 'projectId'>, ids: readonly string[]): Promise<RuleRow[]> {
  return ctx.db.evaluationRule.findMany({ where: { projectId: ctx.projectId, id: { in: [...ids] } } });
}

export async function getRule(ctx: Pick<RequestContext, 'db' | 'projectId'>, id: string): Promise<RuleRow> {
  const rule = await ctx.db.evaluationRule.findFirst({ where: { id, projectId: ctx.projectId } });
  if (!rule) throw new NotFoundError(RULE, id);
  return rule;
}

/** The fields whose change makes a new version: what the rule evaluates, and how. */
const VERSIONED = ['target', 'filter', 'sampling_rate', 'evaluator_config_id', 'mapping', 'score_name'] as const;

export async function updateRule(ctx: RequestContext, id: string, patch: RulePatch): Promise<RuleRow> {
  const rule = await getRule(ctx, id);
  const config = patch.evaluator_config_id !== undefined ? await checkConfig(ctx, patch.evaluator_config_id) : null;
  if (patch.filter) checkCosts(patch.filter);
  const versioned = VERSIONED.some((field) => patch[field] !== undefined);
  const enabling = patch.enabled === true && !rule.enabled;
  const data: Prisma.EvaluationRuleUpdateInput = {
    name: patch.name,
    enabled: patch.enabled,
    target: patch.target,
    filter: patch.filter ? toJson(patch.filter) : undefined,
    samplingRate: patch.sampling_rate,
    delaySeconds: patch.delay_seconds,
    evaluatorConfigId: patch.evaluator_config_id,
    mapping: patch.mapping === undefined ? undefined : patch.mapping === null ? { set: null } : toJson(patch.mapping),
    // score_name null: back to the config's name.
    scoreName: patch.score_name === undefined ? undefined : (patch.score_name ?? (config ?? (await checkConfig(ctx, rule.evaluatorConfigId))).name),
    dailyCostLimitUsd: patch.daily_cost_limit_usd,
    ...(versioned ? { version: { increment: 1 } } : {}),
    // A new config or re-enabling tries again: the rule is active until a job finds it cannot run.
    ...(config || enabling ? { status: 'ACTIVE', pausedReason: null } : {}),
    ...(enabling ? { enabledAt: new Date() } : {}),
  };
  const updated = await uniqueName(ctx.db.evaluationRule.update({ where: { id: rule.id }, data }), patch.name ?? rule.name);
  ctx.events.publish('evaluation-rules:changed', ctx.projectId);
  publishRuleProgress(ctx.events, rule.id);
  return updated;
}

/** Deletes the rule and its jobs; its scores stay (they are the project's results). */
export async function deleteRule(ctx: RequestContext, id: string): Promise<void> {
  const rule = await getRule(ctx, id);
  const running = await ctx.db.evaluationRuleJob.findMany({ where: { ruleId: rule.id, status: 'RUNNING' }, select: { id: true } });
  await ctx.db.evaluationRule.delete({ where: { id: rule.id } });
  ctx.events.publish('evaluation-rules:changed', ctx.projectId);
  for (const job of running) ctx.events.publish('job:stopped', job.id);
  publishRuleProgress(ctx.events, rule.id);
}

// Jobs.

export interface JobPage {
  jobs: JobRow[];
  nextCursor: string | null;
}

/** A rule's jobs, newest first (ids are UUIDv7), `limit` a page, after the cursor (a job id). */
export async function listJobs(ctx: RequestContext, ruleId: string, query: { status?: JobStatus; limit: number; cursor?: string }): Promise<JobPage> {
  const rule = await getRule(ctx, ruleId);
  const jobs = await ctx.db.evaluationRuleJob.findMany({
    where: { ruleId: rule.id, status: query.status, ...(query.cursor ? { id: { lt: query.cursor } } : {}) },
    orderBy: { id: 'desc' },
    take: query.limit + 1,
  });
  const more = jobs.length > query.limit;
  const page = more ? jobs.slice(0, query.limit) : jobs;
  return { jobs: page, nextCursor: more ? page[page.length - 1].id : null };
}

// Planning jobs from committed spans.

/** A target as planned: its key (what sampling hashes and the job is unique by) and ids. */
export interface PlannedTarget {
  key: string;
  traceId: string | null;
  spanId: string | null;
  sessionId: string | null;
}

const JOB_COLUMNS = [
  'id',
  'projectId',
  'ruleId',
  'ruleVersion',
  'targetType',
  'targetKey',
  'traceId',
  'spanId',
  'sessionId',
  'status',
  'skipReason',
  'notBefore',
  'createdAt',
];

/**
 * For each rule, the targets of `traceIds` that match its filter, of those arrived since
 * `since(rule)` (the rule's enabling, or null for any): one read for all the rules.
 */
export async function rulesTargets(
  ctx: RequestContext,
  rules: readonly RuleRow[],
  traceIds: readonly string[],
  since: (rule: RuleRow) => Date | null,
): Promise<PlannedTarget[][]> {
  const queries = rules.map((rule) => ({ span: rule.target === 'span', filter: ruleSearchFilter(rule.filter), since: since(rule) }));
  const rows = await matchingTargetRows(ctx, queries, traceIds);
  const targets = rules.map((): PlannedTarget[] => []);
  const sessions = rules.map(() => new Set<string>());
  for (const row of rows) {
    const index = Number(row.query);
    const { target } = rules[index];
    if (target === 'span') targets[index].push({ key: `${row.traceId}/${row.spanId}`, traceId: row.traceId, spanId: row.spanId, sessionId: row.sessionId });
    else if (target === 'trace') targets[index].push({ key: row.traceId, traceId: row.traceId, spanId: null, sessionId: row.sessionId });
    else if (row.sessionId && !sessions[index].has(row.sessionId)) {
      sessions[index].add(row.sessionId);
      targets[index].push({ key: row.sessionId, traceId: null, spanId: null, sessionId: row.sessionId });
    }
  }
  return targets;
}

/** The targets of `traceIds` that match the rule's filter, of those arrived since `since` (the rule's enabling) when given. */
export async function matchingTargets(ctx: RequestContext, rule: RuleRow, traceIds: readonly string[], since: Date | null): Promise<PlannedTarget[]> {
  const [targets] = await rulesTargets(ctx, [rule], traceIds, () => since);
  return targets;
}

export interface PlanSettings {
  maxPendingJobs: number;
}

/** Jobs that may still be planned before the backlog is full. */
export async function backlogRoom(db: Prisma.TransactionClient, settings: PlanSettings): Promise<number> {
  return settings.maxPendingJobs - (await db.evaluationRuleJob.count({ where: { status: { in: [...WAITING_STATUSES] } } }));
}

/**
 * The rows of the jobs of `targets` for the rule's current version, each sampled (a sampled-out
 * target is a SKIPPED job) and, while `room` lasts, PENDING (then SKIPPED backlog_full), due after
 * the rule's delay. Answers the rows and the room left.
 */
function jobRows(ctx: RequestContext, rule: RuleRow, targets: readonly PlannedTarget[], room: number, now: Date): { rows: SqlValue[][]; room: number } {
  const notBefore = sqlDate(new Date(now.getTime() + rule.delaySeconds * 1000));
  const rows = targets.map((target): SqlValue[] => {
    let status: JobStatus = 'PENDING';
    let reason: SkipReason | null = null;
    if (!isSampled(target.key, rule.samplingRate)) [status, reason] = ['SKIPPED', 'sampled_out'];
    else if (room <= 0) [status, reason] = ['SKIPPED', 'backlog_full'];
    else room--;
    return [
      uuidv7(),
      ctx.projectId,
      rule.id,
      rule.version,
      rule.target,
      target.key,
      target.traceId,
      target.spanId,
      target.sessionId,
      status,
      reason,
      notBefore,
      sqlDate(now),
    ];
  });
  return { rows, room };
}

/**
 * Inserts job rows; a target with a job of the rule's version keeps it. A trace's or session's
 * job is not moved when later spans arrive: its claim reads the last arrival and waits again
 * (runner.ts), so planning writes nothing for a target it planned already.
 */
function insertJobs(ctx: RequestContext, tx: Tx, rows: readonly SqlValue[][]): Promise<number> {
  if (rows.length === 0) return Promise.resolve(0);
  return ctx.sql.insertRows(tx, 'EvaluationRuleJob', JOB_COLUMNS, rows, 'ON CONFLICT ("ruleId", "ruleVersion", "targetKey") DO NOTHING');
}

/** Writes the jobs of `targets` for the rule's current version (jobRows, insertJobs). Answers the jobs written and the room left. */
export async function writeJobs(
  ctx: RequestContext,
  tx: Tx,
  rule: RuleRow,
  targets: readonly PlannedTarget[],
  options: { room: number },
): Promise<{ written: number; room: number }> {
  const { rows, room } = jobRows(ctx, rule, targets, options.room, new Date());
  return { written: await insertJobs(ctx, tx, rows), room };
}

/**
 * Plans the jobs of a project's enabled `rules` for traces whose spans were committed: the
 * targets that match and arrived since the rule was enabled, read for all rules at once and
 * written in one insert. Answers the jobs written.
 */
export async function planJobs(
  services: Services,
  projectId: string,
  rules: readonly RuleRow[],
  traceIds: readonly string[],
  settings: PlanSettings,
): Promise<number> {
  if (rules.length === 0 || traceIds.length === 0) return 0;
  const ctx = requestContext(services, projectId);
  const targets = await rulesTargets(ctx, rules, traceIds, (rule) => rule.enabledAt);
  if (targets.every((list) => list.length === 0)) return 0;
  let room = await backlogRoom(ctx.db, settings);
  const now = new Date();
  const rows = rules.flatMap((rule, index) => {
    const planned = jobRows(ctx, rule, targets[index], room, now);
    room = planned.room;
    return planned.rows;
  });
  const written = await ctx.sql.transaction((tx) => insertJobs(ctx, tx, rows));
  if (written > 0) {
    for (const [index, rule] of rules.entries()) if (targets[index].length > 0) publishRuleProgress(ctx.events, rule.id);
    ctx.events.publish('jobs:created', 'online-evaluation');
  }
  return written;
}

/** Traces a sweep looks at per rule at most (the planning it repeats is of the last minutes). */
const SWEEP_TRACES = 10_000;

/**
 * Plans again, for every enabled rule, the traces that started since `since` and arrived since the
 * rule was enabled: what a process that died between a commit and its planning left unplanned. A
 * target with a job keeps it (nothing is moved back), so a sweep plans only what was missed.
 * Answers the jobs written.
 */
export async function sweepJobs(services: Services, since: Date, settings: PlanSettings): Promise<number> {
  const rules = await services.db.evaluationRule.findMany({ where: { enabled: true } });
  let written = 0;
  for (const rule of rules) {
    const before = written;
    const ctx = requestContext(services, rule.projectId);
    const filter: SearchFilter = { ...(rule.target === 'span' ? {} : ruleSearchFilter(rule.filter)), startedAfter: since };
    let cursor: string | null = null;
    for (let seen = 0; seen < SWEEP_TRACES;) {
      const page = await matchingTracePage(ctx, filter, cursor, BACKFILL_PAGE);
      if (page.length === 0) break;
      seen += page.length;
      cursor = page[page.length - 1].cursor;
      const targets = await matchingTargets(
        ctx,
        rule,
        page.map((row) => row.traceId),
        rule.enabledAt,
      );
      const room = await backlogRoom(ctx.db, settings);
      written += (await ctx.sql.transaction((tx) => writeJobs(ctx, tx, rule, targets, { room }))).written;
    }
    if (written > before) publishRuleProgress(ctx.events, rule.id);
  }
  if (written > 0) services.events.publish('jobs:created', 'online-evaluation');
  return written;
}

/** Traces a backfill pages over at once. */
export const BACKFILL_PAGE = 500;

/** Whether the target still matches the filter (a rule changed since the job was planned, or the trace's roll-up did). */
export function targetMatches(
  ctx: RequestContext,
  target: RuleTarget,
  filter: SearchFilter,
  job: Pick<JobRow, 'traceId' | 'spanId' | 'sessionId'>,
): Promise<boolean> {
  if (target === 'span') return spanMatches(ctx, filter, job.traceId!, job.spanId!);
  return traceMatches(ctx, filter, target === 'trace' ? { traceId: job.traceId! } : { sessionId: job.sessionId! });
}

/** The rule's mapping as stored. */
export function ruleMappingOf(rule: RuleRow): RuleMapping | null {
  return (rule.mapping as RuleMapping | null) ?? null;
}

/** Pauses a rule whose evaluator cannot run (no provider key), with the reason users see. */
export async function pauseRule(db: Prisma.TransactionClient, ruleId: string, reason: string): Promise<void> {
  await db.evaluationRule.updateMany({ where: { id: ruleId }, data: { status: 'PAUSED', pausedReason: reason } });
}

/** The rule runs again (a job of it ran). */
export async function resumeRule(db: Prisma.TransactionClient, ruleId: string): Promise<void> {
  await db.evaluationRule.updateMany({ where: { id: ruleId, status: 'PAUSED' }, data: { status: 'ACTIVE', pausedReason: null } });
}
