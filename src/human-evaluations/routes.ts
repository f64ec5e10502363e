// REST reads of human evaluations (contract 4.5, 4.6).
import type { FastifyInstance } from 'fastify';
import * as humanEvaluations from './operations.js';
import { humanEvaluationJson, humanScenarioJson } from './shapes.js';

type Params = { Params: { evaluation_id: string } };

export function humanEvaluationRoutes(app: FastifyInstance): void {
  app.get<Params>('/human-evaluations/:evaluation_id', async (req) =>
    humanEvaluationJson(await humanEvaluations.getHumanEvaluation(req.ctx, req.params.evaluation_id)),
  );
  app.get<Params>('/human-evaluations/:evaluation_id/evaluation_scenarios', async (req) =>
    (await humanEvaluations.listHumanScenarios(req.ctx, req.params.evaluation_id)).map(humanScenarioJson),
  );
}
