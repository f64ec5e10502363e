// REST reads of automatic evaluations (SPEC §4; contract 4.4 and the Evaluation of 2.4).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { evaluatorConfigJson } from '../evaluators/routes.js';
import { parseInput } from '../shared/validation.js';
import * as evaluations from './operations.js';
import type { Result } from './results.js';
import { evaluationTotals, scenarioJson, statusResult } from './shapes.js';

/** Contract 2.4: one variant per evaluation, in the contract's arrays. */
export function evaluationJson(evaluation: evaluations.EvaluationWithConfigs) {
  return {
    id: evaluation.id,
    app_id: evaluation.appId,
    project_id: evaluation.projectId,
    variant_ids: [evaluation.variantId],
    variant_names: [evaluation.variantName],
    variant_revision_ids: [evaluation.variantRevisionId],
    revisions: [String(evaluation.revision)],
    testset_id: evaluation.testsetId,
    testset_name: evaluation.testsetName,
    status: statusResult(evaluation),
    aggregated_results: evaluation.evaluators
      .filter((row) => row.aggregate !== null)
      .map((row) => {
        const { type, value, error } = row.aggregate as unknown as Result;
        return { evaluator_config: evaluatorConfigJson(row.evaluatorConfig), result: { type, value, error } };
      }),
    ...evaluationTotals(evaluation),
    created_at: evaluation.createdAt,
    updated_at: evaluation.updatedAt,
  };
}

const listQuery = z.object({ app_id: z.string().min(1).optional() });
type Params = { Params: { evaluation_id: string } };

export function evaluationRoutes(app: FastifyInstance): void {
  app.get('/evaluations', async (req) =>
    (await evaluations.listEvaluations(req.ctx, parseInput(listQuery, req.query, 'query'))).map(evaluationJson),
  );
  app.get<Params>('/evaluations/:evaluation_id', async (req) =>
    evaluationJson(await evaluations.getEvaluation(req.ctx, req.params.evaluation_id)),
  );
  app.get<Params>('/evaluations/:evaluation_id/evaluation_scenarios', async (req) => {
    const evaluation = await evaluations.getEvaluation(req.ctx, req.params.evaluation_id, { select: { evaluators: { select: { evaluatorConfigId: true }, orderBy: { position: 'asc' } } } });
    const order = evaluation.evaluators.map((row) => row.evaluatorConfigId);
    return (await evaluations.listScenarios(req.ctx, req.params.evaluation_id)).map((scenario) => scenarioJson(scenario, order));
  });
}
