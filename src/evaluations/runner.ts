// Automatic evaluations as a kind of job of the evaluation engine (docs/evaluations.md,
// docs/evaluation-engine.md): the job is the Evaluation row, a case is a test set row, and its
// outcome is the variant's output scored by every evaluator config. Every stored scenario is one
// test case done, unique per (evaluation, position), so a resumed run skips what is stored and a
// case is never stored twice. The rate limit is the evaluation's `rate_limit`: batches of
// `batch_size`, `delay_between_batches` seconds apart, `max_retries` retries `retry_delay` apart.
import { v7 as uuidv7 } from 'uuid';
import { getRevisionById } from '../apps/operations.js';
import { type CaseRun, type Ending, type FencedWrite, JobFailure, type JobDb, type JobKind, type Planned } from '../evaluation-engine/job-kind.js';
import { EVALUATION_JOB_STATES } from '../evaluation-engine/states.js';
import { priceList } from '../pricing/operations.js';
import { getScorer, groundTruthColumn, isTransientError, spanView } from '../evaluators/scoring.js';
import type { EvaluatorConfig } from '../generated/prisma/client.js';
import { EVALUATION_ENVIRONMENT, type SpanRecord } from '../observability/ingestion/span-record.js';
import { spanWriter } from '../observability/ingestion/span-writer.js';
import type { ProviderKeys } from '../providers/access.js';
import { type ProviderCallRecord, providerClient } from '../providers/client.js';
import { writeScores } from '../scores/operations.js';
import { type RequestContext, type Services, requestContext, systemActor } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import { asObject } from '../shared/json.js';
import { SecretUnreadable } from '../shared/secrets.js';
import { jsonText } from '../shared/sql.js';
import { TransientError, withRetries } from '../shared/retry.js';
import { getTestset, type TestsetRowRecord } from '../testsets/operations.js';
import { getRevision, readTestsetRows } from '../testsets/row-reads.js';
import type { RateLimit } from './inputs.js';
import { invocationSpans, invokeVariant, newCallSpan, randomId, type Invocation, type VariantTarget } from '../invocation/invocation.js';
import { providerCallSpanFields } from '../invocation/provider-call-span.js';
import { storeAggregates } from './aggregates.js';
import { numericScore, scenarioScore } from './scenario-results.js';
import { ASSAY_ORIGIN, EVALUATOR_CONFIG_ATTRIBUTE, evaluationWithConfigs, type EvaluationWithConfigs } from './operations.js';
import { errorResult, type Result } from '../evaluators/results.js';

export interface EvaluationJobSettings {
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
  testsetId: string;
  /** The revision whose rows it runs; absent for an evaluation from before revisions. */
  testsetRevision?: number;
  providerKeys: ProviderKeys | null;
  correctAnswerColumn: string | null;
  configs: EvaluatorConfig[];
  /** The columns the configs read their ground truth from (docs/evaluations.md#ground-truth). */
  truthColumns: string[];
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

export class EvaluationJobs implements JobKind<EvaluationWithConfigs, RunPlan, TestsetRowRecord, CaseOutcome> {
  readonly name = 'evaluation';
  readonly table = 'Evaluation';
  // Runs recorded from the caller's code are never run here (docs/experiments.md).
  readonly only = { origin: ASSAY_ORIGIN };
  readonly states = EVALUATION_JOB_STATES;
  readonly progress = { publish: true };

  constructor(
    private readonly services: Services,
    private readonly settings: EvaluationJobSettings,
  ) {}

  model(db: JobDb) {
    return db.evaluation;
  }

  load(evaluationId: string): Promise<EvaluationWithConfigs | null> {
    return this.services.db.evaluation.findUnique({ where: { id: evaluationId }, ...evaluationWithConfigs });
  }

  async plan(evaluation: EvaluationWithConfigs): Promise<Planned<RunPlan>> {
    const ctx = requestContext(this.services, evaluation.projectId);
    const revision = await getRevisionById(ctx, evaluation.variantRevisionId).catch(() => {
      throw new JobFailure(`The variant revision ${evaluation.variantRevisionId} this evaluation runs no longer exists`);
    });
    const testset = await getTestset(ctx, evaluation.testsetId ?? '').catch(() => {
      throw new JobFailure(`The test set ${evaluation.testsetId} of this evaluation no longer exists`);
    });
    const rateLimit = evaluation.rateLimit as unknown as RateLimit;
    return {
      plan: {
        ctx,
        evaluationId: evaluation.id,
        appId: evaluation.appId,
        variantId: evaluation.variantId,
        variantName: evaluation.variantName,
        revision: evaluation.revision,
        target: { kind: revision.variant.kind, uri: revision.uri, parameters: asObject(revision.parameters) },
        testsetId: testset.id,
        testsetRevision: evaluation.testsetRevision ?? undefined,
        providerKeys: this.providerKeysOf(evaluation.providerKeys),
        correctAnswerColumn: evaluation.correctAnswerColumn,
        configs: evaluation.evaluators.map((row) => row.evaluatorConfig),
        truthColumns: [
          ...new Set(evaluation.evaluators.map((row) => groundTruthColumn(asObject(row.evaluatorConfig.settingsValues), evaluation.correctAnswerColumn))),
        ],
        memo: new Map(),
      },
      limits: {
        batchSize: rateLimit.batch_size,
        delayMs: rateLimit.delay_between_batches * 1000,
        retries: rateLimit.max_retries,
        retryDelayMs: rateLimit.retry_delay * 1000,
      },
      start: { total: await this.caseCount(ctx, testset, evaluation.testsetRevision), ...(evaluation.startedAt ? {} : { startedAt: new Date() }) },
    };
  }

  /** The cases of the pinned revision (docs/resources.md#test-set-revisions), or of the set as it is. */
  private async caseCount(ctx: RequestContext, testset: { id: string; rowCount: number }, revision: number | null): Promise<number> {
    if (revision === null) return testset.rowCount;
    return (await getRevision(ctx, testset.id, revision)).rowCount;
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

  /** The test cases not yet stored, in test set order. */
  async *pending(plan: RunPlan): AsyncGenerator<TestsetRowRecord> {
    const stored = new Set(
      (await plan.ctx.db.evaluationScenario.findMany({ where: { evaluationId: plan.evaluationId }, select: { position: true } })).map((s) => s.position),
    );
    let afterPosition: number | undefined;
    for (;;) {
      const page = await readTestsetRows(plan.ctx, plan.testsetId, { afterPosition, limit: ROW_PAGE, revision: plan.testsetRevision });
      for (const row of page) if (!stored.has(row.position)) yield row;
      if (page.length < ROW_PAGE) return;
      afterPosition = page[page.length - 1].position;
    }
  }

  async runCase(plan: RunPlan, row: TestsetRowRecord, run: CaseRun): Promise<CaseOutcome> {
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
        signal: run.signal,
        timeoutMs: this.settings.timeoutMs,
        retries: run.limits.retries,
        retryDelayMs: run.limits.retryDelayMs,
        providerKeys: plan.providerKeys,
        providerEnv: this.services.providerEnv,
        dispatcher: this.services.outbound,
        traceparent: call,
      });
      output = invocation.output;
    } catch (error) {
      run.signal.throwIfAborted();
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
          trace: [span, ...appSpans].map(spanView),
        };
        // Judges and embeddings go through the provider client with the run's keys, time limit
        // and retries; each call becomes an EVALUATOR span under the case's span.
        const providers = providerClient({
          prices,
          keys: plan.providerKeys,
          env: this.services.providerEnv,
          dispatcher: this.services.outbound,
          timeoutMs: this.settings.timeoutMs,
          retries: run.limits.retries,
          retryDelayMs: run.limits.retryDelayMs,
          signal: run.signal,
          onCall: (call) => evaluatorSpans.push(evaluatorSpan(plan, config, span, call)),
        });
        // An evaluator's own call (a webhook) that fails transiently gets the run's retries too.
        return withRetries(
          async () => {
            const score = await scorer(asObject(config.settingsValues), scoringCase, {
              signal: run.signal,
              providers,
              memo: plan.memo,
              dispatcher: this.services.outbound,
            });
            if (isTransientError(score)) throw new TransientScore(score);
            return score;
          },
          { retries: run.limits.retries, delayMs: run.limits.retryDelayMs, signal: run.signal },
        ).catch((error: unknown) => {
          run.signal.throwIfAborted();
          if (error instanceof TransientScore) return error.score;
          throw error;
        });
      }),
    );
    return { row, testcase, invocation, output, scores, traceId, spans: [span, ...appSpans, ...evaluatorSpans] };
  }

  /**
   * Stores a batch's scenarios with their traces and results in one fenced transaction: a case
   * is stored whole or not at all, so a run resumed after a crash leaves no trace without its scenario.
   */
  async store(plan: RunPlan, outcomes: CaseOutcome[], fenced: FencedWrite): Promise<void> {
    const { ctx } = plan;
    const storeSpans = await spanWriter(ctx);
    const { truthColumns } = plan;
    await fenced(async (tx) => {
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
      await writeScores(
        ctx,
        tx,
        fresh.flatMap(({ outcome, id }) => outcome.scores.flatMap((score, index) => scenarioScore(plan.evaluationId, id, plan.configs[index], score))),
        { author: systemActor },
      );
      return { written: fresh.length, errors: fresh.filter(({ outcome }) => hasError(outcome)).length };
    });
  }

  /** Once every case is stored: the aggregates and totals, and the status they end the run with. */
  async finish(plan: RunPlan): Promise<Ending> {
    const { done, total } = await this.services.db.evaluation.findUniqueOrThrow({ where: { id: plan.evaluationId }, select: { done: true, total: true } });
    if (done < total) throw new JobFailure(`The test set changed during the run: ${done} of its ${total} test cases were run`);
    try {
      const hasErrors = await storeAggregates(this.services.db, plan.evaluationId, plan.configs);
      return { status: hasErrors ? 'EVALUATION_FINISHED_WITH_ERRORS' : 'EVALUATION_FINISHED', error: null };
    } catch (error) {
      return {
        status: 'EVALUATION_AGGREGATION_FAILED',
        error: { message: `Aggregating the results failed: ${(error as Error).message}`, stacktrace: (error as Error).stack ?? null },
      };
    }
  }

  ended() {
    // The provider keys were kept only so a restart could resume the run.
    return { finishedAt: new Date(), providerKeys: Prisma.DbNull };
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
    ...providerCallSpanFields(call),
    config: { evaluator_key: config.evaluatorKey, evaluator_config_id: config.id },
    environment: EVALUATION_ENVIRONMENT,
    appId: plan.appId,
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
