// Online evaluation jobs as a kind of the evaluation engine (docs/online-evaluation.md#jobs): one
// job is one case. Planning decides whether the job runs, waits (its delay is not over, the rule is
// paused) or is skipped (and why); the case calls the evaluator under a hard time limit with
// provider calls traced; storing writes the score, the judges' spans and the job's end in one
// fenced transaction. Transient failures (429, 5xx, timeouts, unreachable) wait and try again
// without using an attempt until the retry deadline; other failures use one of a few attempts.
import type { EvaluatorConfig } from '../generated/prisma/client.js';
import { type CaseRun, type Ending, type FencedWrite, JobFailure, type JobDb, type JobKind, type Planned } from '../evaluation-engine/job-kind.js';
import type { Result } from '../evaluators/results.js';
import { getScorer, isTransientError, providerModelOf, type TraceSpanView } from '../evaluators/scoring.js';
import { newTraceId, randomId } from '../invocation/ids.js';
import { EVALUATION_ENVIRONMENT, type SpanRecord } from '../observability/ingestion/span-record.js';
import { spanWriter } from '../observability/ingestion/span-writer.js';
import { priceList } from '../pricing/operations.js';
import { getSpan, getTrace, listSessionTraces, listTraceSpans } from '../observability/traces/trace-reads.js';
import { getEvaluatorConfig } from '../evaluators/operations.js';
import { missingKeysMessage, missingProviderKey } from '../providers/access.js';
import { ProviderCallError, type ProviderCallRecord, type ProviderClient, providerClient } from '../providers/client.js';
import { writeScores } from '../scores/operations.js';
import { type RequestContext, type Services, requestContext, systemActor } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import { asObject } from '../shared/json.js';
import { TransientError } from '../shared/retry.js';
import type { SearchFilter } from '../observability/search/filters.js';
import { NotFoundError } from '../shared/errors.js';
import type { RuleMapping, RuleTarget, SkipReason } from './inputs.js';
import type { PreviewJson } from './responses.js';
import { type TargetDocument, type EvaluatorVariables, evaluatorVariables } from './mapping.js';
import {
  type JobRow,
  type RuleRow,
  WAITING_STATUSES,
  checkConfig,
  pauseRule,
  resumeRule,
  ruleCostSince,
  ruleMappingOf,
  ruleSearchFilter,
  startOfDay,
  targetMatches,
} from './operations.js';

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
}

export type Outcome =
  | { kind: 'scored'; result: Result; variables: EvaluatorVariables; calls: ProviderCallRecord[]; latency: number; startedAt: Date }
  | { kind: 'transient'; message: string; retryAfterMs?: number; calls: ProviderCallRecord[]; startedAt: Date }
  | { kind: 'failed'; message: string; calls: ProviderCallRecord[]; startedAt: Date };

/** What a target is for mappings and evaluators; null when it is gone. */
export async function loadTarget(
  ctx: RequestContext,
  target: RuleTarget,
  ids: Pick<JobRow, 'traceId' | 'spanId' | 'sessionId'>,
): Promise<{ document: TargetDocument; views: TraceSpanView[]; lastArrival: Date } | null> {
  const view = (span: SpanRowLite): TraceSpanView => ({
    id: span.spanId,
    parentId: span.parentSpanId,
    name: span.name,
    inputs: span.inputs,
    outputs: span.outputs,
    internals: span.internals,
  });
  if (target === 'span') {
    const span = await getSpan(ctx, ids.spanId!, ids.traceId!).catch(missingAsNull);
    if (!span) return null;
    return {
      document: { input: span.inputs, output: span.outputs, metadata: span.internals, attributes: span.attributes, spans: [spanDoc(span)], traces: [] },
      views: [view(span)],
      lastArrival: span.createdAt,
    };
  }
  const traces =
    target === 'trace'
      ? [await getTrace(ctx, ids.traceId!).catch(missingAsNull)].filter((trace) => trace !== null)
      : await listSessionTraces(ctx, ids.sessionId!, 200);
  if (traces.length === 0) return null;
  const spans = (await Promise.all(traces.map((trace) => listTraceSpans(ctx, trace.traceId)))).flat();
  const roots = traces.map(
    (trace) => spans.find((span) => span.traceId === trace.traceId && span.parentSpanId === null) ?? spans.find((span) => span.traceId === trace.traceId),
  );
  const transcript = traces.map((trace, index) => ({ trace_id: trace.traceId, input: roots[index]?.inputs ?? null, output: roots[index]?.outputs ?? null }));
  const first = roots[0];
  const last = roots[roots.length - 1];
  return {
    document: {
      input: target === 'trace' ? (first?.inputs ?? null) : transcript.map((turn) => turn.input),
      output: target === 'trace' ? (first?.outputs ?? null) : (last?.outputs ?? null),
      metadata: first?.internals ?? null,
      attributes: first?.attributes ?? null,
      spans: spans.map(spanDoc),
      traces: transcript,
    },
    views: spans.map(view),
    lastArrival: new Date(Math.max(...traces.map((trace) => trace.updatedAt.getTime()))),
  };
}

type SpanRowLite = Prisma.SpanGetPayload<object>;

function spanDoc(span: SpanRowLite) {
  return {
    span_id: span.spanId,
    parent_span_id: span.parentSpanId,
    name: span.name,
    span_kind: span.spanKind,
    input: span.inputs,
    output: span.outputs,
    metadata: span.internals,
    attributes: span.attributes,
    model: span.model,
  };
}

/** The wait before the next try of a job that failed transiently `retries` times: doubling, jittered, Retry-After winning. */
export function backoffMs(settings: Pick<OnlineSettings, 'backoffMs'>, retries: number, retryAfterMs?: number): number {
  const base = Math.min(MAX_BACKOFF_MS, settings.backoffMs * 2 ** Math.min(retries, 30));
  // Full jitter over the upper half: jobs failing together do not come back together.
  const jittered = base / 2 + Math.random() * (base / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** A provider client that remembers the transient failure behind a failed call, which the scorer turns into an error Result. */
function watched(client: ProviderClient): { client: ProviderClient; transient: () => TransientError | undefined } {
  let transient: TransientError | undefined;
  const note = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof ProviderCallError && error.cause instanceof TransientError) transient = error.cause;
      throw error;
    }
  };
  return {
    client: { chat: (model, request) => note(() => client.chat(model, request)), embed: (model, input) => note(() => client.embed(model, input)) },
    transient: () => transient,
  };
}

class EvaluatorTimeout extends Error {}

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

  load(id: string): Promise<JobRow | null> {
    return this.services.db.evaluationRuleJob.findUnique({ where: { id } });
  }

  async plan(job: JobRow): Promise<Planned<Plan>> {
    const ctx = requestContext(this.services, job.projectId);
    const rule = await ctx.db.evaluationRule.findUnique({ where: { id: job.ruleId } });
    if (!rule) throw new JobFailure('The rule was deleted');
    const plan: Plan = { ctx, job, rule, decision: { action: 'run' }, config: null, document: null, views: [], ending: { status: 'PENDING', error: null } };
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
        await resumeRule(tx, rule.id);
        plan.ending = { status: 'DONE', error: null };
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
}

/**
 * Runs the evaluator of `config` once on `variables` under the hard time limit, its provider calls
 * recorded: the outcome says whether it scored, failed transiently (retried later) or for good.
 * Throws only when `signal` aborts (the job stopped).
 */
export async function runEvaluator(
  services: Services,
  timeoutMs: number,
  ctx: RequestContext,
  config: EvaluatorConfig,
  variables: EvaluatorVariables,
  views: TraceSpanView[],
  stop: AbortSignal,
): Promise<Outcome> {
  const scorer = getScorer(config.evaluatorKey);
  const startedAt = new Date();
  const calls: ProviderCallRecord[] = [];
  if (!scorer) return { kind: 'failed', message: `The evaluator ${config.evaluatorKey} cannot run in this version`, calls, startedAt };
  const timeout = new AbortController();
  const signal = AbortSignal.any([stop, timeout.signal]);
  const providers = watched(
    providerClient({
      prices: await priceList(ctx),
      keys: null,
      env: services.providerEnv,
      dispatcher: services.outbound,
      timeoutMs,
      retries: 0,
      retryDelayMs: 0,
      signal,
      onCall: (call) => calls.push(call),
    }),
  );
  const testcase = variables.expected === undefined ? variables.inputs : { ...variables.inputs, correct_answer: variables.expected };
  const started = process.hrtime.bigint();
  let timer: NodeJS.Timeout | undefined;
  // The hard limit holds even for an evaluator that ignores its signal: the race ends the case.
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      timeout.abort();
      reject(new EvaluatorTimeout(`The evaluator did not answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
  });
  try {
    const result = await Promise.race([
      scorer(
        asObject(config.settingsValues),
        { testcase, output: variables.output, correctAnswerColumn: null, appParams: {}, trace: views },
        {
          signal,
          providers: providers.client,
          dispatcher: services.outbound,
        },
      ),
      expired,
    ]);
    stop.throwIfAborted();
    const latency = Number(process.hrtime.bigint() - started) / 1e9;
    const transient = providers.transient();
    if (result.type === 'error') {
      const message = result.error?.message ?? 'The evaluator failed';
      if (transient || isTransientError(result)) return { kind: 'transient', message, retryAfterMs: transient?.retryAfterMs, calls, startedAt };
      return { kind: 'failed', message, calls, startedAt };
    }
    if (numericValue(result) === null) {
      return {
        kind: 'failed',
        message: `The evaluator answered ${result.type} ${JSON.stringify(result.value)}, not a number or a boolean a score can hold`,
        calls,
        startedAt,
      };
    }
    return { kind: 'scored', result, variables, calls, latency, startedAt };
  } catch (error) {
    stop.throwIfAborted();
    if (error instanceof EvaluatorTimeout) return { kind: 'transient', message: error.message, calls, startedAt };
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A read's NotFoundError as null: the thing is gone. */
function missingAsNull(error: unknown): null {
  if (error instanceof NotFoundError) return null;
  throw error;
}

/** The number a score holds of a result: a boolean as 1/0, a finite number; else null. */
function numericValue(result: Result): number | null {
  if (result.type === 'bool' && typeof result.value === 'boolean') return result.value ? 1 : 0;
  if (typeof result.value === 'number' && Number.isFinite(result.value)) return result.value;
  return null;
}

/** The judges' calls of a job as a trace in Assay's own environment: a root span for the job, a child per call. */
function judgeSpans(plan: Plan, outcome: Outcome, traceId: string, now: Date): SpanRecord[] {
  const { rule, job } = plan;
  const attributes = { 'assay.online.rule_id': rule.id, 'assay.online.job_id': job.id, 'assay.evaluator_config_id': rule.evaluatorConfigId };
  const rootId = randomId(8);
  const startNs = BigInt(outcome.startedAt.getTime()) * 1_000_000n;
  const cost = outcome.calls.reduce((sum, call) => sum + (call.cost?.cost ?? 0), 0);
  const root: SpanRecord = {
    traceId,
    spanId: rootId,
    parentSpanId: null,
    name: `online evaluation: ${rule.name}`,
    spanKind: 'EVALUATOR',
    statusCode: outcome.kind === 'scored' ? 'OK' : 'ERROR',
    statusMessage: outcome.kind === 'scored' ? null : outcome.message,
    startTimeUnixNano: startNs,
    endTimeUnixNano: BigInt(now.getTime()) * 1_000_000n,
    inputs: outcome.kind === 'scored' ? (JSON.parse(JSON.stringify(outcome.variables)) as SpanRecord['inputs']) : null,
    outputs: outcome.kind === 'scored' ? ({ type: outcome.result.type, value: outcome.result.value } as SpanRecord['outputs']) : null,
    environment: EVALUATION_ENVIRONMENT,
    cost,
    costSource: 'computed',
    attributes,
  };
  const children = outcome.calls.map((call): SpanRecord => ({
    traceId,
    spanId: randomId(8),
    parentSpanId: rootId,
    name: `${call.kind} ${call.model}`,
    spanKind: call.kind === 'chat' ? 'LLM' : 'EMBEDDING',
    statusCode: call.error ? 'ERROR' : 'OK',
    statusMessage: call.error,
    startTimeUnixNano: call.startNs,
    endTimeUnixNano: call.endNs,
    inputs: call.request as SpanRecord['inputs'],
    outputs: call.error ? null : ({ output: call.response } as SpanRecord['outputs']),
    environment: EVALUATION_ENVIRONMENT,
    model: call.model,
    promptTokens: call.usage?.prompt_tokens ?? null,
    completionTokens: call.usage?.completion_tokens ?? null,
    totalTokens: call.usage?.total_tokens ?? null,
    cachedTokens: call.usage?.cached_tokens ?? null,
    cost: call.cost?.cost ?? null,
    costSource: call.cost?.source ?? null,
    attributes: { ...attributes, 'assay.provider': call.provider, 'assay.attempts': call.attempts },
  }));
  return [root, ...children];
}

/** What a preview evaluates: a saved rule's fields or an unsaved rule's. */
export interface PreviewedRule {
  target: RuleTarget;
  filter: SearchFilter;
  mapping: RuleMapping | null;
  evaluatorConfigId: string;
}

/**
 * Runs a rule on one trace as it would run online and stores nothing: the target it would take
 * there (a span target: the first matching span, else the root), whether it matches, the variables
 * sent and the evaluator's result.
 */
export async function previewRule(ctx: RequestContext, timeoutMs: number, rule: PreviewedRule, traceId: string, signal: AbortSignal): Promise<PreviewJson> {
  const config = await checkConfig(ctx, rule.evaluatorConfigId);
  const trace = await getTrace(ctx, traceId);
  let ids: Pick<JobRow, 'traceId' | 'spanId' | 'sessionId'> = { traceId, spanId: null, sessionId: trace.sessionId };
  if (rule.target === 'span') {
    const spans = await listTraceSpans(ctx, traceId, { select: { spanId: true, parentSpanId: true } });
    let chosen = spans.find((span) => span.parentSpanId === null) ?? spans[0];
    for (const span of spans) {
      if (await targetMatches(ctx, 'span', rule.filter, { ...ids, spanId: span.spanId })) {
        chosen = span;
        break;
      }
    }
    ids = { ...ids, spanId: chosen?.spanId ?? null };
  }
  if (rule.target === 'session' && !trace.sessionId) {
    return { matches: false, target: null, variables: null, result: null, cost: 0 };
  }
  const matches = await targetMatches(ctx, rule.target, rule.filter, ids);
  const target = await loadTarget(ctx, rule.target, ids);
  if (!target) return { matches: false, target: null, variables: null, result: null, cost: 0 };
  const variables = evaluatorVariables(target.document, rule.mapping);
  const outcome = await runEvaluator(ctx, timeoutMs, ctx, config, variables, target.views, signal);
  const result =
    outcome.kind === 'scored'
      ? { type: outcome.result.type, value: outcome.result.value, error: null }
      : { type: 'error', value: null, error: { message: outcome.message, stacktrace: null } };
  return {
    matches,
    target: { type: rule.target, trace_id: ids.traceId, span_id: ids.spanId, session_id: rule.target === 'session' ? trace.sessionId : null },
    variables: JSON.parse(JSON.stringify({ ...variables, expected: variables.expected ?? null })) as PreviewJson['variables'],
    result,
    cost: outcome.calls.reduce((sum, call) => sum + (call.cost?.cost ?? 0), 0),
  };
}
