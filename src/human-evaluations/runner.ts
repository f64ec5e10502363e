// Generating the outputs of human evaluations (docs/human-evaluations.md) as a kind of job of the
// evaluation engine (docs/evaluation-engine.md), durably like automatic evaluations: the job is the
// HumanEvaluation row. Scenarios exist from the start (one per test case, unique per position);
// a case is a scenario whose `outputs` are still empty, and a fill only writes a scenario still
// empty, so a resumed run neither repeats a stored case nor writes one twice.
//
// Each test case is sent to every variant of the evaluation with the invocation code of automatic
// evaluations (invokeVariant): the case's input columns as `inputs`, the pinned revision's
// parameters. A call that fails once its retries are spent stores "Error: <message>" as the
// output text, with the message in the output's `error` (the scenario is flagged, the evaluation
// counts it in `errors` and ends EVALUATION_FINISHED_WITH_ERRORS); the run goes on.
import { getRevisionById } from '../apps/operations.js';
import { priceList } from '../pricing/operations.js';
import { invocationSpans, invokeVariant, newCallSpan, type Invocation, type VariantTarget } from '../invocation/invocation.js';
import type { SpanRecord } from '../observability/ingestion/span-record.js';
import { spanWriter } from '../observability/ingestion/span-writer.js';
import { type RequestContext, type Services, requestContext } from '../shared/context.js';
import type { HumanEvaluation } from '../generated/prisma/client.js';
import type { Prisma } from '../shared/db.js';
import { asArray, asObject } from '../shared/json.js';
import {
  type CaseRun,
  type Ending,
  type FencedWrite,
  JobFailure,
  type JobDb,
  type JobKind,
  type Planned,
  type RunLimits,
} from '../evaluation-engine/job-kind.js';
import { EVALUATION_JOB_STATES } from '../evaluation-engine/states.js';
import { outputProgress, type ScenarioInput, type StoredOutput } from './operations.js';

/** The same limits for every run (a human evaluation is created without a rate limit), and the time limit of a call. */
export interface HumanEvaluationJobSettings extends Pick<RunLimits, 'batchSize' | 'retries' | 'retryDelayMs'> {
  /** How long one call of a variant may take. */
  timeoutMs: number;
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
}

interface PendingScenario {
  id: string;
  position: number;
  inputs: Prisma.JsonValue;
}

interface CaseOutcome {
  scenarioId: string;
  outputs: StoredOutput[];
  spans: SpanRecord[];
}

export class HumanEvaluationJobs implements JobKind<HumanEvaluation, RunPlan, PendingScenario, CaseOutcome> {
  readonly name = 'human-evaluation';
  readonly table = 'HumanEvaluation';
  readonly states = EVALUATION_JOB_STATES;
  // Counted in `done` and `errors`; no subscription follows them.
  readonly progress = { publish: false };

  constructor(
    private readonly services: Services,
    private readonly settings: HumanEvaluationJobSettings,
  ) {}

  model(db: JobDb) {
    return db.humanEvaluation;
  }

  load(evaluationId: string): Promise<HumanEvaluation | null> {
    return this.services.db.humanEvaluation.findUnique({ where: { id: evaluationId } });
  }

  async plan(evaluation: HumanEvaluation): Promise<Planned<RunPlan>> {
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
    const { batchSize, retries, retryDelayMs } = this.settings;
    return {
      plan: { ctx, evaluationId: evaluation.id, appId: evaluation.appId, variants },
      limits: { batchSize, delayMs: 0, retries, retryDelayMs },
      start: {},
    };
  }

  /** Scenarios whose outputs are still empty, in test set order, read a batch at a time. */
  async *pending(plan: RunPlan): AsyncGenerator<PendingScenario> {
    const db = plan.ctx.db;
    let afterPosition = -1;
    for (;;) {
      const page = await db.$queryRaw<{ id: string; position: number | bigint }[]>`
        SELECT "id", "position" FROM "HumanEvaluationScenario"
        WHERE "humanEvaluationId" = ${plan.evaluationId} AND "outputs" = '[]' AND "position" > ${afterPosition}
        ORDER BY "position" LIMIT ${this.settings.batchSize}`;
      if (page.length === 0) return;
      afterPosition = Number(page[page.length - 1].position);
      yield* await db.humanEvaluationScenario.findMany({
        where: { id: { in: page.map((row) => row.id) } },
        orderBy: { position: 'asc' },
        select: { id: true, position: true, inputs: true },
      });
    }
  }

  async runCase(plan: RunPlan, scenario: PendingScenario, run: CaseRun): Promise<CaseOutcome> {
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
            signal: run.signal,
            timeoutMs: this.settings.timeoutMs,
            retries: run.limits.retries,
            retryDelayMs: run.limits.retryDelayMs,
            providerKeys: null,
            providerEnv: this.services.providerEnv,
            dispatcher: this.services.outbound,
            traceparent: span,
          });
          return { variant, startedNs, span, invocation, error: null };
        } catch (error) {
          run.signal.throwIfAborted();
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
   * Stores a batch's outputs with their traces in one fenced transaction. A scenario filled
   * meanwhile (by a client, another worker) keeps its outputs, and the traces of the calls made for
   * it are dropped.
   */
  async store(plan: RunPlan, outcomes: CaseOutcome[], fenced: FencedWrite): Promise<void> {
    const storeSpans = await spanWriter(plan.ctx);
    await fenced(async (tx) => {
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
      return { written, errors };
    });
  }

  /** Counts what is stored (clients may have filled outputs too): the run ends with errors if one has one. */
  async finish(plan: RunPlan): Promise<Ending> {
    const counts = await outputProgress(plan.ctx, plan.evaluationId);
    return { status: counts.errors > 0 ? 'EVALUATION_FINISHED_WITH_ERRORS' : 'EVALUATION_FINISHED', error: null, counts };
  }
}

/** The output as the text a judge reads: text as it is, JSON as JSON. */
function outputText(invocation: Invocation): string {
  const value = invocation.output.value;
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}
