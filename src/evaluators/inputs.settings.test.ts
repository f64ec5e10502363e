// The settings template → zod schema function of inputs.ts: defaults, bounds, pydantic's types and
// words, unknown fields, regexes, URLs and messages. No server needed.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../shared/errors.js';
import { parseInput } from '../shared/validation.js';
import { evaluatorSettingsSchema, settingsSchema } from './inputs.js';
import { storedSettings } from '../../test/helpers/scorers.js';
import type { SettingsTemplate } from './evaluator-types.js';
import { defaultJudgePrompt, getEvaluator } from './registry.js';

/** The 422 issues of parsing `values` with `template`'s schema, at loc ["body", …]. */
function faults(template: SettingsTemplate, values: unknown) {
  try {
    parseInput(settingsSchema(template), values, 'body');
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues;
  }
  throw new Error('expected a validation error');
}

function settingsOf(key: string, values: unknown) {
  return parseInput(evaluatorSettingsSchema(key)!, values, 'body');
}

function faultsOf(key: string, values: unknown) {
  return faults(getEvaluator(key)!.settings_template, values);
}

describe('settingsSchema', () => {
  const template: SettingsTemplate = {
    pattern: { label: 'Pattern', type: 'regex', default: null, required: true, description: 'd' },
    ratio: { label: 'Ratio', type: 'number', default: 0.5, required: false, description: 'd', min: 0, max: 1 },
    limit: { label: 'Limit', type: 'number', default: null, required: false, description: 'd', min: 0 },
    strict: { label: 'Strict', type: 'boolean', default: true, required: false, description: 'd' },
    target: { label: 'Target', type: 'url', default: null, required: false, description: 'd' },
    prompt: { label: 'Prompt', type: 'messages', default: [{ role: 'user', content: 'hi' }], required: false, description: 'd' },
    runtime: { label: 'Runtime', type: 'multiple_choice', default: 'javascript', required: false, description: 'd', options: ['javascript', 'lua'] },
  };

  it('fills absent optional fields with their defaults, null where there is none', () => {
    expect(parseInput(settingsSchema(template), { pattern: 'a+' }, 'body')).toEqual({
      pattern: 'a+',
      ratio: 0.5,
      limit: null,
      strict: true,
      target: null,
      prompt: [{ role: 'user', content: 'hi' }],
      runtime: 'javascript',
    });
  });

  it('keeps given values, including falsy ones and explicit null for a field without default', () => {
    const values = { pattern: 'x', ratio: 0, limit: null, strict: false, target: ' https://a.example/x ', runtime: 'lua' };
    expect(parseInput(settingsSchema(template), values, 'body')).toMatchObject({ ...values, target: 'https://a.example/x' });
  });

  it('hands out a fresh copy of a default each time', () => {
    const first = settingsOf('auto_ai_critique', {});
    (first.prompt_template as { content: string }[])[0].content = 'changed';
    expect(settingsOf('auto_ai_critique', {}).prompt_template).toEqual(defaultJudgePrompt);
    expect(getEvaluator('auto_ai_critique')!.settings_template.prompt_template.default).toEqual(defaultJudgePrompt);
  });

  it('demands required fields, also when given null', () => {
    expect(faults(template, {})).toEqual([{ loc: ['body', 'pattern'], msg: 'Field required', type: 'missing' }]);
    expect(faults(template, { pattern: null })).toEqual([{ loc: ['body', 'pattern'], msg: 'Input should be a valid string', type: 'string_type' }]);
    expect(faultsOf('auto_starts_with', { prefix: '' })).toEqual([
      { loc: ['body', 'prefix'], msg: 'String should have at least 1 character', type: 'string_too_short' },
    ]);
  });

  it('refuses null for an optional field that has a default', () => {
    expect(faults(template, { pattern: 'a', strict: null })).toEqual([{ loc: ['body', 'strict'], msg: 'Input should be a valid boolean', type: 'bool_type' }]);
  });

  it('enforces the bounds of numbers, inclusive', () => {
    expect(parseInput(settingsSchema(template), { pattern: 'a', ratio: 1 }, 'body').ratio).toBe(1);
    expect(faults(template, { pattern: 'a', ratio: 1.01, limit: -1 })).toEqual([
      { loc: ['body', 'ratio'], msg: 'Input should be less than or equal to 1', type: 'less_than_equal' },
      { loc: ['body', 'limit'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' },
    ]);
    expect(faultsOf('auto_similarity_match', { similarity_threshold: -0.1 })).toEqual([
      { loc: ['body', 'similarity_threshold'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' },
    ]);
  });

  it('reports wrong types in pydantic words', () => {
    expect(faults(template, { pattern: 7, ratio: 'half', strict: 'maybe', prompt: {}, runtime: 3 })).toEqual([
      { loc: ['body', 'pattern'], msg: 'Input should be a valid string', type: 'string_type' },
      { loc: ['body', 'ratio'], msg: 'Input should be a valid number, unable to parse string as a number', type: 'float_parsing' },
      { loc: ['body', 'strict'], msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing' },
      { loc: ['body', 'prompt'], msg: 'Input should be a valid list', type: 'list_type' },
      { loc: ['body', 'runtime'], msg: "Input should be 'javascript' or 'lua'", type: 'enum' },
    ]);
    expect(faults(template, { pattern: 'a', ratio: null, strict: [] })).toEqual([
      { loc: ['body', 'ratio'], msg: 'Input should be a valid number', type: 'float_type' },
      { loc: ['body', 'strict'], msg: 'Input should be a valid boolean', type: 'bool_type' },
    ]);
    expect(faults(template, ['pattern'])).toEqual([
      { loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' },
    ]);
  });

  it("reads numbers and booleans as pydantic's lax mode does", () => {
    expect(parseInput(settingsSchema(template), { pattern: 'a', ratio: ' 0.5 ', strict: 'yes' }, 'body')).toMatchObject({ ratio: 0.5, strict: true });
    expect(parseInput(settingsSchema(template), { pattern: 'a', ratio: 1, strict: 0 }, 'body')).toMatchObject({ ratio: 1, strict: false });
  });

  it('refuses unknown fields, one fault each, alongside the other faults', () => {
    expect(faults(template, { patern: 'a', ratio: 2, extra: true })).toEqual([
      { loc: ['body', 'pattern'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'ratio'], msg: 'Input should be less than or equal to 1', type: 'less_than_equal' },
      { loc: ['body', 'patern'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
    // A name every object has is no setting either; `__proto__` is dropped (never stored).
    expect(faultsOf('auto_contains_json', JSON.parse('{"__proto__": 1, "constructor": 2}'))).toEqual([
      { loc: ['body', 'constructor'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
    const kept = settingsOf('auto_exact_match', JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(Object.keys(kept)).toEqual(['correct_answer_key']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts a regex that compiles and says why one does not', () => {
    expect(settingsOf('auto_regex_test', { regex_pattern: '^order #\\d+$' })).toEqual({
      regex_pattern: '^order #\\d+$',
      regex_should_match: true,
      case_sensitive: false,
    });
    expect(faultsOf('auto_regex_test', { regex_pattern: '(unclosed', regex_should_match: false })).toEqual([
      { loc: ['body', 'regex_pattern'], msg: 'Invalid regular expression: missing closing ): "(unclosed"', type: 'value_error' },
    ]);
    expect(faultsOf('auto_regex_test', { regex_pattern: 'a{2,1}' })[0]).toMatchObject({ loc: ['body', 'regex_pattern'], type: 'value_error' });
  });

  it('accepts only http(s) URLs', () => {
    for (const webhook_url of ['ftp://files.example.com/x', 'javascript:alert(1)', 'mailto:a@b.c']) {
      expect(faultsOf('auto_webhook_test', { webhook_url }), webhook_url).toEqual([
        { loc: ['body', 'webhook_url'], msg: "URL scheme should be 'http' or 'https'", type: 'url_scheme' },
      ]);
    }
    expect(faultsOf('auto_webhook_test', { webhook_url: 'not a url' })).toEqual([
      { loc: ['body', 'webhook_url'], msg: 'Input should be a valid URL, relative URL without a base', type: 'url_parsing' },
    ]);
    expect(settingsOf('auto_webhook_test', { webhook_url: 'http://127.0.0.1:9000/score' })).toEqual({
      webhook_url: 'http://127.0.0.1:9000/score',
      correct_answer_key: null,
    });
  });

  it('checks messages one by one', () => {
    expect(faultsOf('auto_ai_critique', { prompt_template: [] })).toEqual([
      { loc: ['body', 'prompt_template'], msg: 'List should have at least 1 item', type: 'too_short' },
    ]);
    expect(faultsOf('auto_ai_critique', { prompt_template: [{ role: 'judge', content: 'x' }, { role: 'user' }, 'text'] })).toEqual([
      { loc: ['body', 'prompt_template', 0, 'role'], msg: "Input should be 'system', 'user' or 'assistant'", type: 'enum' },
      { loc: ['body', 'prompt_template', 1, 'content'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'prompt_template', 2], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' },
    ]);
  });

  it('offers the python and javascript runtimes for custom code, python for a config that names none', () => {
    expect(faultsOf('auto_custom_code_run', { code: 'x', runtime: 'lua' })).toEqual([
      { loc: ['body', 'runtime'], msg: "Input should be 'python' or 'javascript'", type: 'enum' },
    ]);
    expect(storedSettings('auto_custom_code_run', { code: 'x' })).toMatchObject({ code: 'x', runtime: 'python' });
    expect(storedSettings('auto_custom_code_run', { code: 'x', runtime: 'javascript' })).toMatchObject({ code: 'x', runtime: 'javascript' });
  });

  it('takes Agenta\'s code evaluator versions "1" (the default) and "2", and nothing else', () => {
    expect(storedSettings('auto_custom_code_run', { code: 'x' })).toMatchObject({ version: '1' });
    expect(storedSettings('auto_custom_code_run', { code: 'x', version: '2' })).toMatchObject({ version: '2' });
    for (const version of ['3', 2, '', null]) {
      expect(faultsOf('auto_custom_code_run', { code: 'x', version })).toEqual([{ loc: ['body', 'version'], msg: "Input should be '1' or '2'", type: 'enum' }]);
    }
  });
});
