// Exact cost sums (docs/costs.md#exact-sums): the values below show float noise when summed as
// doubles, and must not through money.ts, in JavaScript and in SQLite.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { costSumSql, roundCost, sumCosts } from './money.js';
import { SqliteSql } from './sqlite-sql.js';

const naive = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('sumCosts', () => {
  it('sums to the decimal where doubles do not', () => {
    expect(naive([0.00425, 0.00425, 0.00425])).not.toBe(0.01275);
    expect(sumCosts([0.00425, 0.00425, 0.00425])).toBe(0.01275);
    expect(naive([0.1, 0.2])).not.toBe(0.3);
    expect(sumCosts([0.1, 0.2])).toBe(0.3);
    expect(sumCosts(Array.from({ length: 10 }, () => 0.1))).toBe(1);
  });

  it('skips nulls and non-finite values, and is null when nothing is a number', () => {
    expect(sumCosts([null, 0.1, undefined, Number.NaN, 0.2])).toBe(0.3);
    expect(sumCosts([null, undefined])).toBeNull();
    expect(sumCosts([])).toBeNull();
    expect(sumCosts([0])).toBe(0);
  });

  it('keeps the sign and rounds to the pico-dollar', () => {
    expect(sumCosts([-0.1, -0.2])).toBe(-0.3);
    expect(sumCosts([1e-13, 1e-13])).toBe(0);
    expect(sumCosts([6e-13])).toBe(1e-12);
  });
});

describe('roundCost', () => {
  it('gives the decimal back, and null for what is not a number', () => {
    expect(roundCost(0.1 + 0.2)).toBe(0.3);
    expect(roundCost(0.00425 * 3)).toBe(0.01275);
    expect(roundCost(null)).toBeNull();
    expect(roundCost(undefined)).toBeNull();
    expect(roundCost(Number.POSITIVE_INFINITY)).toBeNull();
    expect(roundCost(1e21)).toBe(1e21);
  });

  it('is the pico-dollar rounding that sums use, for every sign and magnitude', () => {
    // sumCosts of one value is that value through pico-dollars as BigInts.
    const values = [0, -0, 5e-13, -5e-13, 1e-15, -1e-15, 0.1 + 0.2, 1e20, -123.456789012345];
    for (let i = 0; i < 20_000; i++) values.push((Math.random() - 0.5) * 10 ** (Math.floor(Math.random() * 34) - 14));
    for (const value of values) expect(roundCost(value), String(value)).toBe(sumCosts([value]));
  });
});

describe('costSumSql', () => {
  it('sums to the decimal in SQLite', () => {
    const db = new Database(':memory:');
    const sql = new SqliteSql(() => db);
    db.exec('CREATE TABLE c (cost REAL)');
    const insert = db.prepare('INSERT INTO c VALUES (?)');
    for (const cost of [0.00425, 0.00425, 0.00425, null]) insert.run(cost);
    expect(db.prepare('SELECT SUM(cost) AS s FROM c').get()).not.toEqual({ s: 0.01275 });
    expect(db.prepare(`SELECT ${costSumSql('cost', sql)} AS s FROM c`).get()).toEqual({ s: 0.01275 });
    db.exec('DELETE FROM c');
    for (const cost of [0.1, 0.2]) insert.run(cost);
    expect(db.prepare(`SELECT ${costSumSql('cost', sql)} AS s FROM c`).get()).toEqual({ s: 0.3 });
    db.close();
  });
});
