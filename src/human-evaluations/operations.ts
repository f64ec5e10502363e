// Reads of human evaluations and their scenarios (SPEC §6, contract 4.5 and 4.6).
import type { RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { NotFoundError } from '../shared/errors.js';

type HumanEvaluationQuery = Omit<Prisma.HumanEvaluationFindFirstArgs, 'where'>;
type ScenarioQuery = Omit<Prisma.HumanEvaluationScenarioFindManyArgs, 'where'>;

export async function getHumanEvaluation<Q extends HumanEvaluationQuery = object>(
  ctx: RequestContext,
  id: string,
  query: Q = {} as Q,
): Promise<Prisma.HumanEvaluationGetPayload<Q>> {
  const found = await ctx.db.humanEvaluation.findFirst({ ...(query as HumanEvaluationQuery), where: { id, projectId: ctx.projectId } });
  if (!found) throw new NotFoundError('HumanEvaluation', id);
  return found as Prisma.HumanEvaluationGetPayload<Q>;
}

export async function listHumanEvaluations<Q extends HumanEvaluationQuery = object>(
  ctx: RequestContext,
  filter: { app_id?: string },
  query: Q = {} as Q,
): Promise<Prisma.HumanEvaluationGetPayload<Q>[]> {
  return ctx.db.humanEvaluation.findMany({
    orderBy: { id: 'asc' },
    ...(query as HumanEvaluationQuery),
    where: { projectId: ctx.projectId, ...(filter.app_id ? { appId: filter.app_id } : {}) },
  }) as Promise<Prisma.HumanEvaluationGetPayload<Q>[]>;
}

/** Scenarios in test set order. */
export async function listHumanScenarios<Q extends ScenarioQuery = object>(
  ctx: RequestContext,
  humanEvaluationId: string,
  query: Q = {} as Q,
): Promise<Prisma.HumanEvaluationScenarioGetPayload<Q>[]> {
  await getHumanEvaluation(ctx, humanEvaluationId, { select: { id: true } });
  return ctx.db.humanEvaluationScenario.findMany({
    orderBy: { position: 'asc' },
    ...(query as ScenarioQuery),
    where: { humanEvaluationId, projectId: ctx.projectId },
  }) as Promise<Prisma.HumanEvaluationScenarioGetPayload<Q>[]>;
}
