// REST routes of evaluators and evaluator configs (seed 4.7, SPEC §3, §5): validate, call the
// operation, shape the answer.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '../shared/errors.js';
import { described } from '../shared/http/openapi.js';
import { asObject } from '../shared/json.js';
import { parseInput } from '../shared/validation.js';
import { createEvaluatorConfigInput, listEvaluatorConfigsQuery, updateEvaluatorConfigFields } from './inputs.js';
import * as evaluators from './operations.js';
import type { Evaluator } from './registry.js';
import { evaluatorConfigResponse, evaluatorResponse } from './responses.js';

type ConfigRow = Awaited<ReturnType<typeof evaluators.getEvaluatorConfig>>;

/** An EvaluatorConfig exactly as seed 2.5 has it (evaluations embed it in their aggregated results). */
export function evaluatorConfigJson(config: ConfigRow) {
  return {
    id: config.id,
    name: config.name,
    project_id: config.projectId,
    evaluator_key: config.evaluatorKey,
    settings_values: asObject(config.settingsValues),
    created_at: config.createdAt,
    updated_at: config.updatedAt,
  };
}

function evaluatorJson(evaluator: Evaluator) {
  const { key, name, description, result_type, requires_llm_api_keys, settings_template } = evaluator;
  return { key, name, description, result_type, requires_llm_api_keys, settings_template };
}

type ConfigParams = { Params: { config_id: string } };

const tag = 'evaluators';

export function evaluatorRoutes(app: FastifyInstance): void {
  app.get('/evaluators', described({ tag, summary: 'List the built-in evaluators', response: z.array(evaluatorResponse) }), async () => evaluators.listEvaluators().map(evaluatorJson));

  app.post(
    '/evaluators/configs',
    described({
      tag,
      summary: 'Create an evaluator config',
      description: "`settings_values` are checked against the evaluator's `settings_template` (unknown settings are `extra_forbidden`).",
      body: createEvaluatorConfigInput,
      response: evaluatorConfigResponse,
      errors: [404, 409],
      examples: { exact: { app_id: '0192f0c1-0000-7000-8000-000000000001', name: 'exact', evaluator_key: 'auto_exact_match', settings_values: {} } },
    }),
    async (req) =>
    evaluatorConfigJson(await evaluators.createEvaluatorConfig(req.ctx, parseInput(createEvaluatorConfigInput, req.body, 'body'))),
  );
  app.get(
    '/evaluators/configs',
    described({ tag, summary: 'List evaluator configs', query: listEvaluatorConfigsQuery, response: z.array(evaluatorConfigResponse) }),
    async (req) =>
    (await evaluators.listEvaluatorConfigs(req.ctx, parseInput(listEvaluatorConfigsQuery, req.query, 'query'))).map(evaluatorConfigJson),
  );
  app.get<ConfigParams>(
    '/evaluators/configs/:config_id',
    described({ tag, summary: 'Read an evaluator config', response: evaluatorConfigResponse, errors: [404] }),
    async (req) =>
    evaluatorConfigJson(await evaluators.getEvaluatorConfig(req.ctx, req.params.config_id)),
  );
  app.put<ConfigParams>(
    '/evaluators/configs/:config_id',
    described({
      tag,
      summary: 'Rename a config or replace its settings',
      body: updateEvaluatorConfigFields,
      response: evaluatorConfigResponse,
      errors: [404, 409],
    }),
    async (req) =>
    evaluatorConfigJson(await evaluators.updateEvaluatorConfig(req.ctx, req.params.config_id, req.body)),
  );
  app.delete<ConfigParams>(
    '/evaluators/configs/:config_id',
    described({ tag, summary: 'Delete an evaluator config (409 while an evaluation uses it)', noContent: true, errors: [404, 409] }),
    async (req, reply) => {
    await evaluators.deleteEvaluatorConfig(req.ctx, req.params.config_id);
    return reply.code(204).send();
  });

  // Static `/evaluators/configs` wins over this parameter in Fastify's router.
  app.get<{ Params: { evaluator_key: string } }>(
    '/evaluators/:evaluator_key',
    described({ tag, summary: 'Read a built-in evaluator', response: evaluatorResponse, errors: [404] }),
    async (req) => {
    const evaluator = evaluators.getEvaluator(req.params.evaluator_key);
    if (!evaluator) throw new NotFoundError('Evaluator', req.params.evaluator_key);
    return evaluatorJson(evaluator);
  });
}
