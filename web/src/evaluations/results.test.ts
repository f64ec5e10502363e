import { describe, expect, it } from 'vitest';
import { issuesByField, issuesFor, otherIssues } from '../components/forms.tsx';
import { answerText, pairsText, resultText, scoreOf, scoreText } from './results.ts';

describe('issuesByField', () => {
  it("keys the API's 422 faults by their REST field, without the leading body", () => {
    const issues = issuesByField([
      { loc: ['body', 'rate_limit', 'batch_size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' },
      { loc: ['body', 'variant_ids'], msg: 'List should have at least 1 item', type: 'too_short' },
      { loc: ['body', 'variant_ids', 0], msg: 'Unknown variant', type: 'value_error' },
      { loc: ['query', 'x'], msg: 'odd', type: 'value_error' },
    ]);
    expect([...issues.keys()]).toEqual(['rate_limit.batch_size', 'variant_ids', 'variant_ids.0', 'query.x']);
    expect(issuesFor(issues, 'variant_ids')).toEqual(['List should have at least 1 item', 'Unknown variant']);
    expect(issuesFor(issues, 'rate_limit.batch_size')).toEqual(['Input should be greater than or equal to 1']);
    expect(issuesFor(issues, 'rate_limit.max_retries')).toEqual([]);
    // A fault no field shows is still shown, with where it is.
    expect(otherIssues(issues, ['variant_ids', 'rate_limit'])).toEqual(['query.x: odd']);
  });
});

describe('results as text', () => {
  it('reads outputs, scores and errors', () => {
    expect(resultText({ type: 'text', value: 'Paris' })).toBe('Paris');
    expect(resultText({ type: 'json', value: { a: 1 } })).toBe('{\n  "a": 1\n}');
    expect(resultText({ type: 'error', value: null, error: { message: 'timed out' } })).toBe('Error: timed out');
    expect(resultText(null)).toBe('');
    expect(scoreText({ type: 'bool', value: false })).toBe('fail');
    expect(scoreText({ type: 'number', value: 0.12345 })).toBe('0.123');
    expect(scoreText({ type: 'number', value: 3 })).toBe('3');
    expect(scoreOf({ type: 'bool', value: true })).toBe(1);
    expect(scoreOf({ type: 'error', error: { message: 'x' } })).toBeNull();
  });

  it("reads a case's inputs and ground truth", () => {
    expect(
      pairsText([
        { name: 'country', value: 'Peru' },
        { name: 'n', value: 2 },
      ]),
    ).toBe('country: Peru\nn: 2');
    expect(answerText([{ key: 'correct_answer', value: 'Lima: the capital' }])).toBe('Lima: the capital');
    expect(
      answerText([
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
      ]),
    ).toBe('a: 1\nb: 2');
    expect(pairsText('not a list')).toBe('');
  });
});
