// What the evaluators routes answer, described for the OpenAPI document (docs/api.md), and the
// functions that shape rows into it (evaluations embed a config's); a test checks real answers
// against these.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import { asObject } from '../shared/json.js';
import type * as evaluators from './operations.js';
import type { Evaluator } from './evaluator-types.js';

export const evaluatorResponse = z
  .object({
    key: z.string(),
    name: z.string(),
    description: z.string(),
    result_type: z.string(),
    requires_llm_api_keys: z.boolean(),
    settings_template: z.record(z.string(), z.record(z.string(), z.unknown())).describe('Each setting: its type, default, description, …'),
  })
  .meta({ id: 'Evaluator' });

export const evaluatorConfigResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    project_id: z.string(),
    evaluator_key: z.string(),
    settings_values: z.record(z.string(), z.unknown()).describe('With every default filled in'),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'EvaluatorConfig' });

type ConfigRow = Awaited<ReturnType<typeof evaluators.getEvaluatorConfig>>;

/** An EvaluatorConfig exactly as docs/contract.md 2.5 has it (evaluations embed it in their aggregated results). */
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

export function evaluatorJson(evaluator: Evaluator) {
  const { key, name, description, result_type, requires_llm_api_keys, settings_template } = evaluator;
  return { key, name, description, result_type, requires_llm_api_keys, settings_template };
}
