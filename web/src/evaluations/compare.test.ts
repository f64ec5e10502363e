import { describe, expect, it } from 'vitest';
import { classify, countChanges, orderComparison, type ComparedScenario } from './compare.ts';

const text = (value: string) => ({ result: { type: 'text', value } });
const scenario = (output: string, scores: Record<string, boolean | number | Error>): ComparedScenario => ({
  outputs: [text(output)],
  results: Object.entries(scores).map(([evaluatorConfigId, score]) => ({
    evaluatorConfigId,
    result:
      score instanceof Error
        ? { type: 'error', value: null, error: { message: score.message } }
        : { type: typeof score === 'boolean' ? 'bool' : 'number', value: score },
  })),
});

describe('classify', () => {
  it('calls a lower score, or an error where there was a score, a regression', () => {
    expect(classify({ position: 0, scenarios: [scenario('a', { x: true }), scenario('a', { x: false })] }, ['x']).change).toBe('regression');
    expect(classify({ position: 0, scenarios: [scenario('a', { x: 0.5 }), scenario('a', { x: new Error('boom') })] }, ['x']).change).toBe('regression');
    // A fall in one config outweighs a rise in another.
    expect(classify({ position: 0, scenarios: [scenario('a', { x: 1, y: 0 }), scenario('b', { x: 0.9, y: 1 })] }, ['x', 'y']).change).toBe('regression');
  });

  it('calls a rise with no fall an improvement, and an error turned into a score one too', () => {
    const up = classify({ position: 0, scenarios: [scenario('a', { x: 0.2 }), scenario('b', { x: 0.7 })] }, ['x']);
    expect(up.change).toBe('improvement');
    expect(up.deltas.get('x')![1]).toBeCloseTo(0.5);
    expect(classify({ position: 0, scenarios: [scenario('a', { x: new Error('e') }), scenario('a', { x: false })] }, ['x']).change).toBe('improvement');
  });

  it('tells a changed output from the same one, and a missing scenario counts as changed', () => {
    expect(classify({ position: 0, scenarios: [scenario('a', { x: true }), scenario('b', { x: true })] }, ['x']).change).toBe('changed');
    expect(classify({ position: 0, scenarios: [scenario('a', { x: true }), scenario('a', { x: true })] }, ['x']).change).toBe('same');
    expect(classify({ position: 0, scenarios: [scenario('a', { x: true }), null] }, ['x']).change).toBe('changed');
  });

  it('compares every other evaluation with the first, config by config', () => {
    const row = { position: 0, scenarios: [scenario('a', { x: 0.5 }), scenario('a', { x: 0.5 }), scenario('a', { x: 0.25 })] };
    const classified = classify(row, ['x', 'absent']);
    expect(classified.change).toBe('regression');
    expect(classified.deltas.get('x')).toEqual([0, 0, -0.25]);
    expect(classified.deltas.get('absent')).toEqual([0, null, null]);
  });
});

describe('orderComparison', () => {
  it('puts regressions first, then improvements, changed outputs and the same; larger changes first, then test set order', () => {
    const rows = [
      { position: 0, scenarios: [scenario('a', { x: 1 }), scenario('a', { x: 1 })] },
      { position: 1, scenarios: [scenario('a', { x: 0 }), scenario('b', { x: 1 })] },
      { position: 2, scenarios: [scenario('a', { x: 1 }), scenario('b', { x: 0.9 })] },
      { position: 3, scenarios: [scenario('a', { x: 1 }), scenario('b', { x: 1 })] },
      { position: 4, scenarios: [scenario('a', { x: 1 }), scenario('b', { x: 0 })] },
      { position: 5, scenarios: [scenario('a', { x: 1 }), scenario('a', { x: 1 })] },
    ];
    const ordered = orderComparison(rows, ['x']);
    expect(ordered.map((item) => [item.row.position, item.change])).toEqual([
      [4, 'regression'],
      [2, 'regression'],
      [1, 'improvement'],
      [3, 'changed'],
      [0, 'same'],
      [5, 'same'],
    ]);
    expect(countChanges(ordered)).toEqual({ regression: 2, improvement: 1, changed: 1, same: 2 });
  });
});
