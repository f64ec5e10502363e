// What the evaluations routes answer, described for the OpenAPI document (docs/api.md), and the
// functions that shape rows into it; a test checks real answers against these. The status as a
// Result and the cost/latency totals are shown alike by GraphQL: the totals are null while the run
// is under way (docs/evaluations.md#totals-and-aggregates) and an error Result when the finished
// run measured nothing.
import { z } from 'zod';
import type { Evaluation, EvaluationScenarioResult } from '../generated/prisma/client.js';
import { evaluatorConfigJson, evaluatorConfigResponse } from '../evaluators/responses.js';
import { errorResult, result, storedError, type Result } from '../evaluators/results.js';
import { timestamp } from '../shared/http/openapi.js';
import { isUnfinished } from '../evaluation-engine/states.js';
import { asArray } from '../shared/json.js';
import type { EvaluationWithConfigs, ScenarioWithResults } from './operations.js';

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

/** A run recorded from code (docs/experiments.md): the Evaluation with what only such runs have. */
export const externalRunResponse = evaluationResponse
  .extend({
    origin: z.string().describe('`external`: recorded from code; `assay`: run by Assay'),
    name: z.string().describe("The run's name, which its variant is named after"),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    progress: z.object({ total: z.int(), done: z.int(), errors: z.int() }),
  })
  .meta({ id: 'ExternalRun' });

export const addedCasesResponse = z.object({
  evaluation_id: z.string(),
  scenario_ids: z.array(z.string()).describe('The scenario of each case, in the order given'),
});

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
  case_differs: z
    .boolean()
    .describe('Whether the scenarios ran different versions of this case (the evaluations ran on different test set revisions, which changed it)'),
  variants: z.array(
    z.object({
      evaluation_id: z.string(),
      variant_id: z.string(),
      variant_name: z.string(),
      revision: z.string(),
      testset_revision: z.int().nullable().describe('The test set revision the evaluation ran on'),
      scenario: evaluationScenarioResponse.nullable(),
    }),
  ),
});

export function statusResult(evaluation: Pick<Evaluation, 'status' | 'statusError'>): Result {
  return result('status', evaluation.status, storedError(evaluation.statusError));
}

function total(evaluation: Pick<Evaluation, 'status'>, type: 'cost' | 'latency', value: number | null): Result | null {
  if (isUnfinished(evaluation.status)) return null;
  return value === null ? errorResult(`No ${type} was measured for this evaluation`) : result(type, value);
}

export function evaluationTotals(evaluation: Pick<Evaluation, 'status' | 'averageCost' | 'totalCost' | 'averageLatency'>) {
  return {
    average_cost: total(evaluation, 'cost', evaluation.averageCost),
    total_cost: total(evaluation, 'cost', evaluation.totalCost),
    average_latency: total(evaluation, 'latency', evaluation.averageLatency),
  };
}

export function scoreResult(row: Pick<EvaluationScenarioResult, 'type' | 'value' | 'error'>): Result {
  return result(row.type, row.value ?? null, storedError(row.error));
}

/** docs/contract.md 2.3. `configOrder` lists the evaluation's config ids in request order. */
export function scenarioJson(scenario: ScenarioWithResults, configOrder: string[]) {
  const rank = new Map(configOrder.map((id, index) => [id, index]));
  const results = [...scenario.results].sort((a, b) => (rank.get(a.evaluatorConfigId) ?? Infinity) - (rank.get(b.evaluatorConfigId) ?? Infinity));
  return {
    id: scenario.id,
    evaluation_id: scenario.evaluationId,
    inputs: asArray(scenario.inputs),
    outputs: [{ result: scenario.output, cost: scenario.cost, latency: scenario.latency }],
    correct_answers: asArray(scenario.correctAnswers),
    is_pinned: scenario.isPinned,
    note: scenario.note,
    trace_id: scenario.traceId,
    results: results.map((row) => ({ evaluator_config: row.evaluatorConfigId, result: scoreResult(row) })),
  };
}

type StoredAggregate = Result & { count: number; errors: number; stddev: number | null; ci_low: number | null; ci_high: number | null };

export function aggregatedResults(evaluation: EvaluationWithConfigs) {
  return evaluation.evaluators
    .filter((row) => row.aggregate !== null)
    .map((row) => {
      const { type, value, error } = row.aggregate as unknown as StoredAggregate;
      return { evaluator_config: evaluatorConfigJson(row.evaluatorConfig), result: { type, value, error } };
    });
}

/** docs/contract.md 2.4: one variant per evaluation, in the contract's arrays. */
export function evaluationJson(evaluation: EvaluationWithConfigs) {
  return {
    id: evaluation.id,
    app_id: evaluation.appId,
    project_id: evaluation.projectId,
    variant_ids: [evaluation.variantId],
    variant_names: [evaluation.variantName],
    variant_revision_ids: [evaluation.variantRevisionId],
    revisions: [String(evaluation.revision)],
    testset_id: evaluation.testsetId,
    testset_name: evaluation.testsetName,
    status: statusResult(evaluation),
    aggregated_results: aggregatedResults(evaluation),
    ...evaluationTotals(evaluation),
    created_at: evaluation.createdAt,
    updated_at: evaluation.updatedAt,
  };
}

export function configOrder(evaluation: EvaluationWithConfigs): string[] {
  return evaluation.evaluators.map((row) => row.evaluatorConfigId);
}

export function externalRunJson(evaluation: EvaluationWithConfigs) {
  return {
    ...evaluationJson(evaluation),
    origin: evaluation.origin,
    name: evaluation.variantName,
    description: evaluation.description,
    metadata: (evaluation.metadata as Record<string, unknown> | null) ?? null,
    progress: { total: evaluation.total, done: evaluation.done, errors: evaluation.errors },
  };
}
