// A scenario's results as numbers and as scores (docs/scores.md#evaluations), for the runner's
// scenarios and for those of runs recorded from code (external.ts) alike.
import type { Result } from '../evaluators/results.js';
import type { EvaluatorConfig } from '../generated/prisma/client.js';
import type { ScoreInput } from '../scores/inputs.js';

/** The number an aggregate averages: booleans as 1/0, numbers as they are, anything else none. */
export function numericScore(score: Result): number | null {
  if (score.type === 'bool' && typeof score.value === 'boolean') return score.value ? 1 : 0;
  if (typeof score.value === 'number' && Number.isFinite(score.value) && score.type !== 'error') return score.value;
  return null;
}

/**
 * An evaluator's result on a scenario as the scenario's score: named by its config, of source
 * "evaluation", with an id made of the scenario's and the config's so a resumed batch (or a result
 * reported again) writes it once. An error or a value that is no number makes none.
 */
export function scenarioScore(
  evaluationId: string,
  scenarioId: string,
  config: Pick<EvaluatorConfig, 'id' | 'name' | 'evaluatorKey'>,
  score: Result,
  comment?: string | null,
): ScoreInput[] {
  const value = numericScore(score);
  if (value === null) return [];
  return [
    {
      id: `${scenarioId}:${config.id}`,
      target: 'scenario',
      scenario_id: scenarioId,
      name: config.name,
      data_type: score.type === 'bool' ? 'BOOLEAN' : 'NUMERIC',
      value,
      source: 'evaluation',
      ...(comment ? { comment } : {}),
      metadata: { evaluation_id: evaluationId, evaluator_config_id: config.id, evaluator_key: config.evaluatorKey },
    },
  ];
}
