// Derived parts of an evaluation that REST and GraphQL show alike: the status as a Result and
// the cost/latency totals, which are null while the run is under way
// (docs/evaluations.md#totals-and-aggregates) and an error Result when the finished run measured
// nothing.
import type { Evaluation, EvaluationScenarioResult } from '../generated/prisma/client.js';
import { isUnfinished } from '../evaluation-engine/states.js';
import { asArray } from '../shared/json.js';
import { errorResult, result, storedError, type Result } from '../evaluators/results.js';
import type { ScenarioWithResults } from './operations.js';

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
