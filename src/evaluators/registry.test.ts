// The registry of built-in evaluators (docs/evaluators.md): its order, which need model keys, and
// templates whose defaults and bounds the settings schema accepts. No server needed.
import { describe, expect, it } from 'vitest';
import { parseInput } from '../shared/validation.js';
import { evaluatorSettingsSchema } from './inputs.js';
import type { SettingType } from './evaluator-types.js';
import { defaultJudgePrompt, getEvaluator, listEvaluators } from './registry.js';

function settingsOf(key: string, values: unknown) {
  return parseInput(evaluatorSettingsSchema(key)!, values, 'body');
}

/** A valid value of each setting type, for the required fields of the templates. */
const exampleValues: Record<SettingType, unknown> = {
  string: 'answer',
  regex: '^\\d+$',
  code: 'function evaluate() { return 1; }',
  url: 'https://scorer.example.com/score',
  number: 0.25,
  boolean: false,
  messages: [{ role: 'user', content: 'Rate {prediction}' }],
  multiple_choice: 'javascript',
};

describe('registry', () => {
  it('has the 18 evaluators of docs/evaluators.md in its order', () => {
    expect(listEvaluators().map((evaluator) => evaluator.key)).toEqual([
      'auto_exact_match',
      'auto_contains_json',
      'auto_similarity_match',
      'auto_semantic_similarity',
      'auto_regex_test',
      'field_match_test',
      'auto_json_diff',
      'auto_ai_critique',
      'auto_custom_code_run',
      'auto_webhook_test',
      'auto_starts_with',
      'auto_ends_with',
      'auto_contains',
      'auto_contains_any',
      'auto_contains_all',
      'auto_levenshtein_distance',
      'rag_faithfulness',
      'rag_context_relevancy',
    ]);
    expect(getEvaluator('auto_unknown')).toBeUndefined();
    // A key that is a property of every object is still not an evaluator.
    expect(getEvaluator('constructor')).toBeUndefined();
  });

  it('marks exactly the provider-backed evaluators as needing LLM keys', () => {
    expect(
      listEvaluators()
        .filter((evaluator) => evaluator.requires_llm_api_keys)
        .map((evaluator) => evaluator.key),
    ).toEqual(['auto_semantic_similarity', 'auto_ai_critique', 'rag_faithfulness', 'rag_context_relevancy']);
  });

  it('keeps templates self-consistent: required fields have no default, choices have options', () => {
    for (const evaluator of listEvaluators()) {
      for (const [field, setting] of Object.entries(evaluator.settings_template)) {
        const where = `${evaluator.key}.${field}`;
        if (setting.required) expect(setting.default, where).toBeNull();
        expect(setting.options !== undefined, where).toBe(setting.type === 'multiple_choice');
        if (setting.min !== undefined || setting.max !== undefined) expect(setting.type, where).toBe('number');
        expect(setting.label.length, where).toBeGreaterThan(0);
        expect(setting.description.length, where).toBeGreaterThan(0);
      }
    }
  });

  it('accepts every evaluator with only its required fields and fills each default in template order', () => {
    for (const evaluator of listEvaluators()) {
      const template = evaluator.settings_template;
      const required = Object.fromEntries(
        Object.entries(template)
          .filter(([, setting]) => setting.required)
          .map(([field, setting]) => [field, exampleValues[setting.type]]),
      );
      const settings = settingsOf(evaluator.key, required);
      expect(Object.keys(settings), evaluator.key).toEqual(Object.keys(template));
      for (const [field, setting] of Object.entries(template)) {
        expect(settings[field], `${evaluator.key}.${field}`).toEqual(setting.required ? required[field] : setting.default);
      }
    }
  });

  it('follows the docs/evaluators.md table for the fields with specific defaults and bounds', () => {
    const template = (key: string) => getEvaluator(key)!.settings_template;
    expect(template('auto_similarity_match').similarity_threshold).toMatchObject({ default: 0.5, min: 0, max: 1, required: false });
    expect(template('auto_regex_test').regex_pattern).toMatchObject({ type: 'regex', required: true });
    expect(template('auto_regex_test').regex_should_match).toMatchObject({ type: 'boolean', default: true });
    expect(template('field_match_test').json_field).toMatchObject({ required: true });
    for (const field of ['compare_schema_only', 'predict_keys', 'case_insensitive_keys']) {
      expect(template('auto_json_diff')[field]).toMatchObject({ type: 'boolean', default: false });
    }
    expect(template('auto_semantic_similarity').model.default).toBe('text-embedding-3-small');
    expect(template('auto_ai_critique').model.default).toBe('gpt-4o-mini');
    expect(template('auto_custom_code_run').runtime).toMatchObject({ type: 'multiple_choice', default: 'python', options: ['python', 'javascript'] });
    expect(template('auto_webhook_test').webhook_url).toMatchObject({ type: 'url', required: true });
    expect(template('auto_levenshtein_distance').threshold).toMatchObject({ type: 'number', default: null, required: false, min: 0 });
    expect(template('auto_levenshtein_distance').threshold.max).toBeUndefined();
    for (const key of ['auto_starts_with', 'auto_ends_with', 'auto_contains', 'auto_contains_any', 'auto_contains_all']) {
      expect(template(key).case_sensitive, key).toMatchObject({ type: 'boolean', default: true });
    }
    const withCorrectAnswerKey = listEvaluators().filter((evaluator) => 'correct_answer_key' in evaluator.settings_template);
    expect(withCorrectAnswerKey.map((evaluator) => evaluator.key)).toEqual([
      'auto_exact_match',
      'auto_similarity_match',
      'auto_semantic_similarity',
      'field_match_test',
      'auto_json_diff',
      'auto_ai_critique',
      'auto_custom_code_run',
      'auto_webhook_test',
      'auto_levenshtein_distance',
    ]);
    // Unset by default, so the evaluation's correct_answer_column can apply
    // (docs/evaluations.md#ground-truth).
    for (const evaluator of withCorrectAnswerKey) expect(evaluator.settings_template.correct_answer_key.default).toBeNull();
    expect(Object.keys(template('auto_contains_json'))).toEqual([]);
  });

  it('has a default judge prompt using both placeholders', () => {
    const text = defaultJudgePrompt.map((message) => message.content).join('\n');
    expect(text).toContain('{prediction}');
    expect(text).toContain('{ground_truth}');
  });
});
