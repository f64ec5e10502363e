// The JSON evaluators: field match (one top-level field of the output equals the ground truth)
// and JSON diff (the share of the ground truth's flattened keys the output reproduces). Edge
// cases are listed in ../scoring.ts.
import { type Result, result } from '../results.js';
import { ScoringFault, asJsonObject, booleanSetting, groundTruthColumn, guarded, isPlainObject, requireGroundTruth, stringSetting, toText } from './common.js';
import { excerpt } from '../../shared/errors.js';

/** Deep equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  }
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return false;
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Whether a field of the output equals the ground truth: their texts are equal (so 42 equals
 * "42"), or, for a field that is not a string (a number, boolean, null, list or object), it equals
 * the ground truth read as JSON (so [1,2] equals "[1, 2]" and {"a":1,"b":2} equals '{"b":2,"a":1}').
 */
export function fieldEquals(field: unknown, truth: unknown): boolean {
  if (toText(field) === toText(truth)) return true;
  if (typeof field === 'string') return false;
  return jsonEqual(field, typeof truth === 'string' ? parsedOrText(truth) : truth);
}

function fieldList(object: Record<string, unknown>): string {
  const keys = Object.keys(object);
  if (keys.length === 0) return 'none';
  return excerpt(keys.join(', '), 300);
}

export const fieldMatch = guarded((settings, scoringCase): Result => {
  const field = stringSetting(settings, 'json_field');
  const truth = requireGroundTruth(settings, scoringCase);
  const output = asJsonObject(scoringCase.output, 'The output');
  if (!Object.hasOwn(output, field)) {
    throw new ScoringFault(`The output JSON has no field "${field}" (fields: ${fieldList(output)})`);
  }
  return result('bool', fieldEquals(output[field], truth));
});

// JSON diff.

/** The JSON type of a value, as compared with `compare_schema_only`. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * The leaves of a JSON object by their path: nested objects and lists are descended (list items
 * by index), so {"a":{"b":[1,{"c":2}]}} has the leaves a.b.0 = 1 and a.b.1.c = 2. Empty objects
 * and lists are leaves themselves. Paths are kept as segment lists (the map key is their JSON), so
 * a key containing a dot never collides with a nested one. With `foldCase`, segments are
 * lower-cased; of keys that then collide, the first one met wins.
 */
export function flattenJson(object: Record<string, unknown>, foldCase = false): Map<string, unknown> {
  const leaves = new Map<string, unknown>();
  const visit = (value: unknown, path: string[]): void => {
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [String(index), item])
      : isPlainObject(value)
        ? Object.entries(value)
        : [];
    if (entries.length === 0 && path.length > 0) {
      const key = JSON.stringify(path);
      if (!leaves.has(key)) leaves.set(key, value);
      return;
    }
    for (const [segment, item] of entries) visit(item, [...path, foldCase ? segment.toLowerCase() : segment]);
  };
  visit(object, []);
  return leaves;
}

export interface JsonDiffOptions {
  compareSchemaOnly: boolean;
  predictKeys: boolean;
  caseInsensitiveKeys: boolean;
}

/**
 * The share, from 0 to 1, of the compared keys on which `output` agrees with `truth`. The compared
 * keys are the ground truth's flattened keys, plus (with `predictKeys`) those only the output has,
 * which then can only lower the score. A key agrees when both have it and their values are equal
 * JSON (with `compareSchemaOnly`: of the same JSON type). No key to compare at all (both {}) is 1.
 */
export function jsonDiffScore(truth: Record<string, unknown>, output: Record<string, unknown>, options: JsonDiffOptions): number {
  const expected = flattenJson(truth, options.caseInsensitiveKeys);
  const actual = flattenJson(output, options.caseInsensitiveKeys);
  const keys = new Set(expected.keys());
  if (options.predictKeys) for (const key of actual.keys()) keys.add(key);
  if (keys.size === 0) return 1;
  let matched = 0;
  for (const key of keys) {
    if (!expected.has(key) || !actual.has(key)) continue;
    const want = expected.get(key);
    const got = actual.get(key);
    if (options.compareSchemaOnly ? jsonType(want) === jsonType(got) : jsonEqual(want, got)) matched++;
  }
  return matched / keys.size;
}

export const jsonDiff = guarded((settings, scoringCase): Result => {
  const column = groundTruthColumn(settings, scoringCase.correctAnswerColumn);
  const truth = asJsonObject(requireGroundTruth(settings, scoringCase), `The expected answer (column "${column}")`);
  const output = asJsonObject(scoringCase.output, 'The output');
  const score = jsonDiffScore(truth, output, {
    compareSchemaOnly: booleanSetting(settings, 'compare_schema_only', false),
    predictKeys: booleanSetting(settings, 'predict_keys', false),
    caseInsensitiveKeys: booleanSetting(settings, 'case_insensitive_keys', false),
  });
  return result('number', score);
});
