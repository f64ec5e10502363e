// REST routes of automatic evaluations (SPEC §4; contract 4.3, 4.4 and the Evaluation of 2.4).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { evaluatorConfigJson } from '../evaluators/routes.js';
import { described } from '../shared/http/openapi.js';
import { parseInput } from '../shared/validation.js';
import { comparisonQuery, createEvaluationInput, deleteEvaluationsInput, listEvaluationsQuery } from './inputs.js';
import * as evaluations from './operations.js';
import {
  comparisonRowResponse,
  evaluationResponse,
  evaluationResultsResponse,
  evaluationScenarioResponse,
  evaluationStatusResponse,
  evaluatorCostResponse,
} from './responses.js';
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

const tag = 'evaluations';
const APP = '0192f0c1-0000-7000-8000-000000000001';

export function evaluationRoutes(app: FastifyInstance): void {
  app.post(
    '/evaluations',
    described({
      tag,
      summary: 'Start evaluations (one per variant)',
      description: 'Answers at once in `EVALUATION_INITIALIZED`; the run proceeds in the background.',
      body: createEvaluationInput,
      response: z.array(evaluationResponse),
      errors: [404],
      examples: {
        exact: {
          app_id: APP,
          variant_ids: ['0192f0c1-0000-7000-8000-000000000002'],
          evaluators_configs: ['0192f0c1-0000-7000-8000-000000000003'],
          testset_id: '0192f0c1-0000-7000-8000-000000000004',
          rate_limit: { batch_size: 10, max_retries: 3, retry_delay: 1, delay_between_batches: 0 },
        },
      },
    }),
    async (req) =>
    (await evaluations.createEvaluations(req.ctx, parseInput(createEvaluationInput, req.body, 'body'))).map(evaluationJson),
  );
  app.get('/evaluations', described({ tag, summary: 'List evaluations', query: listEvaluationsQuery, response: z.array(evaluationResponse) }), async (req) =>
    (await evaluations.listEvaluations(req.ctx, parseInput(listEvaluationsQuery, req.query, 'query'))).map(evaluationJson),
  );
  app.delete('/evaluations', described({ tag, summary: 'Delete evaluations', body: deleteEvaluationsInput, noContent: true, errors: [404] }), async (req, reply) => {
    await evaluations.deleteEvaluations(req.ctx, parseInput(deleteEvaluationsInput, req.body, 'body').evaluations_ids);
    return reply.code(204).send();
  });
  app.get(
    '/evaluations/evaluation_scenarios/comparison-results',
    described({
      tag,
      summary: "Each test case with every evaluation's scenario",
      query: comparisonQuery,
      response: z.array(comparisonRowResponse),
      errors: [404],
    }),
    async (req) => {
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
  app.get<Params>('/evaluations/:evaluation_id', described({ tag, summary: 'Read an evaluation', response: evaluationResponse, errors: [404] }), async (req) =>
    evaluationJson(await evaluations.getEvaluation(req.ctx, req.params.evaluation_id)),
  );
  app.get<Params>(
    '/evaluations/:evaluation_id/status',
    described({ tag, summary: "An evaluation's status and progress", response: evaluationStatusResponse, errors: [404] }),
    async (req) => {
    const evaluation = await evaluations.getEvaluation(req.ctx, req.params.evaluation_id);
    const { total, done, errors } = evaluation;
    return { status: statusResult(evaluation), progress: { total, done, errors } };
  });
  app.get<Params>(
    '/evaluations/:evaluation_id/results',
    described({ tag, summary: "An evaluation's aggregated results", response: evaluationResultsResponse, errors: [404] }),
    async (req) => {
    const evaluation = await evaluations.getEvaluation(req.ctx, req.params.evaluation_id);
    return { id: evaluation.id, results: aggregatedResults(evaluation) };
  });
  // The evaluators' own provider cost; not part of the contract's Evaluation (2.4), so its own route.
  app.get<Params>(
    '/evaluations/:evaluation_id/evaluator_cost',
    described({ tag, summary: "What the evaluators' own model calls cost", response: evaluatorCostResponse, errors: [404] }),
    async (req) => evaluations.evaluatorCost(req.ctx, req.params.evaluation_id));
  app.get<Params>(
    '/evaluations/:evaluation_id/evaluation_scenarios',
    described({ tag, summary: "An evaluation's scenarios", response: z.array(evaluationScenarioResponse), errors: [404] }),
    async (req) => {
    const evaluation = await evaluations.getEvaluation(req.ctx, req.params.evaluation_id);
    return (await evaluations.listScenarios(req.ctx, evaluation.id)).map((scenario) => scenarioJson(scenario, configOrder(evaluation)));
  });
  app.post<Params>(
    '/evaluations/:evaluation_id/cancel',
    described({ tag, summary: 'Cancel a running evaluation (409 once ended)', response: evaluationResponse, errors: [404, 409] }),
    async (req) =>
    evaluationJson(await evaluations.cancelEvaluation(req.ctx, req.params.evaluation_id)),
  );
}
