// The Levenshtein evaluator and its distance function.
import { describe, expect, it } from 'vitest';
import { ScoringFault } from './common.js';
import { LEVENSHTEIN_MAX_CELLS, levenshteinDistance } from './levenshtein.js';
import { context, faultOf, score, valueOf } from '../../../test/helpers/scorers.js';

/** The textbook full-matrix distance over code points, to check the optimised one against. */
function reference(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const d = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
  }
  return d[x.length][y.length];
}

const distance = (output: unknown, truth: unknown) =>
  valueOf('number', score('auto_levenshtein_distance', {}, { output, testcase: { correct_answer: truth } }));

const within = (output: unknown, truth: unknown, threshold: number) =>
  valueOf('bool', score('auto_levenshtein_distance', { threshold }, { output, testcase: { correct_answer: truth } }));

describe('auto_levenshtein_distance', () => {
  it('counts single-character edits', async () => {
    expect(await distance('kitten', 'sitting')).toBe(3);
    expect(await distance('flaw', 'lawn')).toBe(2);
    expect(await distance('same', 'same')).toBe(0);
  });

  it('handles empty texts', async () => {
    expect(await distance('', '')).toBe(0);
    expect(await distance('', 'abc')).toBe(3);
    expect(await distance('abc', '')).toBe(3);
  });

  it('counts code points, not UTF-16 units', async () => {
    expect(await distance('😀', 'a')).toBe(1);
    expect(await distance('😀😀', '')).toBe(2);
    expect(await distance('a😀b', 'a😃b')).toBe(1);
    expect(await distance('你好', '您好')).toBe(1);
    expect(await distance('你好世界', '')).toBe(4);
    expect(await distance('café', 'cafe')).toBe(1);
    expect(await distance('cafe\u0301', 'caf\u00e9')).toBe(0);
  });

  it('compares a number ground truth with its text', async () => {
    expect(await distance('42', 42)).toBe(0);
    expect(await distance('421', 42)).toBe(1);
    expect(await distance(42, '42')).toBe(0);
  });

  it('answers a bool, distance <= threshold, when a threshold is set', async () => {
    expect(await within('kitten', 'sitting', 3)).toBe(true);
    expect(await within('kitten', 'sitting', 2)).toBe(false);
    expect(await within('kitten', 'sitting', 4)).toBe(true);
    expect(await within('same', 'same', 0)).toBe(true);
    expect(await within('same', 'sane', 0)).toBe(false);
    expect(await within('kitten', 'sitting', 2.5)).toBe(false);
    expect(await within('kitten', 'sitting', 3.5)).toBe(true);
    expect(await within('', 'abcdef', 5)).toBe(false);
    expect(await within('😀😀', '', 2)).toBe(true);
  });

  it('reads the column named by correct_answer_key', async () => {
    const scored = score(
      'auto_levenshtein_distance',
      { correct_answer_key: 'testcase.gold' },
      { output: 'abc', testcase: { gold: 'abd', correct_answer: 'abc' } },
    );
    expect(await valueOf('number', scored)).toBe(1);
  });

  it('gives an error for a missing column', async () => {
    expect(await faultOf(score('auto_levenshtein_distance', {}, { output: 'x', testcase: { a: '', b: '' } }))).toBe(
      'The test case has no column "correct_answer" (columns: a, b)',
    );
  });

  it('gives an error instead of comparing texts that are too long', async () => {
    expect(LEVENSHTEIN_MAX_CELLS).toBe(250_000_000);
    const message = await faultOf(score('auto_levenshtein_distance', {}, { output: 'a'.repeat(16_000), testcase: { correct_answer: 'b'.repeat(16_000) } }));
    expect(message).toBe(
      'The output and the expected answer are too long to compare by edit distance (16000 × 16000 characters once their common start and end are set aside; the limit is 250,000,000)',
    );
    // A long common start and end cost nothing.
    const long = 'x'.repeat(100_000);
    expect(await distance(`${long}a${long}`, `${long}b${long}`)).toBe(1);
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const pending = score(
      'auto_levenshtein_distance',
      {},
      { output: 'a'.repeat(3000), testcase: { correct_answer: 'b'.repeat(3000) } },
      context(controller.signal),
    );
    expect(await faultOf(pending)).toBe('The edit distance computation was cancelled');
  });
});

describe('levenshteinDistance', () => {
  it('agrees with the textbook algorithm on random texts', async () => {
    const alphabet = ['a', 'b', 'c', 'é', '😀', '好'];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 48271) % 2147483647; // Park–Miller, exact in doubles
      return seed % n;
    };
    const text = () => Array.from({ length: random(12) }, () => alphabet[random(alphabet.length)]).join('');
    for (let round = 0; round < 300; round++) {
      const a = text();
      const b = text();
      const expected = reference(a, b);
      expect(await levenshteinDistance(a, b), `${a} / ${b}`).toBe(expected);
      const max = random(6);
      expect(await levenshteinDistance(a, b, { max }), `${a} / ${b} max ${max}`).toBe(Math.min(expected, max + 1));
    }
  });

  it('reports "more than max" as max + 1', async () => {
    expect(await levenshteinDistance('aaaa', 'bbbbbbbb', { max: 2 })).toBe(3);
    expect(await levenshteinDistance('abcdef', 'ghijkl', { max: 2 })).toBe(3);
    expect(await levenshteinDistance('abcdef', 'ghijkl')).toBe(6);
  });

  it('refuses pairs above the cell limit', async () => {
    await expect(levenshteinDistance('abcd', 'efgh', { maxCells: 15 })).rejects.toBeInstanceOf(ScoringFault);
    expect(await levenshteinDistance('abcd', 'efgh', { maxCells: 16 })).toBe(4);
  });
});
