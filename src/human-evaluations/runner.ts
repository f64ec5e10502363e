// Generates the outputs of human evaluations in the background (docs/human-evaluations.md), durably
// like automatic evaluations (docs/evaluations.md#durability): the job is the HumanEvaluation row,
// run by src/shared/job-runner.ts with a lease renewed while the work runs; a row whose lease
// expired is taken again by the next scan, here or after a restart. Scenarios exist from the start
// (one per test case, unique per position); the runner fills the `outputs` of those still empty,
// and a fill only writes a scenario still empty, so a resumed run neither repeats a stored case nor
// writes one twice.
//
// Each test case is sent to every variant of the evaluation with the invocation code of automatic
// evaluations (invokeVariant): the case's input columns as `inputs`, the pinned revision's
// parameters. A call that fails once its retries are spent stores "Error: <message>" as the
// output text, with the message in the output's `error` (the scenario is flagged, the evaluation
// counts it in `errors` and ends EVALUATION_FINISHED_WITH_ERRORS); the run goes on.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { getRevisionById } from '../apps/operations.js';
import { priceList } from '../pricing/operations.js';
import { invocationSpans, invokeVariant, newCallSpan, type Invocation, type VariantTarget } from '../invocation/invocation.js';
import type { SpanRecord } from '../observability/ingestion/span-record.js';
import { spanWriter } from '../observability/ingestion/span-writer.js';
import { type RequestContext, type Services, requestContext } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import { asArray, asObject, toJson } from '../shared/json.js';
import { JobFailure, type JobError, type JobRunnerSettings, LeasedJobRunner } from '../shared/job-runner.js';
import { UNFINISHED } from '../shared/job-states.js';
import { outputProgress, type ScenarioInput, type StoredOutput } from './operations.js';

export interface HumanRunnerSettings extends JobRunnerSettings {
  /** How long one call of a variant may take. */
  timeoutMs: number;
  /** Test cases of one evaluation run at once. */
  batchSize: number;
  /** Retries of a call that failed for a transient reason, `retryDelayMs` apart (Retry-After wins). */
  retries: number;
  retryDelayMs: number;
}

interface VariantPlan {
  variantId: string;
  variantName: string;
  revision: number;
  target: VariantTarget;
}

interface RunPlan {
  ctx: RequestContext;
  evaluationId: string;
  appId: string;
  variants: VariantPlan[];
  signal: AbortSignal;
}

interface CaseOutcome {
  scenarioId: string;
  outputs: StoredOutput[];
  spans: SpanRecord[];
}

export class HumanEvaluationRunner extends LeasedJobRunner {
  constructor(
    private readonly services: Services,
    private readonly options: HumanRunnerSettings,
    log: FastifyBaseLogger,
  ) {
    super('human-evaluation', services, services.db.humanEvaluation, 'HumanEvaluation', UNFINISHED, randomUUID(), options, log);
  }

  protected async work(evaluationId: string, signal: AbortSignal): Promise<void> {
    const plan = await this.plan(evaluationId, signal);
    if (!plan) return;
    await this.runCases(plan);
    await this.finish(plan);
  }

  protected fail(evaluationId: string, error: JobError): Promise<void> {
    return this.end(evaluationId, 'EVALUATION_FAILED', error);
  }

  /** Loads what the run needs and marks it started; null when it is no longer ours to run. */
  private async plan(evaluationId: string, signal: AbortSignal): Promise<RunPlan | null> {
    const db = this.services.db;
    const evaluation = await db.humanEvaluation.findUnique({ where: { id: evaluationId } });
    if (!evaluation || evaluation.leaseOwner !== this.leases.owner) return null;
    const ctx = requestContext(this.services, evaluation.projectId);
    const names = asArray<string>(evaluation.variantNames);
    const variants: VariantPlan[] = [];
    for (const [index, revisionId] of asArray<string>(evaluation.variantRevisionIds).entries()) {
      const revision = await getRevisionById(ctx, revisionId).catch(() => {
        throw new JobFailure(`The variant revision ${revisionId} (${names[index] ?? 'a variant'}) of this evaluation no longer exists`);
      });
      variants.push({
        variantId: revision.variantId,
        variantName: names[index] ?? revision.variant.name,
        revision: revision.revision,
        target: { kind: revision.variant.kind, uri: revision.uri, parameters: asObject(revision.parameters) },
      });
    }
    const started = await db.humanEvaluation.updateMany({
      where: { id: evaluationId, leaseOwner: this.leases.owner, status: { in: UNFINISHED } },
      data: { status: 'EVALUATION_STARTED', statusError: Prisma.JsonNull },
    });
    if (started.count === 0) return null;
    return { ctx, evaluationId, appId: evaluation.appId, variants, signal };
  }

  /** Scenarios whose outputs are still empty, in test set order, a batch at a time. */
  private async runCases(plan: RunPlan): Promise<void> {
    const db = plan.ctx.db;
    let afterPosition = -1;
    for (;;) {
      plan.signal.throwIfAborted();
      const pending = await db.$queryRaw<{ id: string; position: number | bigint }[]>`
        SELECT "id", "position" FROM "HumanEvaluationScenario"
        WHERE "humanEvaluationId" = ${plan.evaluationId} AND "outputs" = '[]' AND "position" > ${afterPosition}
        ORDER BY "position" LIMIT ${this.options.batchSize}`;
      if (pending.length === 0) return;
      afterPosition = Number(pending[pending.length - 1].position);
      const scenarios = await db.humanEvaluationScenario.findMany({
        where: { id: { in: pending.map((row) => row.id) } },
        orderBy: { position: 'asc' },
        select: { id: true, position: true, inputs: true },
      });
      const outcomes = await Promise.all(scenarios.map((scenario) => this.runCase(plan, scenario)));
      plan.signal.throwIfAborted();
      await this.store(plan, outcomes);
    }
  }

  private async runCase(plan: RunPlan, scenario: { id: string; position: number; inputs: Prisma.JsonValue }): Promise<CaseOutcome> {
    const testcase = Object.fromEntries(asArray<ScenarioInput>(scenario.inputs).map((input) => [input.input_name, input.input_value]));
    // The project's prices (kept in Services until they change) cost each call.
    const prices = await priceList(plan.ctx);
    const calls = await Promise.all(
      plan.variants.map(async (variant) => {
        const startedNs = BigInt(Date.now()) * 1_000_000n;
        const span = newCallSpan();
        try {
          const invocation = await invokeVariant(variant.target, testcase, {
            prices,
            signal: plan.signal,
            timeoutMs: this.options.timeoutMs,
            retries: this.options.retries,
            retryDelayMs: this.options.retryDelayMs,
            providerKeys: null,
            providerEnv: this.services.providerEnv,
            dispatcher: this.services.outbound,
            traceparent: span,
          });
          return { variant, startedNs, span, invocation, error: null };
        } catch (error) {
          plan.signal.throwIfAborted();
          return { variant, startedNs, span, invocation: null, error: (error as Error).message };
        }
      }),
    );
    const outputs: StoredOutput[] = [];
    const spans: SpanRecord[] = [];
    for (const call of calls) {
      const { traceId } = call.span;
      const text = call.invocation ? outputText(call.invocation) : `Error: ${call.error}`;
      outputs.push({
        variant_id: call.variant.variantId,
        variant_output: text,
        error: call.error,
        cost: call.invocation?.cost?.cost ?? null,
        latency: call.invocation?.latency ?? null,
        trace_id: traceId,
      });
      spans.push(
        ...invocationSpans({
          call: call.span,
          startedNs: call.startedNs,
          invocation: call.invocation,
          target: call.variant.target,
          testcase,
          output: call.error === null ? { value: text } : { error: call.error },
          appId: plan.appId,
          variant: { id: call.variant.variantId, name: call.variant.variantName, revision: call.variant.revision },
          attributes: { 'assay.human_evaluation_id': plan.evaluationId, 'assay.testcase.position': scenario.position },
        }),
      );
    }
    return { scenarioId: scenario.id, outputs, spans };
  }

  /**
   * Stores a batch's outputs with their traces in one transaction. A scenario filled meanwhile (by
   * a client, another worker) keeps its outputs, and the traces of the calls made for it are dropped.
   */
  private async store(plan: RunPlan, outcomes: CaseOutcome[]): Promise<void> {
    const { ctx } = plan;
    const storeSpans = await spanWriter(ctx);
    const { written, errors } = await ctx.db.$transaction(async (tx) => {
      // Only while this worker holds the run (a worker paused past its lease writes nothing).
      await this.leases.fence(tx.humanEvaluation, plan.evaluationId);
      let written = 0;
      let errors = 0;
      const spans: SpanRecord[] = [];
      for (const outcome of outcomes) {
        const count = await tx.$executeRaw`
          UPDATE "HumanEvaluationScenario" SET "outputs" = ${JSON.stringify(outcome.outputs)}, "updatedAt" = ${new Date()}
          WHERE "id" = ${outcome.scenarioId} AND "outputs" = '[]'`;
        written += count;
        if (count > 0) spans.push(...outcome.spans);
        if (count > 0 && outcome.outputs.some((output) => output.error)) errors += 1;
      }
      await storeSpans(tx, spans);
      if (written > 0) {
        await tx.humanEvaluation.update({ where: { id: plan.evaluationId }, data: { done: { increment: written }, errors: { increment: errors } } });
      }
      return { written, errors };
    });
    ctx.metrics.countCases('human-evaluation', written, errors);
  }

  /** Counts what is stored and ends the run. */
  private async finish(plan: RunPlan): Promise<void> {
    const { done, errors } = await outputProgress(plan.ctx, plan.evaluationId);
    await this.services.db.humanEvaluation.updateMany({ where: { id: plan.evaluationId, leaseOwner: this.leases.owner }, data: { done, errors } });
    await this.end(plan.evaluationId, errors > 0 ? 'EVALUATION_FINISHED_WITH_ERRORS' : 'EVALUATION_FINISHED', null);
  }

  /** Ends a started run, unless its status was changed meanwhile (a user's status wins) or another worker holds it now. */
  private async end(
    evaluationId: string,
    status: 'EVALUATION_FINISHED' | 'EVALUATION_FINISHED_WITH_ERRORS' | 'EVALUATION_FAILED',
    error: { message: string; stacktrace: string | null } | null,
  ): Promise<void> {
    await this.services.db.humanEvaluation.updateMany({
      where: { id: evaluationId, status: { in: UNFINISHED }, leaseOwner: this.leases.owner },
      data: { status, statusError: error ? toJson(error) : Prisma.JsonNull },
    });
  }
}

/** The output as the text a judge reads: text as it is, JSON as JSON. */
function outputText(invocation: Invocation): string {
  const value = invocation.output.value;
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}
