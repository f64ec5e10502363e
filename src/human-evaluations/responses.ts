// What the human evaluation routes answer, described for the OpenAPI document (docs/api.md); a
// test checks real answers against these.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import { evaluationStatuses, humanEvaluationTypes } from './inputs.js';

export const humanEvaluationResponse = z
  .object({
    id: z.string(),
    app_id: z.string(),
    project_id: z.string(),
    evaluation_type: z.enum(humanEvaluationTypes),
    variant_ids: z.array(z.string()),
    variant_names: z.array(z.string()),
    variants_revision_ids: z.array(z.string()),
    revisions: z.array(z.string()),
    testset_id: z.string(),
    testset_name: z.string(),
    status: z.enum(evaluationStatuses),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'HumanEvaluation' });

export const humanScenarioResponse = z
  .object({
    id: z.string(),
    evaluation_id: z.string(),
    inputs: z.array(z.object({ input_name: z.string(), input_value: z.string() })),
    outputs: z.array(z.object({ variant_id: z.string(), variant_output: z.string() })),
    vote: z.string().nullable(),
    score: z.int().nullable(),
    correct_answer: z.string().nullable(),
    is_pinned: z.boolean(),
    note: z.string(),
  })
  .meta({ id: 'HumanEvaluationScenario' });

const votes = z.object({ number_of_votes: z.int(), percentage: z.number() });

export const humanResultsResponse = z.union([
  z
    .object({
      votes_data: z.object({
        variants: z.array(z.string()),
        variant_names: z.array(z.string()),
        nb_of_rows: z.int(),
        positive_votes: votes,
        flag_votes: votes,
        variants_votes_data: z.record(z.string(), votes),
      }),
    })
    .describe('human_a_b_testing'),
  z.object({ results_data: z.record(z.string(), z.int()).describe('score → judgements') }).describe('single_model_test'),
]);
