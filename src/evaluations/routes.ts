// REST routes of automatic evaluations (docs/evaluations.md; docs/contract.md 4.3, 4.4 and the
// Evaluation of 2.4).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { restRoutes } from '../shared/http/route.js';
import {
  addExternalCasesInput,
  comparisonQuery,
  createEvaluationInput,
  createExternalRunInput,
  deleteEvaluationsInput,
  finishExternalRunInput,
  listEvaluationsQuery,
} from './inputs.js';
import * as external from './external.js';
import * as evaluations from './operations.js';
import {
  addedCasesResponse,
  comparisonRowResponse,
  externalRunJson,
  externalRunResponse,
  aggregatedResults,
  configOrder,
  evaluationJson,
  evaluationResponse,
  evaluationResultsResponse,
  evaluationScenarioResponse,
  evaluationStatusResponse,
  evaluatorCostResponse,
  scenarioJson,
  statusResult,
} from './responses.js';

const tag = 'evaluations';
const APP = '0192f0c1-0000-7000-8000-000000000001';

export function evaluationRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/evaluations',
    {
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
    },
    async (req, { body }) => (await evaluations.createEvaluations(req.ctx, body)).map(evaluationJson),
  );
  rest.get('/evaluations', { tag, summary: 'List evaluations', query: listEvaluationsQuery, response: z.array(evaluationResponse) }, async (req, { query }) =>
    (await evaluations.listEvaluations(req.ctx, query)).map(evaluationJson),
  );
  rest.delete('/evaluations', { tag, summary: 'Delete evaluations', body: deleteEvaluationsInput, noContent: true, errors: [404] }, (req, { body }) =>
    evaluations.deleteEvaluations(req.ctx, body.evaluations_ids),
  );
  rest.get(
    '/evaluations/evaluation_scenarios/comparison-results',
    {
      tag,
      summary: "Each test case with every evaluation's scenario",
      query: comparisonQuery,
      response: z.array(comparisonRowResponse),
      errors: [404],
    },
    async (req, { query }) => {
      const { evaluations: compared, rows } = await evaluations.compareEvaluations(req.ctx, query.evaluations_ids);
      return rows.map((row) => ({
        position: row.position,
        inputs: row.inputs,
        correct_answers: row.correct_answers,
        case_differs: row.caseDiffers,
        variants: compared.map((evaluation, index) => {
          const cell = row.cells[index];
          return {
            evaluation_id: evaluation.id,
            variant_id: evaluation.variantId,
            variant_name: evaluation.variantName,
            revision: String(evaluation.revision),
            testset_revision: evaluation.testsetRevision,
            scenario: cell ? scenarioJson(cell, configOrder(evaluation)) : null,
          };
        }),
      }));
    },
  );
  rest.get('/evaluations/:evaluation_id', { tag, summary: 'Read an evaluation', response: evaluationResponse, errors: [404] }, async (req, { params }) =>
    evaluationJson(await evaluations.getEvaluation(req.ctx, params.evaluation_id)),
  );
  rest.get(
    '/evaluations/:evaluation_id/status',
    { tag, summary: "An evaluation's status and progress", response: evaluationStatusResponse, errors: [404] },
    async (req, { params }) => {
      const evaluation = await evaluations.getEvaluation(req.ctx, params.evaluation_id);
      const { total, done, errors } = evaluation;
      return { status: statusResult(evaluation), progress: { total, done, errors } };
    },
  );
  rest.get(
    '/evaluations/:evaluation_id/results',
    { tag, summary: "An evaluation's aggregated results", response: evaluationResultsResponse, errors: [404] },
    async (req, { params }) => {
      const evaluation = await evaluations.getEvaluation(req.ctx, params.evaluation_id);
      return { id: evaluation.id, results: aggregatedResults(evaluation) };
    },
  );
  // The evaluators' own provider cost; not part of the contract's Evaluation (2.4), so its own route.
  rest.get(
    '/evaluations/:evaluation_id/evaluator_cost',
    { tag, summary: "What the evaluators' own model calls cost", response: evaluatorCostResponse, errors: [404] },
    async (req, { params }) => evaluations.evaluatorCost(req.ctx, params.evaluation_id),
  );
  rest.get(
    '/evaluations/:evaluation_id/evaluation_scenarios',
    { tag, summary: "An evaluation's scenarios", response: z.array(evaluationScenarioResponse), errors: [404] },
    async (req, { params }) => {
      const evaluation = await evaluations.getEvaluation(req.ctx, params.evaluation_id);
      return (await evaluations.listScenarios(req.ctx, evaluation.id)).map((scenario) => scenarioJson(scenario, configOrder(evaluation)));
    },
  );
  rest.post(
    '/evaluations/:evaluation_id/cancel',
    { tag, summary: 'Cancel a running evaluation (409 once ended)', response: evaluationResponse, errors: [404, 409] },
    async (req, { params }) => evaluationJson(await evaluations.cancelEvaluation(req.ctx, params.evaluation_id)),
  );
  // Runs recorded from the caller's code (docs/experiments.md).
  rest.post(
    '/evaluations/external',
    {
      tag,
      summary: 'Record a run made by your own code over a test set',
      description:
        'An evaluation that Assay does not run: add its cases with `POST /evaluations/{id}/cases`, then finish it. ' +
        "Recorded in `app_id`, else the test set's app, else the project's `experiments` app, as a variant named after the run.",
      body: createExternalRunInput,
      response: externalRunResponse,
      errors: [404, 409],
      examples: { run: { testset_id: '0192f0c1-0000-7000-8000-000000000004', name: 'gpt-4o-mini, prompt v2', metadata: { commit: 'abc123' } } },
    },
    async (req, { body }) => externalRunJson(await external.createExternalRun(req.ctx, body)),
  );
  rest.post(
    '/evaluations/:evaluation_id/cases',
    {
      tag,
      summary: 'Add cases to a run recorded from code',
      description: 'At most 1,000 cases a call; a case for a test set row recorded already replaces it. 409 once the run has ended.',
      body: addExternalCasesInput,
      response: addedCasesResponse,
      errors: [404, 409],
      examples: {
        cases: {
          cases: [
            {
              testset_row_id: '0192f0c1-0000-7000-8000-000000000005',
              output: 'Paris',
              trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
              results: [{ name: 'exact_match', value: true, comment: 'matches' }],
            },
          ],
        },
      },
    },
    async (req, { params, body }) => ({
      evaluation_id: params.evaluation_id,
      scenario_ids: (await external.addExternalCases(req.ctx, params.evaluation_id, body.cases)).scenarios.map((scenario) => scenario.id),
    }),
  );
  rest.post(
    '/evaluations/:evaluation_id/finish',
    {
      tag,
      summary: 'End a run recorded from code',
      description: 'Computes its aggregates and totals as for the runs Assay makes; 409 once it has ended.',
      body: finishExternalRunInput,
      response: externalRunResponse,
      errors: [404, 409],
    },
    async (req, { params, body }) => externalRunJson(await external.finishExternalRun(req.ctx, params.evaluation_id, body)),
  );
}
