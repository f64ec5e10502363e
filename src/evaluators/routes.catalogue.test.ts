// GET /evaluators and /evaluators/{key}: the built-in evaluators with their settings templates, over HTTP.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';

const server = useTestServer();

describe('GET /evaluators', () => {
  it('lists the 18 built-in evaluators with their settings templates', async () => {
    const response = await server.request('GET', '/evaluators');
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(18);
    for (const evaluator of response.body) {
      expect(Object.keys(evaluator).sort()).toEqual(['description', 'key', 'name', 'requires_llm_api_keys', 'result_type', 'settings_template']);
      expect(typeof evaluator.key).toBe('string');
      expect(typeof evaluator.name).toBe('string');
      expect(typeof evaluator.description).toBe('string');
      expect(['bool', 'number']).toContain(evaluator.result_type);
      expect(typeof evaluator.requires_llm_api_keys).toBe('boolean');
      for (const setting of Object.values<Record<string, unknown>>(evaluator.settings_template)) {
        expect(Object.keys(setting)).toEqual(expect.arrayContaining(['label', 'type', 'default', 'required', 'description']));
        expect(Object.keys(setting).every((key) => ['label', 'type', 'default', 'required', 'description', 'min', 'max', 'options'].includes(key))).toBe(true);
      }
    }
    const regex = response.body.find((evaluator: { key: string }) => evaluator.key === 'auto_regex_test');
    expect(regex).toMatchObject({ result_type: 'bool', requires_llm_api_keys: false });
    // The template is an ordered map: the form shows the fields in this order.
    expect(Object.keys(regex.settings_template)).toEqual(['regex_pattern', 'regex_should_match', 'case_sensitive']);
    expect(regex.settings_template.regex_pattern).toEqual({
      label: 'Regular expression',
      type: 'regex',
      default: null,
      required: true,
      description: expect.any(String),
    });
    const similarity = response.body.find((evaluator: { key: string }) => evaluator.key === 'auto_similarity_match');
    expect(similarity.settings_template.similarity_threshold).toMatchObject({ type: 'number', default: 0.5, min: 0, max: 1 });
    const levenshtein = response.body.find((evaluator: { key: string }) => evaluator.key === 'auto_levenshtein_distance');
    expect(levenshtein.result_type).toBe('number');
    expect(levenshtein.description).toMatch(/threshold/);
  });

  it('serves one evaluator by key, and 404 for an unknown key', async () => {
    const found = await server.request('GET', '/evaluators/auto_contains');
    expect(found.status).toBe(200);
    expect(found.body.key).toBe('auto_contains');
    expect(Object.keys(found.body.settings_template)).toEqual(['substring', 'case_sensitive']);
    const missing = await server.request('GET', '/evaluators/auto_nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Evaluator with id auto_nope not found' });
  });
});
