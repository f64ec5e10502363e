// REST routes of human evaluations (docs/human-evaluations.md; docs/contract.md 4.5, 4.6 and the
// shapes 2.6, 2.7).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { restRoutes } from '../shared/http/route.js';
import {
  createHumanEvaluationInput,
  deleteHumanEvaluationsInput,
  evaluationTypeParam,
  judgeScenarioInput,
  listHumanEvaluationsQuery,
  updateHumanEvaluationInput,
} from './inputs.js';
import * as humanEvaluations from './operations.js';
import { humanEvaluationJson, humanEvaluationResponse, humanResultsResponse, humanScenarioJson, humanScenarioResponse } from './responses.js';
import { resultsData, votesData } from './statistics.js';

const tag = 'human-evaluations';

export function humanEvaluationRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/human-evaluations',
    {
      tag,
      summary: 'Create a human evaluation',
      description: "One scenario per test case; the variants' outputs are generated in the background.",
      body: createHumanEvaluationInput,
      response: humanEvaluationResponse,
      errors: [404],
      examples: {
        ab: {
          app_id: '0192f0c1-0000-7000-8000-000000000001',
          variant_ids: ['0192f0c1-0000-7000-8000-000000000002', '0192f0c1-0000-7000-8000-000000000005'],
          evaluation_type: 'human_a_b_testing',
          inputs: ['country'],
          testset_id: '0192f0c1-0000-7000-8000-000000000004',
        },
      },
    },
    async (req, { body }) => humanEvaluationJson(await humanEvaluations.createHumanEvaluation(req.ctx, body)),
  );
  rest.get(
    '/human-evaluations',
    { tag, summary: 'List human evaluations', query: listHumanEvaluationsQuery, response: z.array(humanEvaluationResponse) },
    async (req, { query }) => (await humanEvaluations.listHumanEvaluations(req.ctx, query)).map(humanEvaluationJson),
  );
  rest.delete(
    '/human-evaluations',
    { tag, summary: 'Delete human evaluations', body: deleteHumanEvaluationsInput, noContent: true, errors: [404] },
    (req, { body }) => humanEvaluations.deleteHumanEvaluations(req.ctx, body.evaluations_ids),
  );
  rest.get(
    '/human-evaluations/:evaluation_id',
    { tag, summary: 'Read a human evaluation', response: humanEvaluationResponse, errors: [404] },
    async (req, { params }) => humanEvaluationJson(await humanEvaluations.getHumanEvaluation(req.ctx, params.evaluation_id)),
  );
  rest.put(
    '/human-evaluations/:evaluation_id',
    {
      tag,
      summary: 'Set the status (a final one stops generating outputs)',
      body: updateHumanEvaluationInput,
      response: humanEvaluationResponse,
      errors: [404],
    },
    async (req, { params, body }) => humanEvaluationJson(await humanEvaluations.updateHumanEvaluationStatus(req.ctx, params.evaluation_id, body.status)),
  );
  rest.delete('/human-evaluations/:evaluation_id', { tag, summary: 'Delete a human evaluation', noContent: true, errors: [404] }, (req, { params }) =>
    humanEvaluations.deleteHumanEvaluations(req.ctx, [params.evaluation_id]),
  );
  rest.get(
    '/human-evaluations/:evaluation_id/evaluation_scenarios',
    { tag, summary: "A human evaluation's scenarios", response: z.array(humanScenarioResponse), errors: [404] },
    async (req, { params }) => (await humanEvaluations.listHumanScenarios(req.ctx, params.evaluation_id)).map(humanScenarioJson),
  );
  // Faults of the path and of the body are listed together (restRoutes parses both).
  rest.put(
    '/human-evaluations/:evaluation_id/evaluation_scenario/:scenario_id/:evaluation_type',
    {
      tag,
      summary: 'Judge a scenario (vote or score)',
      description: "`evaluation_type` must be the evaluation's. Each judge has one judgement per scenario; judging again replaces it.",
      params: z.object({ evaluation_id: z.string(), scenario_id: z.string() }).extend(evaluationTypeParam.shape),
      body: judgeScenarioInput,
      response: humanScenarioResponse,
      errors: [404],
      examples: { vote: { vote: '0192f0c1-0000-7000-8000-000000000002', judge: 'ana' } },
    },
    async (req, { params, body }) =>
      humanScenarioJson(await humanEvaluations.judgeScenario(req.ctx, params.evaluation_id, params.scenario_id, body, params.evaluation_type)),
  );
  rest.get(
    '/human-evaluations/:evaluation_id/results',
    { tag, summary: 'Vote or score counts', response: humanResultsResponse, errors: [404] },
    async (req, { params }) => {
      const facts = await humanEvaluations.evaluationFacts(req.ctx, params.evaluation_id);
      return facts.evaluationType === 'human_a_b_testing' ? { votes_data: votesData(facts) } : { results_data: resultsData(facts) };
    },
  );
}
