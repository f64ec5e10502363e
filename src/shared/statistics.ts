// Means of numbers (booleans as 1/0): an evaluator's over an evaluation's scenarios
// (docs/evaluations.md#totals-and-aggregates), a score's over the traces of a filter
// (docs/scores.md#in-the-trace-list), with the spread and a 95% confidence interval
// so two runs can be told apart from noise.
// Proportions get Wilson's interval (sound near 0 and 1 and for small n); other numbers Student's t
// interval.

export interface Aggregate {
  /** Results that were not errors. */
  count: number;
  errors: number;
  mean: number | null;
  /** Sample standard deviation (n - 1); null below two results. */
  stddev: number | null;
  ciLow: number | null;
  ciHigh: number | null;
}

/** Two-sided 97.5% quantile of Student's t with `df` degrees of freedom. */
function tQuantile975(df: number): number {
  const exact = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];
  if (df <= exact.length) return exact[df - 1];
  // Cornish–Fisher expansion around the normal quantile: within 1e-3 from df = 11 on.
  const z = 1.959963984540054;
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3);
}

/**
 * From n results with sum and sum of squares. `proportion`: every value is 0 or 1.
 */
export function aggregate(n: number, errors: number, sum: number, sumOfSquares: number, proportion: boolean): Aggregate {
  if (n === 0) return { count: 0, errors, mean: null, stddev: null, ciLow: null, ciHigh: null };
  const mean = sum / n;
  const variance = n > 1 ? Math.max(0, (sumOfSquares - n * mean * mean) / (n - 1)) : null;
  const stddev = variance === null ? null : Math.sqrt(variance);
  if (proportion) {
    const z = 1.959963984540054;
    const denominator = 1 + (z * z) / n;
    const centre = (mean + (z * z) / (2 * n)) / denominator;
    const half = (z * Math.sqrt((mean * (1 - mean)) / n + (z * z) / (4 * n * n))) / denominator;
    return { count: n, errors, mean, stddev, ciLow: Math.max(0, centre - half), ciHigh: Math.min(1, centre + half) };
  }
  if (stddev === null) return { count: n, errors, mean, stddev, ciLow: null, ciHigh: null };
  const half = (tQuantile975(n - 1) * stddev) / Math.sqrt(n);
  return { count: n, errors, mean, stddev, ciLow: mean - half, ciHigh: mean + half };
}
