// POST /evaluators/configs over HTTP: the contract shape (docs/contract.md 2.5), every validation
// fault with its loc and type, the settings template's rules, 404 for an unknown app, 409 for a name taken.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createApp, createConfigFrom } from '../../test/helpers/evaluations.js';
import { EVALUATOR_CONFIG_FIELDS as CONFIG_FIELDS, ISO, UNKNOWN_ID, UUID7 } from '../../test/helpers/contract.js';

const server = useTestServer();
let appId: string;
let otherAppId: string;
const createConfig = (body: Record<string, unknown>) => createConfigFrom(server, { app_id: appId, ...body });
/** POST /evaluators/configs for the file's app, whatever it answers. */
const postConfig = (body: Record<string, unknown>) => server.request('POST', '/evaluators/configs', { app_id: appId, ...body });

beforeAll(async () => {
  appId = await createApp(server, 'evaluators-app');
  otherAppId = await createApp(server, 'evaluators-other-app');
});

describe('POST /evaluators/configs', () => {
  it('creates a config with exactly the docs/contract.md 2.5 shape and stores the defaults', async () => {
    const response = await postConfig({
      name: 'Shape',
      evaluator_key: 'auto_similarity_match',
      settings_values: { correct_answer_key: 'expected' },
    });
    expect(response.status).toBe(200);
    const config = response.body;
    expect(Object.keys(config).sort()).toEqual(CONFIG_FIELDS);
    expect(config.id).toMatch(UUID7);
    expect(config.name).toBe('Shape');
    expect(typeof config.project_id).toBe('string');
    expect(config.evaluator_key).toBe('auto_similarity_match');
    expect(config.settings_values).toEqual({ similarity_threshold: 0.5, correct_answer_key: 'expected' });
    expect(config.created_at).toMatch(ISO);
    expect(config.updated_at).toMatch(ISO);
    const read = await server.request('GET', `/evaluators/configs/${config.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(config);
  });

  it('answers under /api and with a trailing slash too', async () => {
    const config = await server.request('POST', '/api/evaluators/configs/', {
      app_id: appId,
      name: 'Prefixed',
      evaluator_key: 'auto_contains_json',
      settings_values: {},
    });
    expect(config.status).toBe(200);
    expect(config.body.settings_values).toEqual({});
    expect((await server.request('GET', `/api/evaluators/configs/${config.body.id}/`)).body).toEqual(config.body);
  });

  it('lists every missing field', async () => {
    const response = await server.request('POST', '/evaluators/configs', {});
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [
        { loc: ['body', 'app_id'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'evaluator_key'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'settings_values'], msg: 'Field required', type: 'missing' },
      ],
    });
  });

  it('refuses a request without a body and malformed JSON', async () => {
    const empty = await server.request('POST', '/evaluators/configs');
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
    const malformed = await server.request('POST', '/evaluators/configs', '{"name": ');
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].type).toBe('json_invalid');
  });

  it('lists wrong types of the top-level fields', async () => {
    const response = await server.request('POST', '/evaluators/configs', { app_id: 5, name: ['x'], evaluator_key: 3, settings_values: [] });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      { loc: ['body', 'app_id'], msg: 'Input should be a valid string', type: 'string_type' },
      { loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type' },
      { loc: ['body', 'evaluator_key'], msg: expect.stringContaining("'auto_exact_match'"), type: 'enum' },
      { loc: ['body', 'settings_values'], msg: 'Input should be a valid dictionary', type: 'dict_type' },
    ]);
  });

  it('refuses an empty name', async () => {
    const response = await postConfig({
      name: '  ',
      evaluator_key: 'auto_exact_match',
      settings_values: {},
    });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([{ loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short' }]);
  });

  it('refuses an unknown evaluator key, listing the valid ones, without judging the settings', async () => {
    const response = await postConfig({
      name: 'Unknown',
      evaluator_key: 'auto_exact_matc',
      settings_values: { anything: 1 },
    });
    expect(response.status).toBe(422);
    expect(response.body.detail).toHaveLength(1);
    expect(response.body.detail[0]).toMatchObject({ loc: ['body', 'evaluator_key'], type: 'enum' });
    expect(response.body.detail[0].msg).toMatch(/^Input should be 'auto_exact_match', .* or 'rag_context_relevancy'$/);
  });

  it('names a missing required setting', async () => {
    const response = await postConfig({
      name: 'Regex',
      evaluator_key: 'auto_regex_test',
      settings_values: { regex_should_match: false },
    });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [{ loc: ['body', 'settings_values', 'regex_pattern'], msg: 'Field required', type: 'missing' }],
    });
  });

  it('lists top-level and nested faults together', async () => {
    const response = await postConfig({
      evaluator_key: 'auto_ai_critique',
      settings_values: { prompt_template: [{ role: 'critic', content: 'Rate {prediction}' }], model: '', temperature: 0 },
    });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'settings_values', 'prompt_template', 0, 'role'], msg: "Input should be 'system', 'user' or 'assistant'", type: 'enum' },
      { loc: ['body', 'settings_values', 'model'], msg: 'String should have at least 1 character', type: 'string_too_short' },
      { loc: ['body', 'settings_values', 'temperature'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it.each([
    ['auto_similarity_match', { similarity_threshold: 1.5 }, 'similarity_threshold', 'less_than_equal'],
    ['auto_similarity_match', { similarity_threshold: 'half' }, 'similarity_threshold', 'float_parsing'],
    ['auto_similarity_match', { similarity_threshold: null }, 'similarity_threshold', 'float_type'],
    ['auto_regex_test', { regex_pattern: '[a-' }, 'regex_pattern', 'value_error'],
    ['auto_regex_test', { regex_pattern: 'a', regex_should_match: 'maybe' }, 'regex_should_match', 'bool_parsing'],
    ['auto_regex_test', { regex_pattern: 'a', regex_should_match: [] }, 'regex_should_match', 'bool_type'],
    ['field_match_test', {}, 'json_field', 'missing'],
    ['auto_json_diff', { predict_keys: 2 }, 'predict_keys', 'bool_parsing'],
    ['auto_custom_code_run', { code: 'x', runtime: 'ruby' }, 'runtime', 'enum'],
    ['auto_webhook_test', { webhook_url: 'file:///etc/passwd' }, 'webhook_url', 'url_scheme'],
    ['auto_webhook_test', { webhook_url: 'nope' }, 'webhook_url', 'url_parsing'],
    ['auto_starts_with', { prefix: '' }, 'prefix', 'string_too_short'],
    ['auto_contains_any', { substrings: null }, 'substrings', 'string_type'],
    ['auto_levenshtein_distance', { threshold: -2 }, 'threshold', 'greater_than_equal'],
    ['rag_faithfulness', { question_key: 7 }, 'question_key', 'string_type'],
    ['auto_exact_match', { correct_answer_kye: 'x' }, 'correct_answer_kye', 'extra_forbidden'],
  ])('%s with %j: 422 at settings_values.%s (%s)', async (evaluator_key, settings_values, field, type) => {
    const response = await postConfig({ name: 'Faulty', evaluator_key, settings_values });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([{ loc: ['body', 'settings_values', field], msg: expect.any(String), type }]);
  });

  it('says why a regex does not compile, and refuses lookaround and backreferences (RE2)', async () => {
    const faultsFor = async (regex_pattern: string) => {
      const response = await postConfig({
        name: 'Bad regex',
        evaluator_key: 'auto_regex_test',
        settings_values: { regex_pattern },
      });
      expect(response.status).toBe(422);
      return response.body.detail;
    };
    expect(await faultsFor('*start')).toEqual([
      {
        loc: ['body', 'settings_values', 'regex_pattern'],
        msg: 'Invalid regular expression: missing argument to repetition operator: "*"',
        type: 'value_error',
      },
    ]);
    expect(await faultsFor('^(?!.*refund).*$')).toEqual([
      {
        loc: ['body', 'settings_values', 'regex_pattern'],
        msg: 'Invalid regular expression: lookahead and lookbehind ("(?!…)") are not supported: patterns run on RE2, in time linear in the text (docs/evaluators.md)',
        type: 'value_error',
      },
    ]);
    expect(await faultsFor('(\\w)\\1')).toEqual([
      {
        loc: ['body', 'settings_values', 'regex_pattern'],
        msg: expect.stringMatching(/^Invalid regular expression: backreferences \("\\1"\) are not supported/),
        type: 'value_error',
      },
    ]);
  });

  it('answers 404 for an unknown or malformed app_id', async () => {
    for (const id of [UNKNOWN_ID, 'not-an-id']) {
      const response = await server.request('POST', '/evaluators/configs', {
        app_id: id,
        name: 'Orphan',
        evaluator_key: 'auto_exact_match',
        settings_values: {},
      });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: `App with id ${id} not found` });
    }
  });

  it('refuses a duplicate name in the same app with 409, but allows it in another app', async () => {
    await createConfig({ name: 'Twice', evaluator_key: 'auto_exact_match', settings_values: {} });
    const duplicate = await postConfig({
      name: 'Twice',
      evaluator_key: 'auto_contains',
      settings_values: { substring: 'x' },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ detail: `An evaluator config named Twice already exists in app ${appId}` });
    const elsewhere = await server.request('POST', '/evaluators/configs', {
      app_id: otherAppId,
      name: 'Twice',
      evaluator_key: 'auto_exact_match',
      settings_values: {},
    });
    expect(elsewhere.status).toBe(200);
  });
});
