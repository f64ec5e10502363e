// What the evaluations routes answer, described for the OpenAPI document (docs/api.md); a test
// checks real answers against these.
import { z } from 'zod';
import { evaluatorConfigResponse } from '../evaluators/responses.js';
import { timestamp } from '../shared/http/openapi.js';

export const resultResponse = z
  .object({
    type: z.string().describe('`status`, `cost`, `latency`, `error`, or the kind of a score (`bool`, `number`, …)'),
    value: z.unknown(),
    error: z.object({ message: z.string(), stacktrace: z.string().nullable() }).nullable(),
  })
  .meta({ id: 'Result' });

const aggregatedResult = z.object({ evaluator_config: evaluatorConfigResponse, result: resultResponse });

export const evaluationResponse = z
  .object({
    id: z.string(),
    app_id: z.string(),
    project_id: z.string(),
    variant_ids: z.array(z.string()),
    variant_names: z.array(z.string()),
    variant_revision_ids: z.array(z.string()),
    revisions: z.array(z.string()),
    testset_id: z.string().nullable(),
    testset_name: z.string(),
    status: resultResponse,
    aggregated_results: z.array(aggregatedResult),
    average_cost: resultResponse.nullable().describe('null while the run is under way'),
    total_cost: resultResponse.nullable(),
    average_latency: resultResponse.nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'Evaluation' });

export const evaluationStatusResponse = z.object({
  status: resultResponse,
  progress: z.object({ total: z.int(), done: z.int(), errors: z.int() }),
});

export const evaluationResultsResponse = z.object({ id: z.string(), results: z.array(aggregatedResult) });

export const evaluatorCostResponse = z.object({
  evaluation_id: z.string(),
  total_cost: z.number().nullable(),
  calls: z.int(),
  evaluators: z.array(z.object({ evaluator_config_id: z.string(), cost: z.number().nullable(), calls: z.int() })),
});

export const evaluationScenarioResponse = z
  .object({
    id: z.string(),
    evaluation_id: z.string(),
    inputs: z.array(z.object({ name: z.string(), type: z.string(), value: z.unknown() })),
    outputs: z.array(z.object({ result: resultResponse, cost: z.number().nullable(), latency: z.number().nullable() })),
    correct_answers: z.array(z.object({ key: z.string(), value: z.unknown() })),
    is_pinned: z.boolean(),
    note: z.string(),
    trace_id: z.string().nullable().describe("The trace of the case's calls (GET /observability/traces/{trace_id}); null when none was recorded"),
    results: z.array(z.object({ evaluator_config: z.string(), result: resultResponse })),
  })
  .meta({ id: 'EvaluationScenario' });

export const comparisonRowResponse = z.object({
  position: z.int(),
  inputs: evaluationScenarioResponse.shape.inputs,
  correct_answers: evaluationScenarioResponse.shape.correct_answers,
  variants: z.array(
    z.object({
      evaluation_id: z.string(),
      variant_id: z.string(),
      variant_name: z.string(),
      revision: z.string(),
      scenario: evaluationScenarioResponse.nullable(),
    }),
  ),
});
