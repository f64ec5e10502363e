// The statistics of human evaluations on examples worked by hand or taken from the literature.
import { describe, expect, it } from 'vitest';
import type { EvaluationFacts, JudgementRow } from './operations.js';
import { agreement, binomialTestHalf, cohen, resultsData, statistics, votesData } from './statistics.js';

function facts(type: EvaluationFacts['evaluationType'], rows: Omit<JudgementRow, 'position' | 'displayOrder'>[], scenarios?: number): EvaluationFacts {
  return {
    evaluationType: type,
    variantIds: type === 'human_a_b_testing' ? ['a', 'b'] : ['a'],
    variantNames: type === 'human_a_b_testing' ? ['A', 'B'] : ['A'],
    scenarios: scenarios ?? new Set(rows.map((row) => row.scenarioId)).size,
    rows: rows.map((row, position) => ({ ...row, position, displayOrder: ['a', 'b'] })),
  };
}

describe("Fleiss' kappa", () => {
  it('gives 0.210 on the classic example (10 subjects, 14 raters, 5 categories)', () => {
    // Fleiss (1971) as reproduced on Wikipedia: P̄ = 0.378, P̄e = 0.213, κ = 0.210.
    const table = [
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ];
    const rows = table.flatMap((counts, subject) => {
      const verdicts = counts.flatMap((count, category) => Array.from({ length: count }, () => String(category * 25)));
      return verdicts.map((verdict, judge) => ({ scenarioId: `s${subject}`, judge: `j${judge}`, vote: null, score: Number(verdict) }));
    });
    const result = agreement(facts('single_model_test', rows));
    expect(result.scenarios).toBe(10);
    expect(result.judgements).toBe(140);
    expect(result.observed_agreement).toBeCloseTo(0.378, 3);
    expect(result.expected_agreement).toBeCloseTo(0.213, 3);
    expect(result.fleiss_kappa).toBeCloseTo(0.21, 2);
    expect(result.pairs).toHaveLength(91);
  });

  it('is undefined when every verdict is the same category, and leaves out scenarios with one judge', () => {
    const result = agreement(
      facts('human_a_b_testing', [
        { scenarioId: 's1', judge: 'x', vote: 'a', score: null },
        { scenarioId: 's1', judge: 'y', vote: 'a', score: null },
        { scenarioId: 's2', judge: 'x', vote: 'b', score: null },
        { scenarioId: 's3', judge: null, vote: 'b', score: null },
      ]),
    );
    expect(result).toEqual({
      scenarios: 1,
      judgements: 2,
      observed_agreement: 1,
      expected_agreement: 1,
      fleiss_kappa: null,
      pairs: [{ judge_a: 'x', judge_b: 'y', scenarios: 1, observed_agreement: 1, cohen_kappa: null }],
    });
  });
});

describe("Cohen's kappa", () => {
  it('follows (p_o − p_e) / (1 − p_e)', () => {
    // 50 items: both yes 20, x yes / y no 5, x no / y yes 10, both no 15 → p_o = 0.7,
    // p_e = 0.5 · 0.6 + 0.5 · 0.4 = 0.5, κ = 0.4.
    const verdicts: [string, string][] = [
      ...Array.from({ length: 20 }, (): [string, string] => ['yes', 'yes']),
      ...Array.from({ length: 5 }, (): [string, string] => ['yes', 'no']),
      ...Array.from({ length: 10 }, (): [string, string] => ['no', 'yes']),
      ...Array.from({ length: 15 }, (): [string, string] => ['no', 'no']),
    ];
    const pair = cohen('x', 'y', verdicts);
    expect(pair.observed_agreement).toBeCloseTo(0.7, 12);
    expect(pair.cohen_kappa).toBeCloseTo(0.4, 12);
  });
});

describe('binomial test of position bias', () => {
  it('gives exact two-sided p-values', () => {
    // P(X ≤ 2) for n = 10 is (1 + 10 + 45) / 1024; both tails double it.
    expect(binomialTestHalf(2, 10)).toBe(112 / 1024);
    expect(binomialTestHalf(8, 10)).toBe(112 / 1024);
    expect(binomialTestHalf(5, 10)).toBe(1);
    expect(binomialTestHalf(0, 1)).toBe(1);
    expect(binomialTestHalf(0, 0)).toBeNull();
    // Past the direct range, in log space: 1000 of 2000 is the centre; 0 of 2000 is vanishingly rare.
    expect(binomialTestHalf(1000, 2000)).toBe(1);
    expect(binomialTestHalf(0, 2000)).toBeLessThan(1e-300);
  });
});

describe('results', () => {
  it('counts a scenario no one judged as a row without a vote, and one vote stored without a judge', () => {
    const data = facts(
      'human_a_b_testing',
      [
        { scenarioId: 's1', judge: 'x', vote: 'a', score: null },
        { scenarioId: 's1', judge: 'y', vote: '0', score: null },
        { scenarioId: 's2', judge: null, vote: 'b', score: null },
        { scenarioId: 's3', judge: null, vote: null, score: null },
      ],
      3,
    );
    // 4 rows: a, "0", b and nothing → 25% each for a, b and flags; none positive.
    expect(votesData(data)).toEqual({
      variants: ['a', 'b'],
      variant_names: ['A', 'B'],
      nb_of_rows: 4,
      positive_votes: { number_of_votes: 0, percentage: 0 },
      flag_votes: { number_of_votes: 1, percentage: 25 },
      variants_votes_data: { a: { number_of_votes: 1, percentage: 25 }, b: { number_of_votes: 1, percentage: 25 } },
    });
    const stats = statistics(data);
    expect(stats).toMatchObject({ scenarios: 3, judged_scenarios: 2, judgements: 3, judges: ['x', 'y'], flag_votes: 1 });
    expect(stats.variants.map((v) => [v.wins, v.losses, v.ties, v.win_rate])).toEqual([
      [1, 1, 1, 0.5],
      [1, 1, 1, 0.5],
    ]);
  });

  it('counts single model scores in ascending order of score, leaving out rows without one', () => {
    const data = facts('single_model_test', [
      { scenarioId: 's1', judge: 'x', vote: null, score: 100 },
      { scenarioId: 's1', judge: 'y', vote: null, score: 5 },
      { scenarioId: 's2', judge: null, vote: null, score: null },
      { scenarioId: 's3', judge: 'x', vote: null, score: 100 },
    ]);
    const results = resultsData(data);
    expect(results).toEqual({ '5': 1, '100': 2 });
    expect(Object.keys(results)).toEqual(['5', '100']);
  });
});
