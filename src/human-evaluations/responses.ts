// What the human evaluation routes answer, described for the OpenAPI document (docs/api.md), and
// the functions that shape rows into the contract's HumanEvaluation (2.6) and
// HumanEvaluationScenario (2.7); a test checks real answers against these.
import { z } from 'zod';
import type { HumanEvaluation, HumanEvaluationScenario } from '../generated/prisma/client.js';
import { timestamp } from '../shared/http/openapi.js';
import { asArray } from '../shared/json.js';
import { evaluationStatuses, humanEvaluationTypes } from './inputs.js';
import { storedOutputs } from './operations.js';

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

export function humanEvaluationJson(evaluation: HumanEvaluation) {
  return {
    id: evaluation.id,
    app_id: evaluation.appId,
    project_id: evaluation.projectId,
    evaluation_type: evaluation.evaluationType,
    variant_ids: asArray<string>(evaluation.variantIds),
    variant_names: asArray<string>(evaluation.variantNames),
    variants_revision_ids: asArray<string>(evaluation.variantRevisionIds),
    revisions: asArray(evaluation.revisions).map(String),
    testset_id: evaluation.testsetId,
    testset_name: evaluation.testsetName,
    status: evaluation.status,
    created_at: evaluation.createdAt.toISOString(),
    updated_at: evaluation.updatedAt.toISOString(),
  };
}

export function humanScenarioJson(scenario: HumanEvaluationScenario) {
  return {
    id: scenario.id,
    evaluation_id: scenario.humanEvaluationId,
    inputs: asArray(scenario.inputs),
    // The contract's two fields; the error, cost, latency and trace of each call are GraphQL's.
    outputs: storedOutputs(scenario).map((output) => ({ variant_id: output.variant_id, variant_output: output.variant_output })),
    vote: scenario.vote,
    score: scenario.score,
    correct_answer: scenario.correctAnswer,
    is_pinned: scenario.isPinned,
    note: scenario.note,
  };
}
