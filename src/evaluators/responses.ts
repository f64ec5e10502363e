// What the evaluators routes answer, described for the OpenAPI document (docs/api.md); a test
// checks real answers against these.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';

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
