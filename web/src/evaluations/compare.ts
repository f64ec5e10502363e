// Comparing evaluations case by case (docs/ui.md#comparing-evaluations): the first evaluation is
// the baseline; a case regressed when any evaluator scores it lower in another evaluation (or an
// error where the baseline had a score), improved when some score rose and none fell. Regressions
// come first, then improvements, then cases whose outputs differ, then the rest; the larger change
// first within a group, then test set order.
import { resultText, scoreOf, type ResultValue } from './results.ts';

export interface ComparedScenario {
  readonly outputs: readonly { readonly result: ResultValue }[];
  readonly results: readonly { readonly evaluatorConfigId: string; readonly result: ResultValue }[];
}

export interface ComparedRow<S extends ComparedScenario = ComparedScenario> {
  readonly position: number;
  readonly scenarios: readonly (S | null | undefined)[];
}

export type Change = 'regression' | 'improvement' | 'changed' | 'same';

export const changeOrder: readonly Change[] = ['regression', 'improvement', 'changed', 'same'];

export interface Classified<R> {
  row: R;
  change: Change;
  /** Per evaluator config, per compared evaluation (the baseline's 0): how the score moved; null where unscored. */
  deltas: Map<string, (number | null)[]>;
  /** Sum of the absolute score changes, the order within a group. */
  magnitude: number;
}

/** The text of a scenario's output ("" when the evaluation has no scenario for the case). */
export function outputOf(scenario: ComparedScenario | null | undefined): string {
  return resultText(scenario?.outputs[0]?.result);
}

function scoreIn(scenario: ComparedScenario | null | undefined, configId: string): { score: number | null; present: boolean } {
  const result = scenario?.results.find((candidate) => candidate.evaluatorConfigId === configId)?.result;
  return { score: scoreOf(result), present: result !== undefined };
}

export function classify<R extends ComparedRow>(row: R, configIds: readonly string[]): Classified<R> {
  const [base, ...others] = row.scenarios;
  let regressed = false;
  let improved = false;
  let magnitude = 0;
  const deltas = new Map<string, (number | null)[]>();
  for (const configId of configIds) {
    const before = scoreIn(base, configId);
    const moves: (number | null)[] = [0];
    for (const other of others) {
      const after = scoreIn(other, configId);
      if (!before.present || !after.present) {
        moves.push(null);
        continue;
      }
      if (before.score !== null && after.score === null) {
        regressed = true;
        magnitude += 1;
        moves.push(null);
      } else if (before.score === null && after.score !== null) {
        improved = true;
        magnitude += 1;
        moves.push(null);
      } else if (before.score !== null && after.score !== null) {
        const delta = after.score - before.score;
        if (delta < 0) regressed = true;
        if (delta > 0) improved = true;
        magnitude += Math.abs(delta);
        moves.push(delta);
      } else moves.push(null);
    }
    deltas.set(configId, moves);
  }
  const baseOutput = outputOf(base);
  const outputsDiffer = row.scenarios.some((scenario) => scenario == null) || others.some((other) => outputOf(other) !== baseOutput);
  const change: Change = regressed ? 'regression' : improved ? 'improvement' : outputsDiffer ? 'changed' : 'same';
  return { row, change, deltas, magnitude };
}

/** The rows classified and in reading order: regressions, improvements, changed outputs, the same. */
export function orderComparison<R extends ComparedRow>(rows: readonly R[], configIds: readonly string[]): Classified<R>[] {
  return rows
    .map((row) => classify(row, configIds))
    .sort((a, b) => changeOrder.indexOf(a.change) - changeOrder.indexOf(b.change) || b.magnitude - a.magnitude || a.row.position - b.row.position);
}

/** How many rows of each kind. */
export function countChanges(classified: readonly Classified<unknown>[]): Record<Change, number> {
  const counts: Record<Change, number> = { regression: 0, improvement: 0, changed: 0, same: 0 };
  for (const item of classified) counts[item.change] += 1;
  return counts;
}
