// REST routes of human evaluations (SPEC §6; contract 4.5, 4.6 and the shapes 2.6, 2.7).
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../shared/errors.js';
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
import { humanEvaluationJson, humanScenarioJson } from './shapes.js';
import { evaluationFacts, resultsData, votesData } from './statistics.js';

type Params = { Params: { evaluation_id: string } };
type ScenarioParams = { Params: { evaluation_id: string; scenario_id: string; evaluation_type: string } };

export function humanEvaluationRoutes(app: FastifyInstance): void {
  app.post('/human-evaluations', async (req) =>
    humanEvaluationJson(await humanEvaluations.createHumanEvaluation(req.ctx, parseInput(createHumanEvaluationInput, req.body, 'body'))),
  );
  app.get('/human-evaluations', async (req) =>
    (await humanEvaluations.listHumanEvaluations(req.ctx, parseInput(listHumanEvaluationsQuery, req.query, 'query'))).map(humanEvaluationJson),
  );
  app.delete('/human-evaluations', async (req, reply) => {
    await humanEvaluations.deleteHumanEvaluations(req.ctx, parseInput(deleteHumanEvaluationsInput, req.body, 'body').evaluations_ids);
    return reply.code(204).send();
  });
  app.get<Params>('/human-evaluations/:evaluation_id', async (req) =>
    humanEvaluationJson(await humanEvaluations.getHumanEvaluation(req.ctx, req.params.evaluation_id)),
  );
  app.put<Params>('/human-evaluations/:evaluation_id', async (req) => {
    const { status } = parseInput(updateHumanEvaluationInput, req.body, 'body');
    return humanEvaluationJson(await humanEvaluations.updateHumanEvaluationStatus(req.ctx, req.params.evaluation_id, status));
  });
  app.delete<Params>('/human-evaluations/:evaluation_id', async (req, reply) => {
    await humanEvaluations.deleteHumanEvaluations(req.ctx, [req.params.evaluation_id]);
    return reply.code(204).send();
  });
  app.get<Params>('/human-evaluations/:evaluation_id/evaluation_scenarios', async (req) =>
    (await humanEvaluations.listHumanScenarios(req.ctx, req.params.evaluation_id)).map(humanScenarioJson),
  );
  app.put<ScenarioParams>('/human-evaluations/:evaluation_id/evaluation_scenario/:scenario_id/:evaluation_type', async (req) => {
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
  app.get<Params>('/human-evaluations/:evaluation_id/results', async (req) => {
    const facts = await evaluationFacts(req.ctx, req.params.evaluation_id);
    return facts.evaluationType === 'human_a_b_testing' ? { votes_data: votesData(facts) } : { results_data: resultsData(facts) };
  });
}
