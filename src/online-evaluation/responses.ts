// What the evaluation rule routes answer (docs/online-evaluation.md#rest), and the shaping of rows
// into it; GraphQL's rule, job and stats types read the same JSON.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import {
  jobStatuses,
  ruleFilter,
  ruleMapping,
  ruleTargets,
  skipReasons,
  type JobStatus,
  type RuleTarget,
  type SkipReason,
  type RuleFilter,
  type RuleMapping,
} from './inputs.js';
import type { BackfillRow } from './backfills.js';
import type { JobRow, RuleRow } from './operations.js';
import { errorMessage, type RuleStats } from './rule-stats.js';

export const ruleResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    target: z.enum(ruleTargets),
    filter: ruleFilter,
    sampling_rate: z.number(),
    delay_seconds: z.number().int(),
    evaluator_config_id: z.string(),
    mapping: ruleMapping.nullable(),
    score_name: z.string(),
    daily_cost_limit_usd: z.number().nullable(),
    status: z.enum(['active', 'paused']).describe('paused: the evaluator cannot run (paused_reason says why); jobs wait'),
    paused_reason: z.string().nullable(),
    version: z.number().int().describe('Raised by every change of what the rule evaluates; each job belongs to one version'),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'EvaluationRule' });

export type RuleJson = z.output<typeof ruleResponse>;

export function ruleJson(row: RuleRow): RuleJson {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    target: row.target as RuleTarget,
    filter: row.filter as RuleFilter,
    sampling_rate: row.samplingRate,
    delay_seconds: row.delaySeconds,
    evaluator_config_id: row.evaluatorConfigId,
    mapping: (row.mapping as RuleMapping | null) ?? null,
    score_name: row.scoreName,
    daily_cost_limit_usd: row.dailyCostLimitUsd,
    status: row.status === 'PAUSED' ? 'paused' : 'active',
    paused_reason: row.pausedReason,
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export const ruleListResponse = z.array(ruleResponse);

export const jobResponse = z
  .object({
    id: z.string(),
    rule_version: z.number().int(),
    target_type: z.enum(ruleTargets),
    trace_id: z.string().nullable(),
    span_id: z.string().nullable(),
    session_id: z.string().nullable(),
    status: z.enum(jobStatuses),
    skip_reason: z.enum(skipReasons).nullable(),
    error: z.string().nullable().describe('ERROR: what failed; PENDING: the failure it waits to retry, if any'),
    attempts: z.number().int().describe('Failures that used an attempt (transient failures do not)'),
    retries: z.number().int().describe('Transient failures retried later (429, 5xx, timeouts, unreachable)'),
    score_id: z.string().nullable(),
    judge_trace_id: z.string().nullable().describe("The trace of the judges' calls, in the environment assay-evaluation"),
    cost: z.number().nullable().describe("USD of the judges' calls"),
    latency: z.number().nullable().describe('Seconds the evaluator took'),
    not_before: timestamp().describe('Not run before (the delay, a retry)'),
    created_at: timestamp(),
    finished_at: timestamp().nullable(),
  })
  .meta({ id: 'EvaluationRuleJob' });

export type JobJson = z.output<typeof jobResponse>;

export function jobJson(row: JobRow): JobJson {
  return {
    id: row.id,
    rule_version: row.ruleVersion,
    target_type: row.targetType as RuleTarget,
    trace_id: row.traceId,
    span_id: row.spanId,
    session_id: row.sessionId,
    status: row.status as JobStatus,
    skip_reason: row.skipReason as SkipReason | null,
    error: errorMessage(row.statusError),
    attempts: row.attempts,
    retries: row.retries,
    score_id: row.scoreId,
    judge_trace_id: row.judgeTraceId,
    cost: row.cost,
    latency: row.latency,
    not_before: row.notBefore.toISOString(),
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

export const jobListResponse = z.object({
  jobs: z.array(jobResponse),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last'),
});

const count = () => z.number().int();

export const statsResponse = z
  .object({
    jobs: z.object(Object.fromEntries(jobStatuses.map((status) => [status, count()])) as Record<JobStatus, ReturnType<typeof count>>),
    skipped: z.object(Object.fromEntries(skipReasons.map((reason) => [reason, count()])) as Record<SkipReason, ReturnType<typeof count>>),
    cost_usd: z.number().describe("The judges' calls of every job"),
    cost_today_usd: z.number().describe('Since 00:00 UTC, what the daily cost limit counts'),
    latency_p50: z.number().nullable().describe('Seconds, over the latest 1,000 DONE jobs'),
    latency_p95: z.number().nullable(),
    last_errors: z.array(z.object({ job_id: z.string(), message: z.string(), at: timestamp().nullable() })),
    status: z.enum(['active', 'paused']),
    paused_reason: z.string().nullable(),
  })
  .meta({ id: 'EvaluationRuleStats' });

export function statsJson(rule: RuleRow, stats: RuleStats): z.output<typeof statsResponse> {
  return {
    jobs: stats.byStatus,
    skipped: stats.bySkipReason,
    cost_usd: stats.costUsd,
    cost_today_usd: stats.costTodayUsd,
    latency_p50: stats.latencyP50,
    latency_p95: stats.latencyP95,
    last_errors: stats.lastErrors.map((error) => ({ job_id: error.jobId, message: error.message, at: error.at?.toISOString() ?? null })),
    status: rule.status === 'PAUSED' ? 'paused' : 'active',
    paused_reason: rule.pausedReason,
  };
}

export const previewResponse = z
  .object({
    matches: z.boolean().describe("Whether the trace (or its spans, its session) matches the rule's filter"),
    target: z
      .object({ type: z.enum(ruleTargets), trace_id: z.string().nullable(), span_id: z.string().nullable(), session_id: z.string().nullable() })
      .nullable(),
    variables: z
      .object({ inputs: z.record(z.string(), z.unknown()), output: z.unknown(), expected: z.unknown() })
      .nullable()
      .describe('What the evaluator is sent'),
    result: z
      .object({ type: z.string(), value: z.unknown(), error: z.object({ message: z.string(), stacktrace: z.string().nullable() }).nullable() })
      .nullable(),
    cost: z.number().describe("USD of the judges' calls"),
  })
  .meta({ id: 'EvaluationRulePreview' });

export type PreviewJson = z.output<typeof previewResponse>;

export const backfillResponse = z
  .object({
    id: z.string(),
    rule_id: z.string(),
    status: z.enum(['PENDING', 'RUNNING', 'DONE', 'CANCELLED', 'ERROR']),
    error: z.string().nullable(),
    started_after: timestamp(),
    started_before: timestamp(),
    limit: z.number().int().describe('The most targets it plans'),
    total: z.number().int().describe("The range's traces matching the rule when it started, at most `limit`"),
    done: z.number().int().describe('Jobs it planned (a target with a job already is not planned again)'),
    created_at: timestamp(),
    finished_at: timestamp().nullable(),
  })
  .meta({ id: 'EvaluationRuleBackfill' });

export type BackfillJson = z.output<typeof backfillResponse>;

export function backfillJson(row: BackfillRow): BackfillJson {
  return {
    id: row.id,
    rule_id: row.ruleId,
    status: row.status as BackfillJson['status'],
    error: errorMessage(row.statusError),
    started_after: row.startedAfter.toISOString(),
    started_before: row.startedBefore.toISOString(),
    limit: row.limit,
    total: row.total,
    done: row.done,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}
