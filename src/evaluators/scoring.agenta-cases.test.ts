// Evaluator cases rebuilt from Agenta's published tests, with the settings exactly as Agenta's
// tests send them (docs/evaluators.md#agentas-settings): each config is saved through the real
// REST API (Agenta's settings must be accepted as Agenta accepts them) and each case scored as
// the runner scores it. Source: Agenta-AI/agenta, api/oss/tests/legacy/old_tests/unit/
// test_evaluators.py (cited below as test_evaluators.py, with the test's name). Cases that need a
// model provider (AI critique, semantic similarity, RAG) are covered by their own tests with a
// local provider. Agenta v2 answers `{"data": …}` reach the scorers unwrapped (invocation.ts), so
// the cases whose output is such a dict are given its `data`.
import { beforeAll, describe, expect, it } from 'vitest';
import { context, score, scoringCase, valueOf } from '../../test/helpers/scorers.js';
import { getScorer } from './scoring.js';
import { useTestServer } from '../../test/helpers/server.js';

const server = useTestServer();
let appId: string;
let configs = 0;

beforeAll(async () => {
  appId = (await server.request('POST', '/apps', { app_name: 'agenta-cases' })).body.app_id;
});

/** Saves a config as Agenta's client would; answers the settings as stored. */
async function saved(evaluator_key: string, settings_values: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await server.request('POST', '/evaluators/configs', { app_id: appId, name: `case ${++configs}`, evaluator_key, settings_values });
  expect(response.status, response.text).toBe(200);
  return response.body.settings_values;
}

async function scored(
  key: string,
  settings: Record<string, unknown>,
  output: unknown,
  testcase: Record<string, unknown> = {},
  type: 'bool' | 'number' = 'bool',
) {
  return valueOf(type, score(key, await saved(key, settings), { output, testcase }));
}

describe("Agenta's evaluator cases", () => {
  it('test_evaluators.py test_auto_starts_with: correct_answer_keys is accepted, stored and ignored', async () => {
    const cases: [string, Record<string, unknown>, boolean][] = [
      ['Hello world', { prefix: 'He', case_sensitive: true, correct_answer_keys: ['correct_answer'] }, true],
      ['hello world', { prefix: 'He', case_sensitive: false, correct_answer_keys: ['correct_answer'] }, true],
      ['Hello world', { prefix: 'he', case_sensitive: false, correct_answer_keys: ['correct_answer'] }, true],
      ['Hello world', { prefix: 'world', case_sensitive: true, correct_answer_keys: ['correct_answer'] }, false],
    ];
    for (const [output, settings, expected] of cases) expect(await scored('auto_starts_with', settings, output), JSON.stringify(settings)).toBe(expected);
    expect(await saved('auto_starts_with', { prefix: 'He', correct_answer_keys: ['correct_answer'] })).toEqual({
      prefix: 'He',
      case_sensitive: true,
      correct_answer_keys: ['correct_answer'],
    });
  });

  it('test_evaluators.py test_auto_ends_with, test_auto_contains, test_auto_contains_any, test_auto_contains_all', async () => {
    const cases: [string, Record<string, unknown>, string, boolean][] = [
      ['auto_ends_with', { suffix: 'world', case_sensitive: true }, 'Hello world', true],
      ['auto_ends_with', { suffix: 'World', case_sensitive: false }, 'hello world', true],
      ['auto_ends_with', { suffix: 'World', case_sensitive: true }, 'Hello world', false],
      ['auto_ends_with', { suffix: 'Hello', case_sensitive: true }, 'Hello world', false],
      ['auto_contains', { substring: 'lo wo', case_sensitive: true }, 'Hello world', true],
      ['auto_contains', { substring: 'LO WO', case_sensitive: false }, 'Hello world', true],
      ['auto_contains', { substring: 'abc', case_sensitive: true }, 'Hello world', false],
      ['auto_contains_any', { substrings: 'hello,world', case_sensitive: true }, 'Hello world', true],
      ['auto_contains_any', { substrings: 'world,universe', case_sensitive: true }, 'Hello world', true],
      ['auto_contains_any', { substrings: 'world,universe', case_sensitive: false }, 'Hello world', true],
      ['auto_contains_any', { substrings: 'abc,xyz', case_sensitive: true }, 'Hello world', false],
      ['auto_contains_all', { substrings: 'hello,world', case_sensitive: true }, 'Hello world', false],
      ['auto_contains_all', { substrings: 'Hello,world', case_sensitive: true }, 'Hello world', true],
      ['auto_contains_all', { substrings: 'hello,world', case_sensitive: false }, 'Hello world', true],
      ['auto_contains_all', { substrings: 'world,universe', case_sensitive: true }, 'Hello world', false],
    ];
    for (const [key, settings, output, expected] of cases) expect(await scored(key, settings, output), `${key} ${JSON.stringify(settings)}`).toBe(expected);
  });

  it('test_evaluators.py test_auto_contains_json', async () => {
    const cases: [unknown, boolean][] = [
      ['Some random text {"key": "value"} more text', true],
      ['No JSON here!', false],
      ['{Malformed JSON, nope!}', false],
      ['{"valid": "json", "number": 123}', true],
      [{ message: 'The capital of Azerbaijan is Baku.' }, true],
      ['{"message": "The capital of Azerbaijan is Baku."}', true],
      ['The capital of Azerbaijan is Baku.', false],
    ];
    for (const [output, expected] of cases) expect(await scored('auto_contains_json', {}, output), JSON.stringify(output)).toBe(expected);
  });

  it('test_evaluators.py test_auto_json_diff: correct_answer_key is a setting of the JSON diff', async () => {
    const truth = { correct_answer: '{"user": {"name": "John", "details": {"age": 30, "location": "New York"}}}' };
    const upper = '{"USER": {"NAME": "John", "DETAILS": {"AGE": 30, "LOCATION": "New York"}}}';
    const settings = (fields: Record<string, unknown>) => ({
      predict_keys: true,
      compare_schema_only: false,
      case_insensitive_keys: false,
      correct_answer_key: 'correct_answer',
      ...fields,
    });
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [truth, settings({}), truth.correct_answer],
      [
        { correct_answer: '{"user": {"name": "John", "details": {"age": "30", "location": "New York"}}}' },
        settings({ compare_schema_only: true }),
        '{"user": {"name": "John", "details": {"age": "30", "location": "New York"}}}',
      ],
      [truth, settings({ case_insensitive_keys: true }), upper],
    ];
    for (const [testcase, values, output] of cases) {
      const value = await scored('auto_json_diff', values, output, testcase, 'number');
      // Agenta asserts 0 ≤ score ≤ 1; these outputs reproduce the expected JSON, so Assay scores 1.
      expect(value, JSON.stringify(values)).toBe(1);
    }
    // Keys that differ in case do not match without case_insensitive_keys.
    expect(await scored('auto_json_diff', settings({}), upper, truth, 'number')).toBe(0);
    // The key names another column.
    expect(await scored('auto_json_diff', settings({ correct_answer_key: 'expected' }), '{"a": 1}', { expected: '{"a": 1}' }, 'number')).toBe(1);
  });

  it('test_evaluators.py test_auto_levenshtein_distance', async () => {
    const cases: [Record<string, unknown>, string, boolean | number][] = [
      [{ threshold: 5, correct_answer_key: 'correct_answer' }, 'hello world', true],
      [{ threshold: 5, correct_answer_key: 'correct_answer' }, 'hola mundo', false],
      [{ threshold: 2, correct_answer_key: 'correct_answer' }, 'hello world!', true],
      [{ threshold: 10, correct_answer_key: 'correct_answer' }, 'hello wor', true],
      [{ correct_answer_key: 'correct_answer' }, 'hello worl', 1],
      [{ correct_answer_key: 'correct_answer' }, 'helo world', 1],
    ];
    for (const [settings, truth, expected] of cases) {
      const type = typeof expected === 'boolean' ? 'bool' : 'number';
      expect(await scored('auto_levenshtein_distance', settings, 'hello world', { correct_answer: truth }, type), `${truth}`).toBe(expected);
    }
  });

  it("accepts Agenta's code-evaluator settings (version, threshold, correct_answer_key) and still refuses typos", async () => {
    const code = 'function evaluate(app_params, inputs, output, correct_answer) { return output === correct_answer ? 1 : 0; }';
    const stored = await saved('auto_custom_code_run', { code, runtime: 'javascript', correct_answer_key: 'expected', version: '1', threshold: 0.5 });
    expect(stored).toMatchObject({ code, correct_answer_key: 'expected', version: '1', threshold: 0.5 });
    expect(await valueOf('number', score('auto_custom_code_run', stored, { output: 'Paris', testcase: { expected: 'Paris' } }))).toBe(1);
    expect(await valueOf('number', score('auto_custom_code_run', stored, { output: 'Lyon', testcase: { expected: 'Paris' } }))).toBe(0);

    const webhook = await saved('auto_webhook_test', { webhook_url: 'http://127.0.0.1:9/score', correct_answer_key: 'testcase.expected' });
    expect(webhook.correct_answer_key).toBe('testcase.expected');

    // version and threshold belong to the code evaluator only; other unknown settings stay a 422.
    for (const [key, settings, field] of [
      ['auto_exact_match', { version: '1' }, 'version'],
      ['auto_custom_code_run', { code, thresold: 1 }, 'thresold'],
      ['auto_custom_code_run', { code, correct_answer_kye: 'x' }, 'correct_answer_kye'],
    ] as const) {
      const response = await server.request('POST', '/evaluators/configs', {
        app_id: appId,
        name: `typo ${field}`,
        evaluator_key: key,
        settings_values: settings,
      });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([{ loc: ['body', 'settings_values', field], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]);
    }
  });

  it('auto_regex_test honours case_sensitive (default false, as before)', async () => {
    expect(await scored('auto_regex_test', { regex_pattern: '^paris$' }, 'PARIS')).toBe(true);
    expect(await scored('auto_regex_test', { regex_pattern: '^paris$', case_sensitive: false }, 'PARIS')).toBe(true);
    expect(await scored('auto_regex_test', { regex_pattern: '^paris$', case_sensitive: true }, 'PARIS')).toBe(false);
    expect(await scored('auto_regex_test', { regex_pattern: '^paris$', case_sensitive: 'yes' }, 'paris')).toBe(true);
    // A config stored before the setting existed (no case_sensitive at all) searches case-insensitively.
    const stored = { regex_pattern: '^paris$', regex_should_match: true };
    expect(await valueOf('bool', Promise.resolve(getScorer('auto_regex_test')!(stored, scoringCase({ output: 'Paris' }), context())))).toBe(true);
  });
});
