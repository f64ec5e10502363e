// The contract's HumanEvaluation (2.6) and HumanEvaluationScenario (2.7).
import type { HumanEvaluation, HumanEvaluationScenario } from '../generated/prisma/client.js';
import { asArray } from '../shared/json.js';
import { storedOutputs } from './operations.js';

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
