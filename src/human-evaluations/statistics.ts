// The numbers over a human evaluation's judgements (docs/human-evaluations.md): the contract's
// results (votes_data for A/B tests, results_data for single model tests) and, for GraphQL, win
// rates with 95% confidence intervals, the position bias of A/B judging and the agreement between
// judges, from the rows `evaluationFacts` (operations.ts) reads.
import { aggregate } from '../shared/statistics.js';
import type { EvaluationFacts, JudgementRow } from './operations.js';

/** Python's round(x, 2) for the percentages Agenta reports. */
function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function votes(count: number, of: number) {
  return { number_of_votes: count, percentage: of > 0 ? round2((count / of) * 100) : 0 };
}

/** GET /human-evaluations/{id}/results for an A/B test: counts of "1", "0" and each variant, as shares of the rows. */
export function votesData(facts: EvaluationFacts) {
  const rows = facts.rows.length;
  const count = (vote: string) => facts.rows.filter((row) => row.vote === vote).length;
  return {
    variants: facts.variantIds,
    variant_names: facts.variantNames,
    nb_of_rows: rows,
    positive_votes: votes(count('1'), rows),
    flag_votes: votes(count('0'), rows),
    variants_votes_data: Object.fromEntries(facts.variantIds.map((id) => [id, votes(count(id), rows)])),
  };
}

/** GET /human-evaluations/{id}/results for a single model test: how many judgements gave each score. */
export function resultsData(facts: EvaluationFacts): Record<string, number> {
  const counts = new Map<number, number>();
  for (const row of facts.rows) if (row.score !== null) counts.set(row.score, (counts.get(row.score) ?? 0) + 1);
  return Object.fromEntries([...counts.entries()].sort((a, b) => a[0] - b[0]).map(([score, n]) => [String(score), n]));
}

export interface Interval {
  low: number;
  high: number;
}

/** Wilson's 95% interval of a proportion `successes / n`; null when n is 0. */
export function wilson(successes: number, n: number): Interval | null {
  const stats = aggregate(n, 0, successes, successes, true);
  return stats.ciLow === null || stats.ciHigh === null ? null : { low: stats.ciLow, high: stats.ciHigh };
}

/** Two-sided exact binomial test of `k` successes in `n` trials against p = 0.5. */
export function binomialTestHalf(k: number, n: number): number | null {
  if (n === 0) return null;
  const tail = Math.min(k, n - k);
  let p = 0;
  if (n <= 1000) {
    // P(X = 0) = 2^-n exactly, then P(X = i + 1) = P(X = i) · (n − i) / (i + 1).
    let pmf = 2 ** -n;
    for (let i = 0; i <= tail; i += 1) {
      p += pmf;
      pmf = (pmf * (n - i)) / (i + 1);
    }
  } else {
    // In log space, where 2^-n would underflow.
    const logChoose = (i: number) => logFactorial(n) - logFactorial(i) - logFactorial(n - i);
    for (let i = 0; i <= tail; i += 1) p += Math.exp(logChoose(i) - n * Math.LN2);
  }
  // The distribution is symmetric: both tails, or everything when k is the centre.
  return Math.min(1, 2 * p);
}

const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i += 1) logFactorials[i] = logFactorials[i - 1] + Math.log(i);
  return logFactorials[n];
}

export interface VariantStatistics {
  variant_id: string;
  variant_name: string;
  /** A/B: judgements preferring this variant, the other one, or neither ("1" or "0"). */
  wins: number;
  losses: number;
  ties: number;
  /** A/B: wins / (wins + losses), ties left out; null without a decisive judgement. */
  win_rate: number | null;
  win_rate_interval: Interval | null;
  /** Single model: the scores given to this variant's outputs. */
  scores: number;
  mean_score: number | null;
  score_stddev: number | null;
  score_interval: Interval | null;
}

export interface PositionBias {
  /** Judgements that preferred one output. */
  decisive: number;
  /** Of those, the ones that preferred the output shown on the left. */
  left_wins: number;
  right_wins: number;
  /** left_wins / decisive: 0.5 when the side does not matter. */
  left_rate: number | null;
  left_rate_interval: Interval | null;
  /** Two-sided exact binomial test of left_rate = 0.5: small values mean the side swayed judges. */
  p_value: number | null;
}

export interface JudgePair {
  judge_a: string;
  judge_b: string;
  /** Scenarios both judged. */
  scenarios: number;
  /** Share of those where they gave the same verdict. */
  observed_agreement: number;
  /** Cohen's kappa; null when chance agreement is 1 (both always gave one same verdict). */
  cohen_kappa: number | null;
}

export interface Agreement {
  /** Scenarios with verdicts from at least two judges. */
  scenarios: number;
  judgements: number;
  /** Mean share of agreeing judge pairs per scenario (Fleiss' P̄). */
  observed_agreement: number | null;
  /** Agreement expected by chance from the verdicts' overall shares (Fleiss' P̄e). */
  expected_agreement: number | null;
  /** Fleiss' kappa (with a varying number of judges per scenario); null when undefined. */
  fleiss_kappa: number | null;
  pairs: JudgePair[];
}

export interface HumanStatistics {
  scenarios: number;
  /** Scenarios with at least one vote (A/B) or score (single model). */
  judged_scenarios: number;
  /** Verdicts counted: rows with a vote (A/B) or a score (single model). */
  judgements: number;
  judges: string[];
  positive_votes: number;
  flag_votes: number;
  variants: VariantStatistics[];
  position_bias: PositionBias | null;
  agreement: Agreement;
}

/** A row's verdict: its vote in an A/B test, its score (as text) in a single model test. */
function verdictOf(facts: EvaluationFacts, row: JudgementRow): string | null {
  if (facts.evaluationType === 'human_a_b_testing') return row.vote;
  return row.score === null ? null : String(row.score);
}

export function statistics(facts: EvaluationFacts): HumanStatistics {
  const judged = facts.rows.filter((row) => verdictOf(facts, row) !== null);
  const ab = facts.evaluationType === 'human_a_b_testing';
  const variants = facts.variantIds.map((variantId, index): VariantStatistics => {
    const wins = ab ? judged.filter((row) => row.vote === variantId).length : 0;
    const losses = ab ? judged.filter((row) => facts.variantIds.includes(row.vote!) && row.vote !== variantId).length : 0;
    const ties = ab ? judged.filter((row) => row.vote === '1' || row.vote === '0').length : 0;
    const scores = ab ? [] : judged.map((row) => row.score!);
    const sum = scores.reduce((a, b) => a + b, 0);
    const scoreStats = aggregate(
      scores.length,
      0,
      sum,
      scores.reduce((a, b) => a + b * b, 0),
      false,
    );
    return {
      variant_id: variantId,
      variant_name: facts.variantNames[index] ?? variantId,
      wins,
      losses,
      ties,
      win_rate: wins + losses > 0 ? wins / (wins + losses) : null,
      win_rate_interval: wilson(wins, wins + losses),
      scores: scores.length,
      mean_score: scoreStats.mean,
      score_stddev: scoreStats.stddev,
      score_interval: scoreStats.ciLow === null || scoreStats.ciHigh === null ? null : { low: scoreStats.ciLow, high: scoreStats.ciHigh },
    };
  });
  return {
    scenarios: facts.scenarios,
    judged_scenarios: new Set(judged.map((row) => row.scenarioId)).size,
    judgements: judged.length,
    judges: [...new Set(facts.rows.flatMap((row) => (row.judge === null ? [] : [row.judge])))].sort(),
    positive_votes: ab ? judged.filter((row) => row.vote === '1').length : 0,
    flag_votes: ab ? judged.filter((row) => row.vote === '0').length : 0,
    variants,
    position_bias: ab ? positionBias(facts) : null,
    agreement: agreement(facts),
  };
}

function positionBias(facts: EvaluationFacts): PositionBias {
  let left = 0;
  let right = 0;
  for (const row of facts.rows) {
    if (row.vote === null || !facts.variantIds.includes(row.vote) || row.displayOrder.length !== 2) continue;
    if (row.displayOrder[0] === row.vote) left += 1;
    else if (row.displayOrder[1] === row.vote) right += 1;
  }
  const decisive = left + right;
  return {
    decisive,
    left_wins: left,
    right_wins: right,
    left_rate: decisive > 0 ? left / decisive : null,
    left_rate_interval: wilson(left, decisive),
    p_value: binomialTestHalf(left, decisive),
  };
}

/**
 * Agreement between judges on the scenarios two or more of them judged, verdicts taken as
 * categories (an A/B vote; a single model score as its value). Fleiss' kappa over all judges, in
 * the form that allows a different number of judges per scenario:
 *   P_i = Σ_c n_ic (n_ic − 1) / (n_i (n_i − 1)),  P̄ = mean P_i,
 *   p_c = Σ_i n_ic / Σ_i n_i,  P̄e = Σ_c p_c²,  κ = (P̄ − P̄e) / (1 − P̄e);
 * and Cohen's kappa for each pair of judges over the scenarios both judged.
 */
export function agreement(facts: EvaluationFacts): Agreement {
  const byScenario = new Map<string, Map<string, string>>();
  for (const row of facts.rows) {
    const verdict = verdictOf(facts, row);
    if (row.judge === null || verdict === null) continue;
    const verdicts = byScenario.get(row.scenarioId) ?? new Map<string, string>();
    verdicts.set(row.judge, verdict);
    byScenario.set(row.scenarioId, verdicts);
  }
  return agreementOf(byScenario);
}

/**
 * The agreement of judges' verdicts given item by item (item → judge → verdict), as `agreement`
 * computes it; annotation queues' agreement per score name reads its scores into this shape.
 */
export function agreementOf(byScenario: ReadonlyMap<string, ReadonlyMap<string, string>>): Agreement {
  const items = [...byScenario.values()].filter((verdicts) => verdicts.size >= 2);
  const judgements = items.reduce((n, verdicts) => n + verdicts.size, 0);
  let observed: number | null = null;
  let expected: number | null = null;
  let fleiss: number | null = null;
  if (items.length > 0) {
    const totals = new Map<string, number>();
    let sumP = 0;
    for (const verdicts of items) {
      const counts = new Map<string, number>();
      for (const verdict of verdicts.values()) counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
      const n = verdicts.size;
      let pairs = 0;
      for (const [category, c] of counts) {
        pairs += c * (c - 1);
        totals.set(category, (totals.get(category) ?? 0) + c);
      }
      sumP += pairs / (n * (n - 1));
    }
    observed = sumP / items.length;
    expected = [...totals.values()].reduce((sum, c) => sum + (c / judgements) ** 2, 0);
    fleiss = expected < 1 - 1e-12 ? (observed - expected) / (1 - expected) : null;
  }

  const judges = [...new Set([...byScenario.values()].flatMap((verdicts) => [...verdicts.keys()]))].sort();
  const pairs: JudgePair[] = [];
  for (let a = 0; a < judges.length; a += 1) {
    for (let b = a + 1; b < judges.length; b += 1) {
      const both = [...byScenario.values()].filter((verdicts) => verdicts.has(judges[a]) && verdicts.has(judges[b]));
      if (both.length === 0) continue;
      pairs.push(
        cohen(
          judges[a],
          judges[b],
          both.map((verdicts) => [verdicts.get(judges[a])!, verdicts.get(judges[b])!]),
        ),
      );
    }
  }
  return { scenarios: items.length, judgements, observed_agreement: observed, expected_agreement: expected, fleiss_kappa: fleiss, pairs };
}

/** Cohen's kappa of two judges' verdicts on the same scenarios: κ = (p_o − p_e) / (1 − p_e). */
export function cohen(judgeA: string, judgeB: string, verdicts: [string, string][]): JudgePair {
  const n = verdicts.length;
  const agree = verdicts.filter(([a, b]) => a === b).length;
  const shareA = new Map<string, number>();
  const shareB = new Map<string, number>();
  for (const [a, b] of verdicts) {
    shareA.set(a, (shareA.get(a) ?? 0) + 1 / n);
    shareB.set(b, (shareB.get(b) ?? 0) + 1 / n);
  }
  let expected = 0;
  for (const [category, p] of shareA) expected += p * (shareB.get(category) ?? 0);
  const observed = agree / n;
  return {
    judge_a: judgeA,
    judge_b: judgeB,
    scenarios: n,
    observed_agreement: observed,
    cohen_kappa: expected < 1 - 1e-12 ? (observed - expected) / (1 - expected) : null,
  };
}
