// REST routes of human evaluations (SPEC §6; contract 4.5, 4.6 and the shapes 2.6, 2.7).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ValidationError } from '../shared/errors.js';
import { described } from '../shared/http/openapi.js';
import { parseInput, validationIssues } from '../shared/validation.js';
import {
  createHumanEvaluationInput,
  deleteHumanEvaluationsInput,
  evaluationTypeParam,
  judgeScenarioInput,
  listHumanEvaluationsQuery,
  updateHumanEvaluationInput,
} from './inputs.js';
import * as humanEvaluations from './operations.js';
import { humanEvaluationResponse, humanResultsResponse, humanScenarioResponse } from './responses.js';
import { humanEvaluationJson, humanScenarioJson } from './shapes.js';
import { evaluationFacts, resultsData, votesData } from './statistics.js';

type Params = { Params: { evaluation_id: string } };
type ScenarioParams = { Params: { evaluation_id: string; scenario_id: string; evaluation_type: string } };

const tag = 'human-evaluations';

export function humanEvaluationRoutes(app: FastifyInstance): void {
  app.post(
    '/human-evaluations',
    described({
      tag,
      summary: 'Create a human evaluation',
      description: 'One scenario per test case; the variants\' outputs are generated in the background.',
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
    }),
    async (req) =>
    humanEvaluationJson(await humanEvaluations.createHumanEvaluation(req.ctx, parseInput(createHumanEvaluationInput, req.body, 'body'))),
  );
  app.get(
    '/human-evaluations',
    described({ tag, summary: 'List human evaluations', query: listHumanEvaluationsQuery, response: z.array(humanEvaluationResponse) }),
    async (req) =>
    (await humanEvaluations.listHumanEvaluations(req.ctx, parseInput(listHumanEvaluationsQuery, req.query, 'query'))).map(humanEvaluationJson),
  );
  app.delete(
    '/human-evaluations',
    described({ tag, summary: 'Delete human evaluations', body: deleteHumanEvaluationsInput, noContent: true, errors: [404] }),
    async (req, reply) => {
    await humanEvaluations.deleteHumanEvaluations(req.ctx, parseInput(deleteHumanEvaluationsInput, req.body, 'body').evaluations_ids);
    return reply.code(204).send();
  });
  app.get<Params>(
    '/human-evaluations/:evaluation_id',
    described({ tag, summary: 'Read a human evaluation', response: humanEvaluationResponse, errors: [404] }),
    async (req) =>
    humanEvaluationJson(await humanEvaluations.getHumanEvaluation(req.ctx, req.params.evaluation_id)),
  );
  app.put<Params>(
    '/human-evaluations/:evaluation_id',
    described({
      tag,
      summary: 'Set the status (a final one stops generating outputs)',
      body: updateHumanEvaluationInput,
      response: humanEvaluationResponse,
      errors: [404],
    }),
    async (req) => {
    const { status } = parseInput(updateHumanEvaluationInput, req.body, 'body');
    return humanEvaluationJson(await humanEvaluations.updateHumanEvaluationStatus(req.ctx, req.params.evaluation_id, status));
  });
  app.delete<Params>(
    '/human-evaluations/:evaluation_id',
    described({ tag, summary: 'Delete a human evaluation', noContent: true, errors: [404] }),
    async (req, reply) => {
    await humanEvaluations.deleteHumanEvaluations(req.ctx, [req.params.evaluation_id]);
    return reply.code(204).send();
  });
  app.get<Params>(
    '/human-evaluations/:evaluation_id/evaluation_scenarios',
    described({ tag, summary: "A human evaluation's scenarios", response: z.array(humanScenarioResponse), errors: [404] }),
    async (req) =>
    (await humanEvaluations.listHumanScenarios(req.ctx, req.params.evaluation_id)).map(humanScenarioJson),
  );
  app.put<ScenarioParams>(
    '/human-evaluations/:evaluation_id/evaluation_scenario/:scenario_id/:evaluation_type',
    described({
      tag,
      summary: 'Judge a scenario (vote or score)',
      description: "`evaluation_type` must be the evaluation's. Each judge has one judgement per scenario; judging again replaces it.",
      params: z.object({ evaluation_id: z.string(), scenario_id: z.string() }).extend(evaluationTypeParam.shape),
      body: judgeScenarioInput,
      response: humanScenarioResponse,
      errors: [404],
      examples: { vote: { vote: '0192f0c1-0000-7000-8000-000000000002', judge: 'ana' } },
    }),
    async (req) => {
    // Faults of the path and of the body are listed together.
    const path = evaluationTypeParam.safeParse({ evaluation_type: req.params.evaluation_type }, { reportInput: true });
    const body = judgeScenarioInput.safeParse(req.body, { reportInput: true });
    const issues = [...(path.success ? [] : validationIssues(path.error, 'path')), ...(body.success ? [] : validationIssues(body.error, 'body'))];
    if (!path.success || !body.success) throw new ValidationError(issues);
    const { evaluation_type } = path.data;
    const input = body.data;
    return humanScenarioJson(
      await humanEvaluations.judgeScenario(req.ctx, req.params.evaluation_id, req.params.scenario_id, input, evaluation_type),
    );
  });
  app.get<Params>(
    '/human-evaluations/:evaluation_id/results',
    described({ tag, summary: 'Vote or score counts', response: humanResultsResponse, errors: [404] }),
    async (req) => {
    const facts = await evaluationFacts(req.ctx, req.params.evaluation_id);
    return facts.evaluationType === 'human_a_b_testing' ? { votes_data: votesData(facts) } : { results_data: resultsData(facts) };
  });
}
