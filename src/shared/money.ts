// Costs in USD are kept to the pico-dollar (12 decimals) and summed exactly, so a total prints as
// the decimal it is (0.01275, not 0.012750000000000001). Why and how: docs/costs.md.
import type { BulkSql } from './sql.js';

/** Decimals a cost keeps: a pico-dollar, below a thousandth of the cheapest token. */
export const COST_DECIMALS = 12;

const SCALE = 10n ** BigInt(COST_DECIMALS);

/** Pico-dollars of `usd`, exactly as its decimal rounded to COST_DECIMALS reads. */
function picos(usd: number): bigint {
  const [whole, fraction = ''] = Math.abs(usd).toFixed(COST_DECIMALS).split('.');
  const value = BigInt(whole) * SCALE + BigInt(fraction.padEnd(COST_DECIMALS, '0'));
  return usd < 0 ? -value : value;
}

/** The number nearest to `value` pico-dollars: it prints as that decimal. */
function fromPicos(value: bigint): number {
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  return Number(`${sign}${abs / SCALE}.${(abs % SCALE).toString().padStart(COST_DECIMALS, '0')}`);
}

/**
 * `usd` rounded to the pico-dollar; null and non-finite values stay null. The same number as
 * `fromPicos(picos(usd))` (toFixed's decimal read back; `|| 0` makes -0 the 0 that gives), without
 * its BigInts and strings: every priced span pays it on the serving thread.
 */
export function roundCost(usd: number | null | undefined): number | null {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return null;
  // From 1e21 on, toFixed writes exponent notation, and such a double has no decimals to round.
  return Math.abs(usd) >= 1e21 ? usd : Number(usd.toFixed(COST_DECIMALS)) || 0;
}

/** The exact sum of the costs given (nulls skipped), rounded to the pico-dollar; null when none is a number. */
export function sumCosts(costs: Iterable<number | null | undefined>): number | null {
  let total = 0n;
  let any = false;
  for (const cost of costs) {
    if (cost === null || cost === undefined || !Number.isFinite(cost)) continue;
    total += picos(cost);
    any = true;
  }
  return any ? fromPicos(total) : null;
}

/**
 * SQL for the sum of a cost column, rounded to the pico-dollar. SQLite sums with Kahan–Babuška–
 * Neumaier compensation (3.43+), so the sum of pico-dollar costs is within far less than half a
 * pico-dollar of the exact one and rounding gives the exact decimal back.
 */
export function costSumSql(column: string, sql: Pick<BulkSql, 'round'>): string {
  return sql.round(`SUM(${column})`, COST_DECIMALS);
}
