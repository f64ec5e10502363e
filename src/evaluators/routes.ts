// REST routes of evaluators and evaluator configs (docs/contract.md 4.7, docs/evaluators.md):
// validate, call the operation, shape the answer (responses.ts).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '../shared/errors.js';
import { described } from '../shared/http/openapi.js';
import { restRoutes } from '../shared/http/route.js';
import { createEvaluatorConfigInput, listEvaluatorConfigsQuery, updateEvaluatorConfigFields } from './inputs.js';
import * as evaluators from './operations.js';
import { evaluatorConfigJson, evaluatorConfigResponse, evaluatorJson, evaluatorResponse } from './responses.js';

type ConfigParams = { Params: { config_id: string } };

const tag = 'evaluators';

export function evaluatorRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.get('/evaluators', { tag, summary: 'List the built-in evaluators', response: z.array(evaluatorResponse) }, () =>
    evaluators.listEvaluators().map(evaluatorJson),
  );

  rest.post(
    '/evaluators/configs',
    {
      tag,
      summary: 'Create an evaluator config',
      description: "`settings_values` are checked against the evaluator's `settings_template` (unknown settings are `extra_forbidden`).",
      body: createEvaluatorConfigInput,
      response: evaluatorConfigResponse,
      errors: [404, 409],
      examples: { exact: { app_id: '0192f0c1-0000-7000-8000-000000000001', name: 'exact', evaluator_key: 'auto_exact_match', settings_values: {} } },
    },
    async (req, { body }) => evaluatorConfigJson(await evaluators.createEvaluatorConfig(req.ctx, body)),
  );
  rest.get(
    '/evaluators/configs',
    { tag, summary: 'List evaluator configs', query: listEvaluatorConfigsQuery, response: z.array(evaluatorConfigResponse) },
    async (req, { query }) => (await evaluators.listEvaluatorConfigs(req.ctx, query)).map(evaluatorConfigJson),
  );
  rest.get(
    '/evaluators/configs/:config_id',
    { tag, summary: 'Read an evaluator config', response: evaluatorConfigResponse, errors: [404] },
    async (req, { params }) => evaluatorConfigJson(await evaluators.getEvaluatorConfig(req.ctx, params.config_id)),
  );
  // The one REST route that validates its body after reading: the settings are checked against the
  // stored config's evaluator, so an unknown config is a 404 whatever the body. The validating
  // schema, updateEvaluatorConfigInput(key), extends the described updateEvaluatorConfigFields.
  app.put<ConfigParams>(
    '/evaluators/configs/:config_id',
    described({
      tag,
      summary: 'Rename a config or replace its settings',
      body: updateEvaluatorConfigFields,
      response: evaluatorConfigResponse,
      errors: [404, 409],
    }),
    async (req) => evaluatorConfigJson(await evaluators.updateEvaluatorConfig(req.ctx, req.params.config_id, req.body)),
  );
  rest.delete(
    '/evaluators/configs/:config_id',
    { tag, summary: 'Delete an evaluator config (409 while an evaluation uses it)', noContent: true, errors: [404, 409] },
    (req, { params }) => evaluators.deleteEvaluatorConfig(req.ctx, params.config_id),
  );

  // Static `/evaluators/configs` wins over this parameter in Fastify's router.
  rest.get('/evaluators/:evaluator_key', { tag, summary: 'Read a built-in evaluator', response: evaluatorResponse, errors: [404] }, (_req, { params }) => {
    const evaluator = evaluators.getEvaluator(params.evaluator_key);
    if (!evaluator) throw new NotFoundError('Evaluator', params.evaluator_key);
    return evaluatorJson(evaluator);
  });
}
