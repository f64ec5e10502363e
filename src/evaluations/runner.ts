// Runs automatic evaluations in the background (docs/evaluations.md). The job is the Evaluation
// row: a worker takes it by writing a lease (owner + expiry) and renews it while it works; a run
// whose lease expired (its process died) is taken up again by the next scan, here or after a
// restart. Every stored scenario is one test case done, unique per (evaluation, position), so a
// resumed run skips what is stored and a case is never stored twice.
//
// Rate limit: cases run in batches of `batch_size` at once, one batch after another, with
// `delay_between_batches` seconds between them; a batch is written while the next one runs.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { getRevisionById } from '../apps/operations.js';
import { getEvaluator } from '../evaluators/operations.js';
import { roundCost } from '../shared/money.js';
import { priceList } from '../pricing/operations.js';
import { getScorer, groundTruthColumn, isTransientError } from '../evaluators/scoring.js';
import type { EvaluatorConfig } from '../generated/prisma/client.js';
import { EVALUATION_ENVIRONMENT, type SpanRecord } from '../observability/ingestion/span-record.js';
import { spanWriter } from '../observability/ingestion/span-writer.js';
import type { ProviderKeys } from '../providers/access.js';
import { type ProviderCallRecord, providerClient } from '../providers/client.js';
import { type RequestContext, type Services, requestContext } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import { JobFailure, type JobError, type JobRunnerSettings, LeasedJobRunner } from '../shared/job-runner.js';
import { UNFINISHED } from '../shared/job-states.js';
import { asObject, toJson } from '../shared/json.js';
import { SecretUnreadable } from '../shared/secrets.js';
import { jsonText } from '../shared/sql.js';
import { TransientError, withRetries } from '../shared/retry.js';
import { getTestset, readTestsetRows, type TestsetRowRecord } from '../testsets/operations.js';
import type { RateLimit } from './inputs.js';
import { invocationSpans, invokeVariant, newCallSpan, randomId, type Invocation, type VariantTarget } from '../invocation/invocation.js';
import { traceView } from '../invocation/app-trace.js';
import { EVALUATOR_CONFIG_ATTRIBUTE, progressOf } from './operations.js';
import { errorResult, type Result } from '../evaluators/results.js';
import { aggregate } from '../shared/statistics.js';

export interface RunnerSettings extends JobRunnerSettings {
  /** How long one call of a variant may take. */
  timeoutMs: number;
}

interface RunPlan {
  ctx: RequestContext;
  evaluationId: string;
  appId: string;
  variantId: string;
  variantName: string;
  revision: number;
  target: VariantTarget;
  rateLimit: RateLimit;
  providerKeys: ProviderKeys | null;
  correctAnswerColumn: string | null;
  configs: EvaluatorConfig[];
  /** The columns the configs read their ground truth from (docs/evaluations.md#ground-truth). */
  truthColumns: string[];
  signal: AbortSignal;
  /** The scorers' per-run memo (ScoringContext.memo). */
  memo: Map<string, unknown>;
}

interface CaseOutcome {
  row: TestsetRowRecord;
  testcase: Record<string, unknown>;
  invocation: Invocation | null;
  output: Result;
  scores: Result[];
  traceId: string;
  /** The invocation's span, the app's own spans beneath it, then one EVALUATOR span per provider call an evaluator made. */
  spans: SpanRecord[];
}

/** A transient error Result of a scorer, thrown so it is retried; kept whole for when retries run out. */
class TransientScore extends TransientError {
  constructor(readonly score: Result) {
    super(score.error?.message ?? 'transient evaluator failure');
  }
}

const ROW_PAGE = 500;

const SCENARIO_COLUMNS = [
  'id',
  'projectId',
  'evaluationId',
  'position',
  'testsetRowId',
  'inputs',
  'output',
  'cost',
  'latency',
  'correctAnswers',
  'traceId',
  'createdAt',
  'updatedAt',
];

/** What a progress event reports. */
const PROGRESS_FIELDS = { id: true, status: true, total: true, done: true, errors: true } as const;

export class EvaluationRunner extends LeasedJobRunner {
  private readonly timeoutMs: number;

  constructor(
    private readonly services: Services,
    settings: RunnerSettings,
    log: FastifyBaseLogger,
  ) {
    super('evaluation', services, services.db.evaluation, 'Evaluation', UNFINISHED, randomUUID(), settings, log);
    this.timeoutMs = settings.timeoutMs;
  }

  protected async work(evaluationId: string, signal: AbortSignal): Promise<void> {
    const plan = await this.plan(evaluationId, signal);
    if (!plan) return;
    await this.runCases(plan);
    const { done, total } = await this.services.db.evaluation.findUniqueOrThrow({ where: { id: evaluationId }, select: { done: true, total: true } });
    if (done < total) throw new JobFailure(`The test set changed during the run: ${done} of its ${total} test cases were run`);
    await this.finish(plan);
  }

  protected fail(evaluationId: string, error: JobError): Promise<void> {
    return this.end(evaluationId, 'EVALUATION_FAILED', error);
  }

  /** Loads what the run needs and marks it started; null when it is no longer ours to run. */
  private async plan(evaluationId: string, signal: AbortSignal): Promise<RunPlan | null> {
    const db = this.services.db;
    const evaluation = await db.evaluation.findUnique({
      where: { id: evaluationId },
      include: { evaluators: { orderBy: { position: 'asc' }, include: { evaluatorConfig: true } } },
    });
    if (!evaluation || evaluation.leaseOwner !== this.leases.owner) return null;
    const ctx = requestContext(this.services, evaluation.projectId);
    const revision = await getRevisionById(ctx, evaluation.variantRevisionId).catch(() => {
      throw new JobFailure(`The variant revision ${evaluation.variantRevisionId} this evaluation runs no longer exists`);
    });
    const testset = await getTestset(ctx, evaluation.testsetId ?? '').catch(() => {
      throw new JobFailure(`The test set ${evaluation.testsetId} of this evaluation no longer exists`);
    });
    const started = await db.evaluation.updateMany({
      where: { id: evaluationId, leaseOwner: this.leases.owner, status: { in: UNFINISHED } },
      data: { status: 'EVALUATION_STARTED', total: testset.rowCount, ...(evaluation.startedAt ? {} : { startedAt: new Date() }) },
    });
    if (started.count === 0) return null;
    this.publish(evaluationId);
    return {
      ctx,
      evaluationId,
      appId: evaluation.appId,
      variantId: evaluation.variantId,
      variantName: evaluation.variantName,
      revision: evaluation.revision,
      target: { kind: revision.variant.kind, uri: revision.uri, parameters: asObject(revision.parameters) },
      rateLimit: evaluation.rateLimit as unknown as RateLimit,
      providerKeys: this.providerKeysOf(evaluation.providerKeys),
      correctAnswerColumn: evaluation.correctAnswerColumn,
      configs: evaluation.evaluators.map((row) => row.evaluatorConfig),
      truthColumns: [
        ...new Set(evaluation.evaluators.map((row) => groundTruthColumn(asObject(row.evaluatorConfig.settingsValues), evaluation.correctAnswerColumn))),
      ],
      signal,
      memo: new Map(),
    };
  }

  /** The provider keys the run was given, unsealed; a run the server can no longer read them for fails. */
  private providerKeysOf(stored: Prisma.JsonValue | null): ProviderKeys | null {
    if (stored === null) return null;
    // A run created before keys were sealed holds them as they were given.
    if (typeof stored !== 'string') return stored as ProviderKeys;
    try {
      return this.services.secrets.open(stored) as ProviderKeys;
    } catch (error) {
      if (!(error instanceof SecretUnreadable)) throw error;
      throw new JobFailure(
        "The provider keys given for this evaluation cannot be read: the server's secret key (ASSAY_SECRET_KEY, or assay-secret.key beside the database) is not the one they were sealed with",
      );
    }
  }

  /** The test cases not yet stored, in test set order, in batches of `batch_size`. */
  private async *pendingBatches(plan: RunPlan): AsyncGenerator<TestsetRowRecord[]> {
    const stored = new Set(
      (await plan.ctx.db.evaluationScenario.findMany({ where: { evaluationId: plan.evaluationId }, select: { position: true } })).map((s) => s.position),
    );
    const testsetId = (await plan.ctx.db.evaluation.findUniqueOrThrow({ where: { id: plan.evaluationId }, select: { testsetId: true } })).testsetId!;
    let batch: TestsetRowRecord[] = [];
    let afterPosition: number | undefined;
    for (;;) {
      const page = await readTestsetRows(plan.ctx, testsetId, { afterPosition, limit: ROW_PAGE });
      for (const row of page) {
        if (stored.has(row.position)) continue;
        batch.push(row);
        if (batch.length === plan.rateLimit.batch_size) {
          yield batch;
          batch = [];
        }
      }
      if (page.length < ROW_PAGE) break;
      afterPosition = page[page.length - 1].position;
    }
    if (batch.length > 0) yield batch;
  }

  private async runCases(plan: RunPlan): Promise<void> {
    const batches = this.pendingBatches(plan);
    const start = (batch: TestsetRowRecord[]) => Promise.all(batch.map((row) => this.runCase(plan, row)));
    let next = await batches.next();
    let running = next.done ? null : start(next.value);
    let writing: Promise<void> = Promise.resolve();
    while (running) {
      const outcomes = await running;
      plan.signal.throwIfAborted();
      // The previous batch's write ends before another batch starts: at most one batch waits to be
      // written, so results cannot pile up in memory should storing fall behind the endpoint. A
      // failed write ends the run here.
      await writing;
      next = await batches.next();
      running = null;
      if (!next.done) {
        if (plan.rateLimit.delay_between_batches > 0) {
          await sleep(plan.rateLimit.delay_between_batches * 1000, undefined, { signal: plan.signal });
        }
        // The next batch's calls go out before this batch is written: SQLite writes block the
        // event loop, and this way the endpoint works while they do.
        running = start(next.value);
        await new Promise((resolve) => setImmediate(resolve));
      }
      writing = this.store(plan, outcomes);
      // Its failure is met at the next `await writing`; this only keeps it from counting as unhandled meanwhile.
      writing.catch(() => undefined);
    }
    await writing;
  }

  private async runCase(plan: RunPlan, row: TestsetRowRecord): Promise<CaseOutcome> {
    const testcase = asObject(row.data);
    // The variant gets the case without its ground truth: it must not see the answer.
    const inputs = Object.fromEntries(Object.entries(testcase).filter(([name]) => !plan.truthColumns.includes(name)));
    const call = newCallSpan();
    const { traceId } = call;
    const startedNs = BigInt(Date.now()) * 1_000_000n;
    let invocation: Invocation | null = null;
    let output: Result;
    // The project's prices (kept in Services until they change) cost the variant's and the judges' calls.
    const prices = await priceList(plan.ctx);
    try {
      invocation = await invokeVariant(plan.target, inputs, {
        prices,
        signal: plan.signal,
        timeoutMs: this.timeoutMs,
        retries: plan.rateLimit.max_retries,
        retryDelayMs: plan.rateLimit.retry_delay * 1000,
        providerKeys: plan.providerKeys,
        providerEnv: this.services.providerEnv,
        dispatcher: this.services.outbound,
        traceparent: call,
      });
      output = invocation.output;
    } catch (error) {
      plan.signal.throwIfAborted();
      output = errorResult((error as Error).message);
    }
    const [span, ...appSpans] = invocationSpans({
      call,
      startedNs,
      invocation,
      target: plan.target,
      testcase: asObject(row.data),
      output: output.type === 'error' ? { error: output.error?.message ?? 'error' } : { value: output.value },
      appId: plan.appId,
      variant: { id: plan.variantId, name: plan.variantName, revision: plan.revision },
      attributes: { 'assay.evaluation_id': plan.evaluationId, 'assay.testcase.position': row.position },
    });
    const evaluatorSpans: SpanRecord[] = [];
    const scores = await Promise.all(
      plan.configs.map(async (config) => {
        if (!invocation) return errorResult('The variant gave no output to evaluate (see the output error)');
        const scorer = getScorer(config.evaluatorKey);
        if (!scorer) return errorResult(`The evaluator ${config.evaluatorKey} cannot run in this version`);
        const scoringCase = {
          testcase,
          output: output.value,
          correctAnswerColumn: plan.correctAnswerColumn,
          appParams: plan.target.parameters,
          trace: [span, ...appSpans].map(traceView),
        };
        // Judges and embeddings go through the provider client with the run's keys, time limit
        // and retries; each call becomes an EVALUATOR span under the case's span.
        const providers = providerClient({
          prices,
          keys: plan.providerKeys,
          env: this.services.providerEnv,
          dispatcher: this.services.outbound,
          timeoutMs: this.timeoutMs,
          retries: plan.rateLimit.max_retries,
          retryDelayMs: plan.rateLimit.retry_delay * 1000,
          signal: plan.signal,
          onCall: (call) => evaluatorSpans.push(evaluatorSpan(plan, config, span, call)),
        });
        // An evaluator's own call (a webhook) that fails transiently gets the run's retries too.
        return withRetries(
          async () => {
            const score = await scorer(asObject(config.settingsValues), scoringCase, {
              signal: plan.signal,
              providers,
              memo: plan.memo,
              dispatcher: this.services.outbound,
            });
            if (isTransientError(score)) throw new TransientScore(score);
            return score;
          },
          { retries: plan.rateLimit.max_retries, delayMs: plan.rateLimit.retry_delay * 1000, signal: plan.signal },
        ).catch((error: unknown) => {
          plan.signal.throwIfAborted();
          if (error instanceof TransientScore) return error.score;
          throw error;
        });
      }),
    );
    return { row, testcase, invocation, output, scores, traceId, spans: [span, ...appSpans, ...evaluatorSpans] };
  }

  /**
   * Stores a batch's scenarios with their traces, results and progress in one transaction: a case
   * is stored whole or not at all, so a run resumed after a crash leaves no trace without its scenario.
   */
  private async store(plan: RunPlan, outcomes: CaseOutcome[]): Promise<void> {
    const { ctx } = plan;
    const storeSpans = await spanWriter(ctx);
    const { truthColumns } = plan;
    const { written, errors, progress } = await ctx.db.$transaction(async (tx) => {
      // Only while this worker holds the run (a worker paused past its lease writes nothing).
      await this.leases.fence(tx.evaluation, plan.evaluationId);
      const now = new Date();
      // Another worker may have stored some of these cases (a lease taken over): never twice. The
      // unique (evaluationId, position) skips those, row by row, and only what is written here
      // gets its trace, results and counts.
      const fresh: { outcome: CaseOutcome; id: string }[] = [];
      for (const outcome of outcomes) {
        const id = uuidv7();
        const scenario = [
          id,
          ctx.projectId,
          plan.evaluationId,
          outcome.row.position,
          outcome.row.id,
          jsonText(
            Object.entries(outcome.testcase)
              .filter(([name]) => !truthColumns.includes(name))
              .map(([name, value]) => ({ name, type: 'text', value })),
          ),
          jsonText(outcome.output),
          outcome.invocation?.cost?.cost ?? null,
          outcome.invocation?.latency ?? null,
          jsonText(truthColumns.filter((name) => Object.hasOwn(outcome.testcase, name)).map((name) => ({ key: name, value: textOf(outcome.testcase[name]) }))),
          outcome.traceId,
          now,
          now,
        ];
        if ((await ctx.sql.insertRows(tx, 'EvaluationScenario', SCENARIO_COLUMNS, [scenario], 'ON CONFLICT ("evaluationId", "position") DO NOTHING')) === 1) {
          fresh.push({ outcome, id });
        }
      }
      await storeSpans(
        tx,
        fresh.flatMap(({ outcome }) => outcome.spans),
      );
      await ctx.sql.insertRows(
        tx,
        'EvaluationScenarioResult',
        ['scenarioId', 'evaluatorConfigId', 'type', 'value', 'error', 'score'],
        fresh.flatMap(({ outcome, id }) =>
          outcome.scores.map((score, index) => [id, plan.configs[index].id, score.type, jsonText(score.value), jsonText(score.error), numericScore(score)]),
        ),
      );
      const errors = fresh.filter(({ outcome }) => hasError(outcome)).length;
      // The progress comes back from the same statement (RETURNING): no second read to publish it.
      const progress = await tx.evaluation.update({
        where: { id: plan.evaluationId },
        data: { done: { increment: fresh.length }, errors: { increment: errors } },
        select: PROGRESS_FIELDS,
      });
      return { written: fresh.length, errors, progress };
    });
    ctx.metrics.countCases('evaluation', written, errors);
    if (written > 0) this.publishProgress(progress);
  }

  /** Aggregates per config and the cost/latency totals, then ends the run. */
  private async finish(plan: RunPlan): Promise<void> {
    const db = this.services.db;
    let hasErrors: boolean;
    try {
      const rows = await db.$queryRaw<
        { configId: string; n: bigint | number; errors: bigint | number; sum: number | null; sumsq: number | null; bools: bigint | number }[]
      >`
        SELECT r."evaluatorConfigId" AS "configId",
               COUNT(r."score") AS "n",
               SUM(CASE WHEN r."type" = 'error' THEN 1 ELSE 0 END) AS "errors",
               SUM(r."score") AS "sum",
               SUM(r."score" * r."score") AS "sumsq",
               SUM(CASE WHEN r."type" = 'bool' THEN 1 ELSE 0 END) AS "bools"
        FROM "EvaluationScenarioResult" r JOIN "EvaluationScenario" s ON s."id" = r."scenarioId"
        WHERE s."evaluationId" = ${plan.evaluationId}
        GROUP BY r."evaluatorConfigId"`;
      const byConfig = new Map(rows.map((row) => [row.configId, row]));
      for (const config of plan.configs) {
        const row = byConfig.get(config.id);
        const n = Number(row?.n ?? 0);
        const stats = aggregate(n, Number(row?.errors ?? 0), row?.sum ?? 0, row?.sumsq ?? 0, n > 0 && Number(row?.bools ?? 0) === n);
        const result =
          stats.mean === null
            ? errorResult(`No test case could be scored by ${getEvaluator(config.evaluatorKey)?.name ?? config.evaluatorKey}`)
            : { type: 'number', value: stats.mean, error: null };
        await db.evaluationEvaluator.update({
          where: { evaluationId_evaluatorConfigId: { evaluationId: plan.evaluationId, evaluatorConfigId: config.id } },
          data: {
            aggregate: toJson({ ...result, count: stats.count, errors: stats.errors, stddev: stats.stddev, ci_low: stats.ciLow, ci_high: stats.ciHigh }),
          },
        });
      }
      const totals = await db.evaluationScenario.aggregate({
        where: { evaluationId: plan.evaluationId },
        _avg: { cost: true, latency: true },
        _sum: { cost: true },
      });
      const progress = await db.evaluation.update({
        where: { id: plan.evaluationId },
        data: { averageCost: roundCost(totals._avg.cost), totalCost: roundCost(totals._sum.cost), averageLatency: totals._avg.latency },
        select: { errors: true },
      });
      hasErrors = progress.errors > 0;
    } catch (error) {
      await this.end(plan.evaluationId, 'EVALUATION_AGGREGATION_FAILED', {
        message: `Aggregating the results failed: ${(error as Error).message}`,
        stacktrace: (error as Error).stack ?? null,
      });
      return;
    }
    await this.end(plan.evaluationId, hasErrors ? 'EVALUATION_FINISHED_WITH_ERRORS' : 'EVALUATION_FINISHED', null);
  }

  /** Ends a started run, unless it was cancelled meanwhile (a cancel wins) or another worker holds it now. */
  private async end(
    evaluationId: string,
    status: 'EVALUATION_FINISHED' | 'EVALUATION_FINISHED_WITH_ERRORS' | 'EVALUATION_FAILED' | 'EVALUATION_AGGREGATION_FAILED',
    error: Result['error'],
  ): Promise<void> {
    await this.services.db.evaluation.updateMany({
      where: { id: evaluationId, status: { in: UNFINISHED }, leaseOwner: this.leases.owner },
      // The provider keys were kept only so a restart could resume the run.
      data: { status, statusError: error ? toJson(error) : Prisma.JsonNull, finishedAt: new Date(), providerKeys: Prisma.DbNull },
    });
    this.publish(evaluationId);
  }

  private publish(evaluationId: string): void {
    this.services.db.evaluation
      .findUnique({ where: { id: evaluationId }, select: PROGRESS_FIELDS })
      .then((row) => {
        if (row) this.publishProgress(row);
      })
      .catch(() => undefined);
  }

  private publishProgress(row: Parameters<typeof progressOf>[0]): void {
    this.services.events.publish('evaluation:progress', row.id, progressOf(row));
  }
}

/**
 * A judge's or an embedding model's call, as a span of kind EVALUATOR under the case's span (same
 * trace): what was sent, the reply, usage and cost. Evaluation cost is summed from these spans
 * (operations.ts, evaluatorCost), apart from the app's cost on the scenario.
 */
function evaluatorSpan(plan: RunPlan, config: EvaluatorConfig, parent: SpanRecord, call: ProviderCallRecord): SpanRecord {
  return {
    traceId: parent.traceId,
    spanId: randomId(8),
    parentSpanId: parent.spanId,
    name: config.name,
    spanKind: 'EVALUATOR',
    statusCode: call.error ? 'ERROR' : 'OK',
    statusMessage: call.error,
    startTimeUnixNano: call.startNs,
    endTimeUnixNano: call.endNs,
    inputs: call.request as SpanRecord['inputs'],
    outputs: call.error ? null : ({ output: call.response } as SpanRecord['outputs']),
    config: { evaluator_key: config.evaluatorKey, evaluator_config_id: config.id },
    environment: EVALUATION_ENVIRONMENT,
    appId: plan.appId,
    model: call.model,
    promptTokens: call.usage?.prompt_tokens ?? null,
    completionTokens: call.usage?.completion_tokens ?? null,
    totalTokens: call.usage?.total_tokens ?? null,
    cachedTokens: call.usage?.cached_tokens ?? null,
    cost: call.cost?.cost ?? null,
    costSource: call.cost?.source ?? null,
    attributes: {
      'assay.evaluation_id': plan.evaluationId,
      [EVALUATOR_CONFIG_ATTRIBUTE]: config.id,
      'assay.evaluator_key': config.evaluatorKey,
      'assay.provider': call.provider,
      'assay.call': call.kind,
      'assay.attempts': call.attempts,
    },
  };
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function hasError(outcome: CaseOutcome): boolean {
  return outcome.output.type === 'error' || outcome.scores.some((score) => score.type === 'error');
}

/** The number an aggregate averages: booleans as 1/0, numbers as they are, anything else none. */
function numericScore(score: Result): number | null {
  if (score.type === 'bool' && typeof score.value === 'boolean') return score.value ? 1 : 0;
  if (typeof score.value === 'number' && Number.isFinite(score.value) && score.type !== 'error') return score.value;
  return null;
}
