import { describe, expect, it } from 'vitest';
import { columnText, summaryFigure } from './columns.tsx';

describe('scores in the trace list', () => {
  it("shows a column's newest label or text, the mean of numbers, and how many when more than one", () => {
    expect(columnText(undefined)).toBe('–');
    expect(columnText({ dataType: 'BOOLEAN', count: 2, mean: 0.5, stringValue: 'True' })).toBe('True (2)');
    expect(columnText({ dataType: 'NUMERIC', count: 1, mean: 7.25, stringValue: null })).toBe('7.25');
    expect(columnText({ dataType: 'NUMERIC', count: 3, mean: 2 / 3, stringValue: null })).toBe('0.667 (3)');
    expect(columnText({ dataType: 'TEXT', count: 1, mean: null, stringValue: 'wrong year' })).toBe('wrong year');
  });

  it('sums up a name over the filter: a share of true, a mean with its interval, the top label', () => {
    expect(summaryFigure({ name: 'correct', dataType: 'BOOLEAN', count: 4, mean: 0.75, interval: { low: 0.3, high: 0.95 }, labels: [] })).toEqual([
      'correct',
      '75% true [30%–95%], n=4',
    ]);
    expect(summaryFigure({ name: 'quality', dataType: 'NUMERIC', count: 2, mean: 7.5, interval: null, labels: [] })).toEqual(['quality', 'mean 7.5, n=2']);
    expect(summaryFigure({ name: 'tone', dataType: 'CATEGORICAL', count: 3, mean: 1, interval: null, labels: [{ label: 'kind', share: 2 / 3 }] })).toEqual([
      'tone',
      'kind 67%, n=3',
    ]);
  });
});
