// Automatic evaluations (docs/evaluations.md): create, read, cancel, delete. Running them is
// runner.ts's work.
import { getAppVariants, type VariantWithRevision } from '../apps/operations.js';
import { getEvaluatorConfigs } from '../evaluators/operations.js';
import { getScorer, providerModelOf, requiredColumns } from '../evaluators/scoring.js';
import { RESERVED_PLACEHOLDERS } from '../evaluators/template.js';
import { sumCosts } from '../shared/money.js';
import { missingKeysMessage, missingProviderKey } from '../providers/access.js';
import type { RequestContext } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import { ConflictError, NotFoundError, ValidationError, type ValidationIssue } from '../shared/errors.js';
import { progressOf } from '../evaluation-engine/events.js';
import { UNFINISHED } from '../evaluation-engine/states.js';
import { asObject, toJson } from '../shared/json.js';
import { spanCostsByAttribute } from '../observability/traces/trace-reads.js';
import { deleteScoresOfScenarios } from '../scores/operations.js';
import { getTestset } from '../testsets/operations.js';
import type { CreateEvaluationInput } from './inputs.js';

type EvaluationQuery = Omit<Prisma.EvaluationFindFirstArgs, 'where'>;
type ScenarioQuery = Omit<Prisma.EvaluationScenarioFindManyArgs, 'where'>;

/** Evaluations the runner runs; `external` ones are recorded by the caller's code (docs/experiments.md). */
export const ASSAY_ORIGIN = 'assay';
export const EXTERNAL_ORIGIN = 'external';

/** What the REST shape of an evaluation needs besides the row: its configs with their aggregates. */
export const evaluationWithConfigs = {
  include: { evaluators: { orderBy: { position: 'asc' }, include: { evaluatorConfig: true } } },
} as const;
export type EvaluationWithConfigs = Prisma.EvaluationGetPayload<typeof evaluationWithConfigs>;

export const scenarioWithResults = {
  include: { results: true },
} as const;
export type ScenarioWithResults = Prisma.EvaluationScenarioGetPayload<typeof scenarioWithResults>;

export async function getEvaluation<Q extends EvaluationQuery = typeof evaluationWithConfigs>(
  ctx: RequestContext,
  evaluationId: string,
  query: Q = evaluationWithConfigs as Q,
): Promise<Prisma.EvaluationGetPayload<Q>> {
  const evaluation = await ctx.db.evaluation.findFirst({
    ...(query as EvaluationQuery),
    where: { id: evaluationId, projectId: ctx.projectId },
  });
  if (!evaluation) throw new NotFoundError('Evaluation', evaluationId);
  return evaluation as Prisma.EvaluationGetPayload<Q>;
}

export async function listEvaluations<Q extends EvaluationQuery = typeof evaluationWithConfigs>(
  ctx: RequestContext,
  filter: { app_id?: string },
  query: Q = evaluationWithConfigs as Q,
): Promise<Prisma.EvaluationGetPayload<Q>[]> {
  return ctx.db.evaluation.findMany({
    orderBy: { id: 'asc' },
    ...(query as EvaluationQuery),
    where: { projectId: ctx.projectId, ...(filter.app_id ? { appId: filter.app_id } : {}) },
  }) as Promise<Prisma.EvaluationGetPayload<Q>[]>;
}

/** Scenarios in test set order (docs/evaluations.md). */
export async function listScenarios<Q extends ScenarioQuery = typeof scenarioWithResults>(
  ctx: RequestContext,
  evaluationId: string,
  query: Q = scenarioWithResults as Q,
): Promise<Prisma.EvaluationScenarioGetPayload<Q>[]> {
  await getEvaluation(ctx, evaluationId, { select: { id: true } });
  return ctx.db.evaluationScenario.findMany({
    orderBy: { position: 'asc' },
    ...(query as ScenarioQuery),
    where: { evaluationId, projectId: ctx.projectId },
  }) as Promise<Prisma.EvaluationScenarioGetPayload<Q>[]>;
}

/**
 * docs/contract.md 4.3: checks everything first (app, variants of that app, test set, configs: 404;
 * evaluators this version cannot run, missing provider keys: 422), then creates one evaluation
 * per variant, in request order, pinned to the variant's current revision. The runner does the work.
 */
export async function createEvaluations(ctx: RequestContext, input: CreateEvaluationInput): Promise<EvaluationWithConfigs[]> {
  const variants = await getAppVariants(ctx, input.app_id, input.variant_ids);
  const testset = await getTestset(ctx, input.testset_id);
  const configs = await getEvaluatorConfigs(ctx, input.evaluators_configs);

  const issues: ValidationIssue[] = [];
  configs.forEach((config, index) => {
    if (!getScorer(config.evaluatorKey)) {
      issues.push({
        loc: ['body', 'evaluators_configs', index],
        msg: `The evaluator ${config.evaluatorKey} of config ${config.id} cannot run in this version yet`,
        type: 'value_error',
      });
    }
  });
  // A config's {<column>} placeholders must be columns of the test set (the union of its rows' columns).
  const columns = new Set(Array.isArray(testset.columns) ? (testset.columns as unknown[]).map(String) : []);
  configs.forEach((config, index) => {
    const missing = requiredColumns(config.evaluatorKey, asObject(config.settingsValues)).filter((column) => !columns.has(column));
    if (missing.length === 0) return;
    issues.push({
      loc: ['body', 'evaluators_configs', index],
      msg:
        `The prompt of evaluator config ${config.name} uses ${missing.map((column) => `{${column}}`).join(', ')}, ` +
        `but test set ${testset.name} has no column ${missing.map((column) => `"${column}"`).join(', ')} ` +
        `(columns: ${[...columns].join(', ') || 'none'}; the evaluator fills ${RESERVED_PLACEHOLDERS.map((name) => `{${name}}`).join(', ')})`,
      type: 'value_error',
    });
  });
  // Prompt variants and provider-backed evaluators (judges, embeddings) call a model provider:
  // each model's provider needs a key, from the request or the server's environment.
  const models: string[] = [];
  for (const variant of variants) {
    if (variant.kind === 'prompt') models.push((asObject(variant.revisions[0]?.parameters).model as string | undefined) ?? '');
  }
  for (const config of configs) {
    const model = providerModelOf(config.evaluatorKey, asObject(config.settingsValues));
    if (model !== null) models.push(model);
  }
  const missingKeys = new Set<string>();
  for (const model of models) {
    const missing = missingProviderKey(model, input.lm_providers_keys, ctx.providerEnv);
    if (missing) missingKeys.add(missing);
  }
  if (missingKeys.size > 0) {
    issues.push({
      loc: ['body', 'lm_providers_keys'],
      msg: missingKeysMessage([...missingKeys]),
      type: 'value_error',
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);

  const created = await ctx.db.$transaction(
    variants.map((variant) => {
      return ctx.db.evaluation.create({
        data: {
          projectId: ctx.projectId,
          appId: input.app_id,
          ...pinned(variant, testset),
          correctAnswerColumn: input.correct_answer_column ?? null,
          rateLimit: toJson(input.rate_limit),
          // Kept until the run ends, so that a restart can resume it; sealed (shared/secrets.ts).
          providerKeys: input.lm_providers_keys ? ctx.secrets.seal(input.lm_providers_keys) : undefined,
          total: testset.rowCount,
          evaluators: { create: configs.map((config, position) => ({ evaluatorConfigId: config.id, position })) },
        },
        ...evaluationWithConfigs,
      });
    }),
  );
  ctx.events.publish('jobs:created', 'evaluation');
  return created;
}

/** What an evaluation pins at creation: the variant's newest revision and the test set's revision, with their names. */
export function pinned(variant: VariantWithRevision, testset: { id: string; name: string; revision: number }) {
  const revision = variant.revisions[0];
  return {
    variantId: variant.id,
    variantName: variant.name,
    variantRevisionId: revision.id,
    revision: revision.revision,
    testsetId: testset.id,
    testsetName: testset.name,
    testsetRevision: testset.revision,
  };
}

/** The attribute of an EVALUATOR span naming the evaluator config whose call it traces. */
export const EVALUATOR_CONFIG_ATTRIBUTE = 'assay.evaluator_config_id';

export interface EvaluatorCost {
  evaluation_id: string;
  /** USD of the evaluators' provider calls (judges, embeddings); null when none had a known price. */
  total_cost: number | null;
  /** Provider calls made by the evaluators (each an EVALUATOR span in its case's trace). */
  calls: number;
  /** Per evaluator config, in the evaluation's order. */
  evaluators: { evaluator_config_id: string; cost: number | null; calls: number }[];
}

/**
 * What evaluating cost, apart from what the app cost (the scenarios' outputs[].cost): the sum of
 * the EVALUATOR spans the runner recorded in the traces of the evaluation's scenarios.
 */
export async function evaluatorCost(ctx: RequestContext, evaluationId: string): Promise<EvaluatorCost> {
  const evaluation = await getEvaluation(ctx, evaluationId, {
    select: { id: true, evaluators: { orderBy: { position: 'asc' }, select: { evaluatorConfigId: true } } },
  });
  const scenarios = await ctx.db.evaluationScenario.findMany({ where: { evaluationId, projectId: ctx.projectId }, select: { traceId: true } });
  const traceIds = scenarios.flatMap((scenario) => (scenario.traceId === null ? [] : [scenario.traceId]));
  const spans = await spanCostsByAttribute(ctx, traceIds, 'EVALUATOR', EVALUATOR_CONFIG_ATTRIBUTE);
  const byConfig = new Map(evaluation.evaluators.map((row) => [row.evaluatorConfigId, { calls: 0, costs: [] as (number | null)[] }]));
  for (const span of spans) {
    const entry = byConfig.get(String(span.attribute));
    if (!entry) continue;
    entry.calls += 1;
    entry.costs.push(span.cost);
  }
  return {
    evaluation_id: evaluation.id,
    total_cost: sumCosts(spans.map((span) => span.cost)),
    calls: spans.length,
    evaluators: [...byConfig].map(([id, entry]) => ({ evaluator_config_id: id, cost: sumCosts(entry.costs), calls: entry.calls })),
  };
}

/** Stops an evaluation that has not finished; its stored scenarios stay. */
export async function cancelEvaluation(ctx: RequestContext, evaluationId: string): Promise<EvaluationWithConfigs> {
  const evaluation = await getEvaluation(ctx, evaluationId);
  const { count } = await ctx.db.evaluation.updateMany({
    where: { id: evaluationId, status: { in: UNFINISHED } },
    data: { status: 'EVALUATION_CANCELLED', finishedAt: new Date(), leaseOwner: null, leaseExpiresAt: null, providerKeys: Prisma.DbNull },
  });
  if (count === 0) throw new ConflictError(`Evaluation ${evaluationId} has already ended (${evaluation.status})`);
  ctx.events.publish('job:stopped', evaluationId);
  const cancelled = await getEvaluation(ctx, evaluationId);
  ctx.events.publish('evaluation:progress', evaluationId, progressOf(cancelled));
  return cancelled;
}

/** Deletes evaluations with their scenarios (their traces stay); 404 for the first unknown id, and then nothing is deleted. */
export async function deleteEvaluations(ctx: RequestContext, evaluationIds: readonly string[]): Promise<void> {
  const found = await ctx.db.evaluation.findMany({ where: { id: { in: [...evaluationIds] }, projectId: ctx.projectId }, select: { id: true } });
  const known = new Set(found.map((row) => row.id));
  const unknown = evaluationIds.find((id) => !known.has(id));
  if (unknown !== undefined) throw new NotFoundError('Evaluation', unknown);
  // Their scenarios' scores (docs/scores.md#evaluations) go with them, in one transaction.
  await ctx.db.$transaction(async (tx) => {
    const scenarios = await tx.evaluationScenario.findMany({ where: { evaluationId: { in: [...known] } }, select: { id: true } });
    await deleteScoresOfScenarios(
      tx,
      ctx.projectId,
      scenarios.map((scenario) => scenario.id),
    );
    await tx.evaluation.deleteMany({ where: { id: { in: [...known] } } });
  });
  for (const id of known) ctx.events.publish('job:stopped', id);
}

/**
 * Several evaluations side by side per test case (by position in the test set), each with its
 * output and results; null where an evaluation has no scenario for that case.
 */
export async function compareEvaluations(ctx: RequestContext, evaluationIds: readonly string[]) {
  const evaluations: EvaluationWithConfigs[] = [];
  for (const id of evaluationIds) evaluations.push(await getEvaluation(ctx, id));
  const scenarios = await ctx.db.evaluationScenario.findMany({
    where: { evaluationId: { in: [...evaluationIds] }, projectId: ctx.projectId },
    ...scenarioWithResults,
    orderBy: { position: 'asc' },
  });
  const positions = [...new Set(scenarios.map((scenario) => scenario.position))].sort((a, b) => a - b);
  const byKey = new Map(scenarios.map((scenario) => [`${scenario.evaluationId}:${scenario.position}`, scenario]));
  // Evaluations of one test set at different revisions may have run different cases at a position
  // (docs/resources.md#test-set-revisions): a row says when its scenarios ran different versions.
  const revisions = new Set(evaluations.map((evaluation) => `${evaluation.testsetId}:${evaluation.testsetRevision}`));
  return {
    evaluations,
    revisionsDiffer: revisions.size > 1,
    rows: positions.map((position) => {
      const cells = evaluations.map((evaluation) => byKey.get(`${evaluation.id}:${position}`) ?? null);
      const first = cells.find((cell) => cell !== null)!;
      const cases = new Set(cells.map((cell) => cell?.testsetRowId ?? null));
      return { position, inputs: first.inputs, correct_answers: first.correctAnswers, cells, caseDiffers: cases.size > 1 };
    }),
  };
}

/** The trace each scenario's invocation recorded, by scenario id (none for an unknown id or one without a trace). */
export async function scenarioTraceIds(ctx: RequestContext, scenarioIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await ctx.db.evaluationScenario.findMany({
    where: { projectId: ctx.projectId, id: { in: [...scenarioIds] }, traceId: { not: null } },
    select: { id: true, traceId: true },
  });
  return new Map(rows.map((row) => [row.id, row.traceId!]));
}
