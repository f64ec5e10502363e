// Reads of automatic evaluations and their scenarios (SPEC §4). Creating and running them is the
// runner's work; these are the reads the contract and GraphQL share.
import type { RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { NotFoundError } from '../shared/errors.js';

type EvaluationQuery = Omit<Prisma.EvaluationFindFirstArgs, 'where'>;
type ScenarioQuery = Omit<Prisma.EvaluationScenarioFindManyArgs, 'where'>;

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

/** Scenarios in test set order (SPEC §4). */
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
