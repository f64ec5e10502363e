// REST routes of automatic evaluations (SPEC §4; contract 4.3, 4.4 and the Evaluation of 2.4).
import type { FastifyInstance } from 'fastify';
import { evaluatorConfigJson } from '../evaluators/routes.js';
import { parseInput } from '../shared/validation.js';
import { comparisonQuery, createEvaluationInput, deleteEvaluationsInput, listEvaluationsQuery } from './inputs.js';
import * as evaluations from './operations.js';
import type { Result } from './results.js';
import { evaluationTotals, scenarioJson, statusResult } from './shapes.js';

type StoredAggregate = Result & { count: number; errors: number; stddev: number | null; ci_low: number | null; ci_high: number | null };

function aggregatedResults(evaluation: evaluations.EvaluationWithConfigs) {
  return evaluation.evaluators
    .filter((row) => row.aggregate !== null)
    .map((row) => {
      const { type, value, error } = row.aggregate as unknown as StoredAggregate;
      return { evaluator_config: evaluatorConfigJson(row.evaluatorConfig), result: { type, value, error } };
    });
}

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
    aggregated_results: aggregatedResults(evaluation),
    ...evaluationTotals(evaluation),
    created_at: evaluation.createdAt,
    updated_at: evaluation.updatedAt,
  };
}

function configOrder(evaluation: evaluations.EvaluationWithConfigs): string[] {
  return evaluation.evaluators.map((row) => row.evaluatorConfigId);
}

type Params = { Params: { evaluation_id: string } };

export function evaluationRoutes(app: FastifyInstance): void {
  app.post('/evaluations', async (req) =>
    (await evaluations.createEvaluations(req.ctx, parseInput(createEvaluationInput, req.body, 'body'))).map(evaluationJson),
  );
  app.get('/evaluations', async (req) =>
    (await evaluations.listEvaluations(req.ctx, parseInput(listEvaluationsQuery, req.query, 'query'))).map(evaluationJson),
  );
  app.delete('/evaluations', async (req, reply) => {
    await evaluations.deleteEvaluations(req.ctx, parseInput(deleteEvaluationsInput, req.body, 'body').evaluations_ids);
    return reply.code(204).send();
  });
  app.get('/evaluations/evaluation_scenarios/comparison-results', async (req) => {
    const { evaluations: compared, rows } = await evaluations.compareEvaluations(req.ctx, parseInput(comparisonQuery, req.query, 'query').evaluations_ids);
    return rows.map((row) => ({
      position: row.position,
      inputs: row.inputs,
      correct_answers: row.correct_answers,
      variants: compared.map((evaluation, index) => {
        const cell = row.cells[index];
        return {
          evaluation_id: evaluation.id,
          variant_id: evaluation.variantId,
          variant_name: evaluation.variantName,
          revision: String(evaluation.revision),
          scenario: cell ? scenarioJson(cell, configOrder(evaluation)) : null,
        };
      }),
    }));
  });
  app.get<Params>('/evaluations/:evaluation_id', async (req) =>
    evaluationJson(await evaluations.getEvaluation(req.ctx, req.params.evaluation_id)),
  );
  app.get<Params>('/evaluations/:evaluation_id/status', async (req) => {
    const evaluation = await evaluations.getEvaluation(req.ctx, req.params.evaluation_id);
    const { total, done, errors } = evaluation;
    return { status: statusResult(evaluation), progress: { total, done, errors } };
  });
  app.get<Params>('/evaluations/:evaluation_id/results', async (req) => {
    const evaluation = await evaluations.getEvaluation(req.ctx, req.params.evaluation_id);
    return { id: evaluation.id, results: aggregatedResults(evaluation) };
  });
  // The evaluators' own provider cost; not part of the contract's Evaluation (2.4), so its own route.
  app.get<Params>('/evaluations/:evaluation_id/evaluator_cost', async (req) => evaluations.evaluatorCost(req.ctx, req.params.evaluation_id));
  app.get<Params>('/evaluations/:evaluation_id/evaluation_scenarios', async (req) => {
    const evaluation = await evaluations.getEvaluation(req.ctx, req.params.evaluation_id);
    return (await evaluations.listScenarios(req.ctx, evaluation.id)).map((scenario) => scenarioJson(scenario, configOrder(evaluation)));
  });
  app.post<Params>('/evaluations/:evaluation_id/cancel', async (req) =>
    evaluationJson(await evaluations.cancelEvaluation(req.ctx, req.params.evaluation_id)),
  );
}
