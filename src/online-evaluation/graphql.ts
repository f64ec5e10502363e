// GraphQL of online evaluation rules (docs/online-evaluation.md#graphql): the same operations and
// validation as REST (routes.ts). A rule's filter and mapping are JSON under REST's names (the
// trace search's query parameters), so one filter reads the same in both APIs.
import { resolveArrayConnection } from '@pothos/plugin-relay';
import { EvaluatorConfig } from '../evaluators/graphql.js';
import { builder } from '../shared/graphql/builder.js';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { globalId } from '../shared/graphql/ids.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { getEvaluatorConfig } from '../evaluators/operations.js';
import { parseInput } from '../shared/validation.js';
import {
  backfillBody,
  jobStatuses,
  previewBody,
  ruleInput,
  rulePatch,
  ruleTargets,
  skipReasons,
  type JobStatus,
  type RuleTarget,
  type SkipReason,
} from './inputs.js';
import * as backfills from './backfills.js';
import * as rules from './operations.js';
import { type CostDay, ruleCostByDay, ruleStats } from './rule-stats.js';
import { backfillJson, jobJson, statsJson, type PreviewJson } from './responses.js';
import { previewRule } from './rule-preview.js';
import { PROGRESS_INTERVAL_MS, ruleProgressStream } from './progress.js';

const TargetEnum = builder.enumType('EvaluationRuleTarget', {
  description: 'What an online evaluation rule evaluates.',
  values: upperCaseValues(ruleTargets, {
    span: 'Each matching span, once it arrived and the delay passed.',
    trace: 'Each matching trace, once its last span is `delaySeconds` old (late children are seen).',
    session: 'Each session with a matching trace, once it was idle `delaySeconds`.',
  }),
});

const JobStatusEnum = builder.enumType('EvaluationRuleJobStatus', {
  description: 'Where an online evaluation job is.',
  values: upperCaseValues(jobStatuses, {
    PENDING: 'Waiting: its delay, a retry, or a free worker.',
    RUNNING: 'Its evaluator is running.',
    DONE: 'Scored: `scoreId` holds the result.',
    ERROR: 'Failed for good: `error` says why.',
    SKIPPED: 'Not evaluated: `skipReason` says why.',
  }),
});

const SkipReasonEnum = builder.enumType('EvaluationRuleSkipReason', {
  description: 'Why a job was not evaluated.',
  values: upperCaseValues(skipReasons, {
    sampled_out: "The rule's sampling left the target out.",
    filter_no_longer_matches: 'The target no longer matched the filter when its turn came (the rule or the trace changed).',
    cost_limit_reached: "The rule's judges had spent its daily cost limit.",
    rule_disabled: 'The rule was disabled before the job ran.',
    target_deleted: 'The target was deleted before the job ran.',
    backlog_full: 'Too many jobs were waiting (ONLINE_EVALUATION_MAX_PENDING_JOBS) when it arrived.',
  }),
});

const RuleStatusEnum = builder.enumType('EvaluationRuleStatus', {
  description: 'Whether a rule can run.',
  values: upperCaseValues(['active', 'paused'] as const, {
    active: 'Its jobs run.',
    paused: 'Its evaluator cannot run (`pausedReason`, e.g. no provider key): its jobs wait.',
  }),
});

export const EvaluationRuleJobRef = builder.prismaNode('EvaluationRuleJob', {
  description: 'One evaluation of one target by one version of a rule (docs/online-evaluation.md#jobs).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    ruleVersion: t.exposeInt('ruleVersion', { description: 'The version of the rule it belongs to.' }),
    targetType: t.field({ type: TargetEnum, description: 'What it evaluates.', resolve: (row) => row.targetType as RuleTarget }),
    traceId: t.exposeString('traceId', { nullable: true, description: 'The trace (TRACE), or the trace of the span (SPAN).' }),
    spanId: t.exposeString('spanId', { nullable: true, description: 'The span (SPAN).' }),
    sessionId: t.exposeString('sessionId', { nullable: true, description: 'The session (SESSION), or the trace’s session.' }),
    status: t.field({ type: JobStatusEnum, description: 'Where it is.', resolve: (row) => row.status as JobStatus }),
    skipReason: t.field({ type: SkipReasonEnum, nullable: true, description: 'SKIPPED: why.', resolve: (row) => row.skipReason as SkipReason | null }),
    error: t.string({ nullable: true, description: 'ERROR: what failed; PENDING: the failure it waits to retry.', resolve: (row) => jobJson(row).error }),
    attempts: t.exposeInt('attempts', { description: 'Failures that used an attempt (transient failures do not).' }),
    retries: t.exposeInt('retries', { description: 'Transient failures retried later (429, 5xx, timeouts, unreachable).' }),
    scoreId: t.exposeString('scoreId', { nullable: true, description: 'DONE: the REST id of its score.' }),
    judgeTraceId: t.exposeString('judgeTraceId', { nullable: true, description: "The trace of the judges' calls (environment assay-evaluation)." }),
    cost: t.exposeFloat('cost', { nullable: true, description: "USD of the judges' calls." }),
    latency: t.exposeFloat('latency', { nullable: true, description: 'Seconds the evaluator took.' }),
    notBefore: t.expose('notBefore', { type: 'DateTime', description: 'Not run before this time (the delay, a retry).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was planned.' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true, description: 'When it ended.' }),
  }),
});

const JobConnection = builder.connectionObject(
  { type: EvaluationRuleJobRef, name: 'EvaluationRuleJobConnection', description: "A rule's jobs, newest first." },
  { description: 'A job and its cursor.' },
);

type StatsJson = ReturnType<typeof statsJson>;

const StatusCount = builder.objectRef<{ status: JobStatus; count: number }>('EvaluationRuleStatusCount').implement({
  description: 'The jobs of a rule in one status.',
  fields: (t) => ({
    status: t.field({ type: JobStatusEnum, description: 'The status.', resolve: (row) => row.status }),
    count: t.exposeInt('count', { description: 'Its jobs.' }),
  }),
});

const ReasonCount = builder.objectRef<{ reason: SkipReason; count: number }>('EvaluationRuleSkipCount').implement({
  description: 'The skipped jobs of a rule for one reason.',
  fields: (t) => ({
    reason: t.field({ type: SkipReasonEnum, description: 'The reason.', resolve: (row) => row.reason }),
    count: t.exposeInt('count', { description: 'Its jobs.' }),
  }),
});

const LastError = builder.objectRef<StatsJson['last_errors'][number]>('EvaluationRuleError').implement({
  description: 'A recent failed job of a rule.',
  fields: (t) => ({
    jobId: t.exposeString('job_id', { description: 'The REST id of the job.' }),
    message: t.exposeString('message', { description: 'What failed.' }),
    at: t.string({ nullable: true, description: 'When it ended (ISO 8601).', resolve: (row) => row.at }),
  }),
});

const Stats = builder.objectRef<StatsJson>('EvaluationRuleStats').implement({
  description: "A rule's health: its jobs by status and skip reason, the judges' cost, latency, the last errors.",
  fields: (t) => ({
    jobs: t.field({
      type: [StatusCount],
      description: 'Jobs by status.',
      resolve: (row) => jobStatuses.map((status) => ({ status, count: row.jobs[status] })),
    }),
    skipped: t.field({
      type: [ReasonCount],
      description: 'Skipped jobs by reason.',
      resolve: (row) => skipReasons.map((reason) => ({ reason, count: row.skipped[reason] })),
    }),
    costUsd: t.exposeFloat('cost_usd', { description: "USD of every job's judges." }),
    costTodayUsd: t.exposeFloat('cost_today_usd', { description: 'USD since 00:00 UTC, what the daily limit counts.' }),
    latencyP50: t.exposeFloat('latency_p50', { nullable: true, description: 'Median seconds of the latest 1,000 DONE jobs.' }),
    latencyP95: t.exposeFloat('latency_p95', { nullable: true, description: '95th percentile seconds of the latest 1,000 DONE jobs.' }),
    lastErrors: t.field({ type: [LastError], description: 'The five latest failures.', resolve: (row) => row.last_errors }),
  }),
});

const BackfillStatusEnum = builder.enumType('EvaluationRuleBackfillStatus', {
  description: 'Where a backfill is.',
  values: upperCaseValues(['PENDING', 'RUNNING', 'DONE', 'CANCELLED', 'ERROR'] as const, {
    PENDING: 'Waiting for a worker.',
    RUNNING: 'Planning jobs a page of traces at a time.',
    DONE: 'Every target of the range (up to the limit) has its job.',
    CANCELLED: 'Stopped; the jobs it planned stay.',
    ERROR: 'Failed: `error` says why.',
  }),
});

export const EvaluationRuleBackfillRef = builder.prismaNode('EvaluationRuleBackfill', {
  description: 'A rule run over the traces of a time range that arrived before it (docs/online-evaluation.md#backfills).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    status: t.field({ type: BackfillStatusEnum, description: 'Where it is.', resolve: (row) => backfillJson(row).status }),
    error: t.string({ nullable: true, description: 'ERROR: why.', resolve: (row) => backfillJson(row).error }),
    startedAfter: t.expose('startedAfter', { type: 'DateTime', description: 'The range: traces started at or after this time.' }),
    startedBefore: t.expose('startedBefore', { type: 'DateTime', description: 'The range: traces started at or before this time.' }),
    limit: t.exposeInt('limit', { description: 'The most targets it plans.' }),
    total: t.exposeInt('total', { description: "The range's traces matching the rule when it started, at most `limit`." }),
    done: t.exposeInt('done', { description: 'Jobs it planned.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was asked for.' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true, description: 'When it ended.' }),
  }),
});

const CostDayRef = builder.objectRef<CostDay>('EvaluationRuleCostDay').implement({
  description: "A UTC day of a rule's judges' cost.",
  fields: (t) => ({
    day: t.expose('day', { type: 'DateTime', description: 'The start of the day (00:00 UTC).' }),
    costUsd: t.exposeFloat('costUsd', { description: 'USD of the jobs that ended that day.' }),
    jobs: t.exposeInt('jobs', { description: 'Jobs that ended that day (DONE, ERROR or SKIPPED).' }),
  }),
});

/** The most days `costByDay` answers. */
const MAX_COST_DAYS = 90;

export const EvaluationRuleRef = builder.prismaNode('EvaluationRule', {
  description:
    'An online evaluation rule: an evaluator config run on matching production spans, traces or sessions as they arrive (docs/online-evaluation.md).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses (`/evaluation-rules/{id}`).' }),
    name: t.exposeString('name', { description: 'Unique in the project.' }),
    enabled: t.exposeBoolean('enabled', { description: 'Whether arriving targets get jobs.' }),
    target: t.field({ type: TargetEnum, description: 'What it evaluates.', resolve: (row) => row.target as RuleTarget }),
    filter: t.expose('filter', { type: 'JSON', description: 'The trace search filters, under the query parameter names of `GET /observability/traces`.' }),
    samplingRate: t.exposeFloat('samplingRate', { description: 'The share of matching targets evaluated (0 < r ≤ 1), decided by a hash of the target id.' }),
    delaySeconds: t.exposeInt('delaySeconds', { description: 'Seconds after a span arrives, a trace’s last span, a session’s last activity.' }),
    evaluatorConfig: t.prismaField({
      type: EvaluatorConfig,
      nullable: true,
      description: 'The evaluator config it runs; null once deleted.',
      resolve: (query, row, _args, ctx) =>
        getEvaluatorConfig(ctx, row.evaluatorConfigId, query).catch((error: unknown) => {
          if (error instanceof NotFoundError) return null;
          throw error;
        }),
    }),
    mapping: t.expose('mapping', {
      type: 'JSON',
      nullable: true,
      description: 'JSONPaths of the inputs, output and expected answer; null: the target’s input and output.',
    }),
    scoreName: t.exposeString('scoreName', { description: 'The name of the scores it writes.' }),
    dailyCostLimitUsd: t.exposeFloat('dailyCostLimitUsd', { nullable: true, description: 'USD its judges may spend a UTC day; null for no limit.' }),
    status: t.field({ type: RuleStatusEnum, description: 'Whether it can run.', resolve: (row) => (row.status === 'PAUSED' ? 'paused' : 'active') }),
    pausedReason: t.exposeString('pausedReason', { nullable: true, description: 'PAUSED: why.' }),
    version: t.exposeInt('version', { description: 'Raised by every change of what it evaluates.' }),
    stats: t.field({
      type: Stats,
      description: 'Its jobs, cost and latency.',
      resolve: async (row, _args, ctx) => statsJson(row, await ruleStats(ctx, row.id)),
    }),
    jobs: t.connection(
      {
        type: EvaluationRuleJobRef,
        description: 'Its jobs, newest first. Pages forward only (`first`, `after`).',
        args: { status: t.arg({ type: JobStatusEnum, description: 'Only jobs in this status.' }) },
        resolve: async (row, args, ctx) => {
          const first = args.first ?? 50;
          if (first < 1 || first > 1000) throw ValidationError.at(['args', 'first'], 'Input should be between 1 and 1000');
          const page = await rules.listJobs(ctx, row.id, { status: args.status ?? undefined, limit: first, cursor: args.after ?? undefined });
          return {
            edges: page.jobs.map((job) => ({ cursor: job.id, node: job })),
            pageInfo: {
              hasNextPage: page.nextCursor !== null,
              hasPreviousPage: args.after != null,
              startCursor: page.jobs[0]?.id ?? null,
              endCursor: page.jobs.at(-1)?.id ?? null,
            },
          };
        },
      },
      JobConnection,
    ),
    costByDay: t.field({
      type: [CostDayRef],
      description: `Its judges' cost on each of the last \`days\` UTC days, today last (1 to ${MAX_COST_DAYS}).`,
      args: { days: t.arg.int({ defaultValue: 14, description: 'How many days back, today included.' }) },
      resolve: (row, args, ctx) => {
        const days = args.days ?? 14;
        if (!Number.isInteger(days) || days < 1 || days > MAX_COST_DAYS)
          throw ValidationError.at(['args', 'days'], `Input should be an integer from 1 to ${MAX_COST_DAYS}`);
        return ruleCostByDay(ctx, row.id, days);
      },
    }),
    backfills: t.field({
      type: [EvaluationRuleBackfillRef],
      description: 'Its latest backfills (100), newest first.',
      resolve: (row, _args, ctx) => backfills.listBackfills(ctx, row.id),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
  }),
});

const RuleConnection = builder.connectionObject(
  { type: EvaluationRuleRef, name: 'EvaluationRuleConnection', description: 'Rules, oldest first.' },
  { description: 'A rule and its cursor.' },
);

const ruleFields = (t: PothosInputFields, required: boolean) => ({
  name: t.string({ required, description: 'Unique in the project.' }),
  enabled: t.boolean({ description: 'Default true.' }),
  target: t.field({ type: TargetEnum, description: 'Default TRACE.' }),
  filter: t.field({
    type: 'JSON',
    description: 'The trace search filters, under the query parameter names of `GET /observability/traces` (`environment`, `spankind`…).',
  }),
  samplingRate: t.float({ description: '0 < r ≤ 1, default 1.' }),
  delaySeconds: t.int({ description: 'Default 0.' }),
  evaluatorConfigId: t.globalID({ for: EvaluatorConfig, required, description: 'The EvaluatorConfig to run.' }),
  mapping: t.field({ type: 'JSON', description: '`{inputs, output, expected}` JSONPaths into the target; null: its input and output.' }),
  scoreName: t.string({ description: "The scores' name; default the config's name." }),
  dailyCostLimitUsd: t.float({ description: 'USD the judges may spend a UTC day; null for no limit.' }),
});

type PothosInputFields = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

const RuleInput = builder.inputType('EvaluationRuleInput', {
  description: 'A new rule (REST: the body of `POST /evaluation-rules`).',
  fields: (t) => ruleFields(t, true),
});

const RulePatchInput = builder.inputType('EvaluationRulePatchInput', {
  description: 'The fields of a rule to change (REST: the body of `PATCH /evaluation-rules/{id}`).',
  fields: (t) => ruleFields(t, false),
});

const PreviewTarget = builder.objectRef<NonNullable<PreviewJson['target']>>('EvaluationRulePreviewTarget').implement({
  description: 'The target a preview took.',
  fields: (t) => ({
    type: t.field({ type: TargetEnum, description: 'Its kind.', resolve: (row) => row.type }),
    traceId: t.exposeString('trace_id', { nullable: true, description: 'Its trace.' }),
    spanId: t.exposeString('span_id', { nullable: true, description: 'Its span (SPAN).' }),
    sessionId: t.exposeString('session_id', { nullable: true, description: 'Its session (SESSION).' }),
  }),
});

const Preview = builder.objectRef<PreviewJson>('EvaluationRulePreview').implement({
  description: 'A rule run on one trace with nothing stored: the target, the variables sent and the result.',
  fields: (t) => ({
    matches: t.exposeBoolean('matches', { description: 'Whether the target matches the filter.' }),
    target: t.field({
      type: PreviewTarget,
      nullable: true,
      description: 'The target taken; null when the trace has none (no session).',
      resolve: (row) => row.target,
    }),
    variables: t.field({
      type: 'JSON',
      nullable: true,
      description: '`{inputs, output, expected}` as sent to the evaluator.',
      resolve: (row) => row.variables,
    }),
    result: t.field({ type: 'JSON', nullable: true, description: "The evaluator's result `{type, value, error}`.", resolve: (row) => row.result }),
    cost: t.exposeFloat('cost', { description: "USD of the judges' calls." }),
  }),
});

builder.queryFields((t) => ({
  evaluationRule: t.field({
    type: EvaluationRuleRef,
    nullable: true,
    description: "One of the project's rules; null when unknown (REST: `GET /evaluation-rules/{id}`).",
    args: { id: t.arg.globalID({ for: EvaluationRuleRef, required: true, description: 'The global id of an EvaluationRule.' }) },
    resolve: (_root, args, ctx) =>
      rules.getRule(ctx, args.id.id).catch((error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      }),
  }),
  evaluationRules: t.connection(
    {
      type: EvaluationRuleRef,
      description: "The project's online evaluation rules, oldest first (REST: `GET /evaluation-rules`).",
      resolve: async (_root, args, ctx) => resolveArrayConnection({ args }, await rules.listRules(ctx)),
    },
    RuleConnection,
  ),
}));

const restInput = (input: object) => restFields(input);

builder.mutationFields((t) => ({
  createEvaluationRule: t.field({
    type: EvaluationRuleRef,
    description: 'Creates an online evaluation rule; it evaluates the targets arriving from now on.',
    args: { input: t.arg({ type: RuleInput, required: true, description: 'The rule.' }) },
    resolve: (_root, args, ctx) => rules.createRule(ctx, parseInput(ruleInput, restInput(args.input), 'body')),
  }),
  updateEvaluationRule: t.field({
    type: EvaluationRuleRef,
    description: 'Changes a rule; a change of what it evaluates makes a new version.',
    args: {
      id: t.arg.globalID({ for: EvaluationRuleRef, required: true, description: 'The global id of an EvaluationRule.' }),
      input: t.arg({ type: RulePatchInput, required: true, description: 'The fields to change.' }),
    },
    resolve: (_root, args, ctx) => rules.updateRule(ctx, args.id.id, parseInput(rulePatch, restInput(args.input), 'body')),
  }),
  deleteEvaluationRule: t.id({
    description: 'Deletes a rule and its jobs (its scores stay); answers its global id.',
    args: { id: t.arg.globalID({ for: EvaluationRuleRef, required: true, description: 'The global id of an EvaluationRule.' }) },
    resolve: async (_root, args, ctx) => {
      await rules.deleteRule(ctx, args.id.id);
      return globalId('EvaluationRule', args.id.id);
    },
  }),
  backfillEvaluationRule: t.field({
    type: EvaluationRuleBackfillRef,
    description: 'Runs a rule over the traces of a time range that arrived before it (at most 50,000 targets), in the background.',
    args: {
      id: t.arg.globalID({ for: EvaluationRuleRef, required: true, description: 'The global id of an EvaluationRule.' }),
      startedAfter: t.arg({ type: 'DateTime', required: true, description: 'Traces started at or after this time.' }),
      startedBefore: t.arg({ type: 'DateTime', required: true, description: 'Traces started at or before this time.' }),
      limit: t.arg.int({ description: 'The most targets (default and at most 50,000).' }),
    },
    resolve: (_root, args, ctx) =>
      backfills.createBackfill(
        ctx,
        args.id.id,
        parseInput(
          backfillBody,
          { started_after: args.startedAfter.toISOString(), started_before: args.startedBefore.toISOString(), limit: args.limit ?? undefined },
          'body',
        ),
      ),
  }),
  cancelEvaluationRuleBackfill: t.field({
    type: EvaluationRuleBackfillRef,
    description: 'Stops a backfill; the jobs it planned stay.',
    args: { id: t.arg.globalID({ for: EvaluationRuleBackfillRef, required: true, description: 'The global id of an EvaluationRuleBackfill.' }) },
    resolve: (_root, args, ctx) => backfills.cancelBackfill(ctx, args.id.id),
  }),
  previewEvaluationRule: t.field({
    type: Preview,
    description: 'Runs a rule (a saved one by `id`, or `rule`) on one trace; nothing is stored.',
    args: {
      id: t.arg.globalID({ for: EvaluationRuleRef, description: 'A saved rule.' }),
      rule: t.arg({ type: RuleInput, description: 'An unsaved rule, when `id` is absent.' }),
      traceId: t.arg.string({ required: true, description: 'The trace to run it on.' }),
    },
    resolve: async (_root, args, ctx) => {
      const signal = AbortSignal.timeout(ctx.onlineEvaluation.timeoutMs + 1000);
      if (args.id) {
        const rule = await rules.getRule(ctx, args.id.id);
        return previewRule(
          ctx,
          ctx.onlineEvaluation.timeoutMs,
          {
            target: rule.target as RuleTarget,
            filter: rules.ruleSearchFilter(rule.filter),
            mapping: rules.ruleMappingOf(rule),
            evaluatorConfigId: rule.evaluatorConfigId,
          },
          args.traceId,
          signal,
        );
      }
      if (!args.rule) throw ValidationError.at(['args', 'rule'], 'Give the id of a saved rule or an unsaved rule');
      const body = parseInput(previewBody, { rule: restInput(args.rule), trace_id: args.traceId }, 'body');
      return previewRule(
        ctx,
        ctx.onlineEvaluation.timeoutMs,
        {
          target: body.rule.target,
          filter: rules.ruleSearchFilter(body.rule.filter),
          mapping: body.rule.mapping ?? null,
          evaluatorConfigId: body.rule.evaluator_config_id,
        },
        body.trace_id,
        signal,
      );
    },
  }),
}));

builder.subscriptionField('evaluationRuleProgress', (t) =>
  t.field({
    type: EvaluationRuleRef,
    description: `A rule's progress: the rule now, then again whenever its jobs, its backfills or the rule change (at most every ${PROGRESS_INTERVAL_MS} ms), until it is deleted. Select its \`stats\` and \`backfills\`.`,
    args: { id: t.arg.globalID({ for: EvaluationRuleRef, required: true, description: 'The global id of an EvaluationRule.' }) },
    subscribe: (_root, args, ctx) => ruleProgressStream(ctx, args.id.id),
    resolve: (rule) => rule,
  }),
);
