// The JSON evaluators: field match and JSON diff.
import { describe, expect, it } from 'vitest';
import { fieldEquals, flattenJson, jsonDiffScore, jsonEqual } from './json.js';
import { faultOf, score, valueOf } from '../../../test/helpers/scorers.js';

describe('field_match_test', () => {
  const match = (json_field: string, output: unknown, truth: unknown, settings: Record<string, unknown> = {}) =>
    valueOf('bool', score('field_match_test', { json_field, ...settings }, { output, testcase: { correct_answer: truth } }));

  it('compares a field of the JSON output with the ground truth', async () => {
    expect(await match('category', '{"category": "billing", "urgent": false}', 'billing')).toBe(true);
    expect(await match('category', '{"category": "billing"}', 'Billing')).toBe(false);
    expect(await match('category', { category: 'billing' }, 'billing')).toBe(true);
    expect(await match('name', '{"name": "Zoë 👋"}', 'Zoë 👋')).toBe(true);
    expect(await match('name', '{"name": ""}', '')).toBe(true);
  });

  it('compares numbers and booleans with text sensibly', async () => {
    expect(await match('n', '{"n": 42}', '42')).toBe(true);
    expect(await match('n', '{"n": 42}', 42)).toBe(true);
    expect(await match('n', '{"n": "42"}', 42)).toBe(true);
    expect(await match('n', '{"n": 42}', '43')).toBe(false);
    expect(await match('flag', '{"flag": true}', 'true')).toBe(true);
    expect(await match('flag', '{"flag": true}', 'True')).toBe(false);
  });

  it('compares a list or object field with the ground truth read as JSON', async () => {
    expect(await match('tags', '{"tags": [1, 2]}', '[1, 2]')).toBe(true);
    expect(await match('tags', '{"tags": [1, 2]}', '[2, 1]')).toBe(false);
    expect(await match('o', '{"o": {"a": 1, "b": 2}}', '{"b": 2, "a": 1}')).toBe(true);
    expect(await match('o', '{"o": {"a": 1}}', { a: 1 })).toBe(true);
    // A string field is compared as text only: "1.0" is not "1".
    expect(await match('s', '{"s": "1.0"}', '1')).toBe(false);
    expect(await match('s', '{"s": "x"}', '"x"')).toBe(false);
  });

  it('accepts JSON in a Markdown code fence and surrounding whitespace', async () => {
    expect(await match('a', '```json\n{"a": "x"}\n```', 'x')).toBe(true);
    expect(await match('a', '  \n{"a": "x"}\n ', 'x')).toBe(true);
  });

  it('reads the ground truth from correct_answer_key', async () => {
    const scored = score('field_match_test', { json_field: 'a', correct_answer_key: 'testcase.label' }, { output: '{"a": "x"}', testcase: { label: 'x' } });
    expect(await valueOf('bool', scored)).toBe(true);
  });

  it('gives an error for an output that is not a JSON object', async () => {
    const fault = (output: unknown) => faultOf(score('field_match_test', { json_field: 'a' }, { output, testcase: { correct_answer: 'x' } }));
    expect(await fault('not json')).toBe('The output is not valid JSON: not json');
    expect(await fault('')).toBe('The output is not valid JSON: (empty)');
    expect(await fault('[{"a": "x"}]')).toBe('The output is JSON but not an object: [{"a": "x"}]');
    expect(await fault(42)).toBe('The output is not a JSON object: 42');
  });

  it('gives an error naming an absent field and the fields there are', async () => {
    const message = await faultOf(score('field_match_test', { json_field: 'label' }, { output: '{"a": 1, "b": 2}', testcase: { correct_answer: 'x' } }));
    expect(message).toBe('The output JSON has no field "label" (fields: a, b)');
  });

  it('reports a missing ground-truth column first', async () => {
    const message = await faultOf(score('field_match_test', { json_field: 'a' }, { output: 'not json', testcase: { q: 1 } }));
    expect(message).toBe('The test case has no column "correct_answer" (columns: q)');
  });

  it('has helpers that compare JSON deeply', () => {
    expect(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(fieldEquals(null, '')).toBe(true);
    expect(fieldEquals(null, 'null')).toBe(true);
  });
});

describe('auto_json_diff', () => {
  const diff = (output: unknown, truth: unknown, settings: Record<string, unknown> = {}) =>
    valueOf('number', score('auto_json_diff', settings, { output, testcase: { correct_answer: truth } }));

  it('scores the share of the expected keys whose values match', async () => {
    expect(await diff('{"a": 1, "b": 2}', '{"b": 2, "a": 1}')).toBe(1);
    expect(await diff('{"a": 1, "b": 3}', '{"a": 1, "b": 2}')).toBe(0.5);
    expect(await diff('{"x": 1}', '{"a": 1, "b": 2}')).toBe(0);
    expect(await diff({ a: { b: 1, c: 2 } }, { a: { b: 1, c: 5 } })).toBe(0.5);
    expect(await diff('{"l": [1, 2, 4]}', '{"l": [1, 2, 3]}')).toBeCloseTo(2 / 3, 12);
    expect(await diff('{"a": {"b": 1}}', '{"a": 1}')).toBe(0);
  });

  it('compares values as JSON: the number 1 is not the string "1"', async () => {
    expect(await diff('{"a": "1"}', '{"a": 1}')).toBe(0);
    expect(await diff('{"a": null, "b": [], "c": {}}', '{"a": null, "b": [], "c": {}}')).toBe(1);
    expect(await diff('{"s": "Zoë 👋"}', '{"s": "Zoë 👋"}')).toBe(1);
  });

  it('ignores extra output keys unless predict_keys', async () => {
    expect(await diff('{"a": 1, "b": 2, "c": 3}', '{"a": 1, "b": 2}')).toBe(1);
    expect(await diff('{"a": 1, "b": 2, "c": 3}', '{"a": 1, "b": 2}', { predict_keys: true })).toBeCloseTo(2 / 3, 12);
    expect(await diff('{"a": 1}', '{"a": 1, "b": 2}', { predict_keys: true })).toBe(0.5);
  });

  it('compares only JSON types with compare_schema_only', async () => {
    const schema = { compare_schema_only: true };
    expect(await diff('{"a": 2, "b": "y"}', '{"a": 1, "b": "x"}', schema)).toBe(1);
    expect(await diff('{"a": "1", "b": "y"}', '{"a": 1, "b": "x"}', schema)).toBe(0.5);
    expect(await diff('{"a": 0}', '{"a": null}', schema)).toBe(0);
    expect(await diff('{"a": 1.5}', '{"a": 1}', schema)).toBe(1);
  });

  it('matches keys regardless of case with case_insensitive_keys', async () => {
    expect(await diff('{"name": "x", "Age": 3}', '{"Name": "x", "age": 3}')).toBe(0);
    expect(await diff('{"name": "x", "Age": 3}', '{"Name": "x", "age": 3}', { case_insensitive_keys: true })).toBe(1);
    expect(await diff('{"user": {"NAME": "x"}}', '{"User": {"name": "x"}}', { case_insensitive_keys: true })).toBe(1);
  });

  it('keeps a dotted key apart from a nested one', async () => {
    expect(await diff('{"a": {"b": 1}}', '{"a.b": 1}')).toBe(0);
    expect(flattenJson({ 'a.b': 1, a: { b: 2 } }).size).toBe(2);
  });

  it('scores 1 when there is nothing to compare', async () => {
    expect(await diff('{}', '{}')).toBe(1);
    expect(await diff('{"a": 1}', '{}')).toBe(1);
    expect(await diff('{"a": 1}', '{}', { predict_keys: true })).toBe(0);
  });

  it('flattens lists by index and keeps empty containers as leaves', () => {
    const flat = flattenJson({ a: { b: [1, { c: 2 }] }, e: [], o: {} });
    expect([...flat.entries()]).toEqual([
      ['["a","b","0"]', 1],
      ['["a","b","1","c"]', 2],
      ['["e"]', []],
      ['["o"]', {}],
    ]);
    expect(jsonDiffScore({ a: 1 }, { A: 1 }, { compareSchemaOnly: false, predictKeys: true, caseInsensitiveKeys: false })).toBe(0);
  });

  it('gives an error when either side is not a JSON object', async () => {
    const fault = (output: unknown, truth: unknown, correctAnswerColumn: string | null = null) =>
      faultOf(score('auto_json_diff', {}, { output, testcase: { correct_answer: truth, gold: truth }, correctAnswerColumn }));
    expect(await fault('{"a": 1}', 'plain text')).toBe('The expected answer (column "correct_answer") is not valid JSON: plain text');
    expect(await fault('{"a": 1}', '[1]', 'gold')).toBe('The expected answer (column "gold") is JSON but not an object: [1]');
    expect(await fault('{"a": 1}', 42)).toBe('The expected answer (column "correct_answer") is not a JSON object: 42');
    expect(await fault('Sure! {"a": 1}', '{"a": 1}')).toBe('The output is not valid JSON: Sure! {"a": 1}');
    expect(await fault(['a'], '{"a": 1}')).toBe('The output is not a JSON object: ["a"]');
  });

  it('gives an error for a missing column', async () => {
    expect(await faultOf(score('auto_json_diff', {}, { output: '{}', testcase: {} }))).toBe('The test case has no column "correct_answer" (columns: none)');
  });
});
