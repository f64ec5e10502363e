// The evaluators REST routes and GraphQL fields, over HTTP against a real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';

let server: TestServer;
let appId: string;
let otherAppId: string;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';
const CONFIG_FIELDS = ['created_at', 'evaluator_key', 'id', 'name', 'project_id', 'settings_values', 'updated_at'];

async function createApp(name: string): Promise<string> {
  const response = await server.request('POST', '/apps', { app_name: name });
  expect(response.status).toBe(200);
  return response.body.app_id;
}

async function createConfig(body: Record<string, unknown>) {
  const response = await server.request('POST', '/evaluators/configs', { app_id: appId, ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

beforeAll(async () => {
  server = await startServer();
  appId = await createApp('evaluators-app');
  otherAppId = await createApp('evaluators-other-app');
});
afterAll(() => server.close());

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

describe('POST /evaluators/configs', () => {
  it('creates a config with exactly the docs/contract.md 2.5 shape and stores the defaults', async () => {
    const response = await server.request('POST', '/evaluators/configs', {
      app_id: appId,
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
    const response = await server.request('POST', '/evaluators/configs', {
      app_id: appId,
      name: '  ',
      evaluator_key: 'auto_exact_match',
      settings_values: {},
    });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([{ loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short' }]);
  });

  it('refuses an unknown evaluator key, listing the valid ones, without judging the settings', async () => {
    const response = await server.request('POST', '/evaluators/configs', {
      app_id: appId,
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
    const response = await server.request('POST', '/evaluators/configs', {
      app_id: appId,
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
    const response = await server.request('POST', '/evaluators/configs', {
      app_id: appId,
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
    const response = await server.request('POST', '/evaluators/configs', { app_id: appId, name: 'Faulty', evaluator_key, settings_values });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([{ loc: ['body', 'settings_values', field], msg: expect.any(String), type }]);
  });

  it('says why a regex does not compile, and refuses lookaround and backreferences (RE2)', async () => {
    const faultsFor = async (regex_pattern: string) => {
      const response = await server.request('POST', '/evaluators/configs', {
        app_id: appId,
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
    const duplicate = await server.request('POST', '/evaluators/configs', {
      app_id: appId,
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

describe('GET /evaluators/configs', () => {
  it('lists the configs of an app in creation order, and all of the project without a filter', async () => {
    const listAppId = await createApp('evaluators-list-app');
    const names = ['First', 'Second', 'Third'];
    const created = [];
    for (const name of names) {
      const response = await server.request('POST', '/evaluators/configs', {
        app_id: listAppId,
        name,
        evaluator_key: 'auto_ends_with',
        settings_values: { suffix: '.' },
      });
      created.push(response.body);
    }
    const listed = await server.request('GET', `/evaluators/configs?app_id=${listAppId}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual(created);
    const all = await server.request('GET', '/evaluators/configs');
    expect(all.status).toBe(200);
    const ids = all.body.map((config: { id: string }) => config.id);
    expect(ids).toEqual(expect.arrayContaining(created.map((config) => config.id)));
    expect(ids).toEqual([...ids].sort());
    for (const config of all.body) expect(Object.keys(config).sort()).toEqual(CONFIG_FIELDS);
  });

  it('answers an empty list for an app without configs, 404 for an unknown app, 422 for an empty filter', async () => {
    const emptyAppId = await createApp('evaluators-empty-app');
    expect((await server.request('GET', `/evaluators/configs?app_id=${emptyAppId}`)).body).toEqual([]);
    const unknown = await server.request('GET', `/evaluators/configs?app_id=${UNKNOWN_ID}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: `App with id ${UNKNOWN_ID} not found` });
    const empty = await server.request('GET', '/evaluators/configs?app_id=');
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([{ loc: ['query', 'app_id'], msg: 'String should have at least 1 character', type: 'string_too_short' }]);
  });
});

describe('GET /evaluators/configs/{id}', () => {
  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of [UNKNOWN_ID, 'nope']) {
      const response = await server.request('GET', `/evaluators/configs/${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: `EvaluatorConfig with id ${id} not found` });
    }
  });

  it("never serves another project's config", async () => {
    const db = server.assay.db;
    const project = await db.project.create({ data: { name: 'evaluators-foreign' } });
    const app = await db.app.create({ data: { projectId: project.id, name: 'foreign-app' } });
    const config = await db.evaluatorConfig.create({
      data: { projectId: project.id, appId: app.id, name: 'Foreign', evaluatorKey: 'auto_exact_match', settingsValues: {} },
    });
    expect((await server.request('GET', `/evaluators/configs/${config.id}`)).status).toBe(404);
    expect((await server.request('PUT', `/evaluators/configs/${config.id}`, { name: 'Mine' })).status).toBe(404);
    expect((await server.request('DELETE', `/evaluators/configs/${config.id}`)).status).toBe(404);
    expect((await server.request('GET', `/evaluators/configs?app_id=${app.id}`)).status).toBe(404);
    const all = await server.request('GET', '/evaluators/configs');
    expect(all.body.map((listed: { id: string }) => listed.id)).not.toContain(config.id);
    const create = await server.request('POST', '/evaluators/configs', {
      app_id: app.id,
      name: 'Intruder',
      evaluator_key: 'auto_exact_match',
      settings_values: {},
    });
    expect(create.status).toBe(404);
  });
});

describe('PUT /evaluators/configs/{id}', () => {
  it('renames a config and keeps its settings', async () => {
    const config = await createConfig({ name: 'Before', evaluator_key: 'auto_contains', settings_values: { substring: 'ok', case_sensitive: false } });
    const response = await server.request('PUT', `/evaluators/configs/${config.id}`, { name: 'After' });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(CONFIG_FIELDS);
    expect(response.body).toMatchObject({ id: config.id, name: 'After', evaluator_key: 'auto_contains', created_at: config.created_at });
    expect(response.body.settings_values).toEqual({ substring: 'ok', case_sensitive: false });
    expect(response.body.updated_at >= config.updated_at).toBe(true);
  });

  it('replaces the settings whole, filling defaults again', async () => {
    const config = await createConfig({ name: 'Replace', evaluator_key: 'auto_starts_with', settings_values: { prefix: 'A', case_sensitive: false } });
    const response = await server.request('PUT', `/evaluators/configs/${config.id}`, { settings_values: { prefix: 'B' } });
    expect(response.status).toBe(200);
    expect(response.body.name).toBe('Replace');
    expect(response.body.settings_values).toEqual({ prefix: 'B', case_sensitive: true });
    expect((await server.request('GET', `/evaluators/configs/${config.id}`)).body).toEqual(response.body);
  });

  it("keeps a custom code config's runtime when an update leaves it out; a new config that names none is Python", async () => {
    const python = await createConfig({
      name: 'Code new',
      evaluator_key: 'auto_custom_code_run',
      settings_values: { code: 'def evaluate(*a):\n    return 1' },
    });
    expect(python.settings_values).toEqual({ code: 'def evaluate(*a):\n    return 1', runtime: 'python', correct_answer_key: null });
    const javascript = await createConfig({
      name: 'Code js',
      evaluator_key: 'auto_custom_code_run',
      settings_values: { code: 'function evaluate() { return 1 }', runtime: 'javascript' },
    });
    const updated = await server.request('PUT', `/evaluators/configs/${javascript.id}`, { settings_values: { code: 'function evaluate() { return 2 }' } });
    expect(updated.body.settings_values).toEqual({ code: 'function evaluate() { return 2 }', runtime: 'javascript', correct_answer_key: null });
    // A config stored before configs recorded their runtime is JavaScript, and stays so.
    await server.assay.db.evaluatorConfig.update({ where: { id: javascript.id }, data: { settingsValues: { code: 'function evaluate() { return 3 }' } } });
    const legacy = await server.request('PUT', `/evaluators/configs/${javascript.id}`, { settings_values: { code: 'function evaluate() { return 4 }' } });
    expect(legacy.body.settings_values).toEqual({ code: 'function evaluate() { return 4 }', runtime: 'javascript', correct_answer_key: null });
    const switched = await server.request('PUT', `/evaluators/configs/${javascript.id}`, {
      settings_values: { code: 'def evaluate(*a):\n    return 5', runtime: 'python' },
    });
    expect(switched.body.settings_values.runtime).toBe('python');
  });

  it('accepts a config read back whole, its own evaluator_key included', async () => {
    const config = await createConfig({ name: 'Round trip', evaluator_key: 'auto_levenshtein_distance', settings_values: {} });
    expect(config.settings_values).toEqual({ threshold: null, correct_answer_key: null });
    const response = await server.request('PUT', `/evaluators/configs/${config.id}`, {
      ...config,
      settings_values: { ...config.settings_values, threshold: 3 },
    });
    expect(response.status).toBe(200);
    expect(response.body.settings_values).toEqual({ threshold: 3, correct_answer_key: null });
  });

  it("re-validates settings against the evaluator's template and refuses a change of evaluator", async () => {
    const config = await createConfig({ name: 'Strict', evaluator_key: 'auto_regex_test', settings_values: { regex_pattern: 'x' } });
    const response = await server.request('PUT', `/evaluators/configs/${config.id}`, {
      name: '',
      evaluator_key: 'auto_exact_match',
      settings_values: { regex_should_match: 'nah', flags: 'i' },
    });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short' },
      {
        loc: ['body', 'evaluator_key'],
        msg: 'The evaluator of a config cannot change (this one is auto_regex_test); create a new config instead',
        type: 'value_error',
      },
      { loc: ['body', 'settings_values', 'regex_pattern'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'settings_values', 'regex_should_match'], msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing' },
      { loc: ['body', 'settings_values', 'flags'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
    const unchanged = await server.request('GET', `/evaluators/configs/${config.id}`);
    expect(unchanged.body).toEqual(config);
  });

  it('refuses a body that is not an object and settings that are not a dictionary', async () => {
    const config = await createConfig({ name: 'Typed', evaluator_key: 'auto_exact_match', settings_values: {} });
    const list = await server.request('PUT', `/evaluators/configs/${config.id}`, [1]);
    expect(list.status).toBe(422);
    expect(list.body.detail).toEqual([
      { loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' },
    ]);
    const settings = await server.request('PUT', `/evaluators/configs/${config.id}`, { settings_values: 'x' });
    expect(settings.body.detail).toEqual([{ loc: ['body', 'settings_values'], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
  });

  it('answers 409 for a name taken in the app and 404 for an unknown id', async () => {
    await createConfig({ name: 'Taken', evaluator_key: 'auto_exact_match', settings_values: {} });
    const config = await createConfig({ name: 'Free', evaluator_key: 'auto_exact_match', settings_values: {} });
    const taken = await server.request('PUT', `/evaluators/configs/${config.id}`, { name: 'Taken' });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ detail: `An evaluator config named Taken already exists in app ${appId}` });
    const unknown = await server.request('PUT', `/evaluators/configs/${UNKNOWN_ID}`, { name: 'Whatever' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: `EvaluatorConfig with id ${UNKNOWN_ID} not found` });
  });
});

describe('DELETE /evaluators/configs/{id}', () => {
  it('deletes a config: 204, then 404', async () => {
    const config = await createConfig({ name: 'Doomed', evaluator_key: 'auto_exact_match', settings_values: {} });
    const response = await server.request('DELETE', `/evaluators/configs/${config.id}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await server.request('GET', `/evaluators/configs/${config.id}`)).status).toBe(404);
    const again = await server.request('DELETE', `/evaluators/configs/${config.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: `EvaluatorConfig with id ${config.id} not found` });
  });

  it('refuses with 409 to delete a config an evaluation uses', async () => {
    const config = await createConfig({ name: 'In use', evaluator_key: 'auto_exact_match', settings_values: {} });
    const db = server.assay.db;
    const evaluation = await db.evaluation.create({
      data: {
        projectId: config.project_id,
        appId,
        variantId: UNKNOWN_ID,
        variantName: 'v1',
        variantRevisionId: UNKNOWN_ID,
        revision: 1,
        rateLimit: { batch_size: 10, max_retries: 3, retry_delay: 3, delay_between_batches: 5 },
      },
    });
    await db.evaluationEvaluator.create({ data: { evaluationId: evaluation.id, evaluatorConfigId: config.id, position: 0 } });
    const response = await server.request('DELETE', `/evaluators/configs/${config.id}`);
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      detail: `Evaluator config ${config.id} is used by at least one evaluation and cannot be deleted; delete those evaluations first`,
    });
    expect((await server.request('GET', `/evaluators/configs/${config.id}`)).body).toEqual(config);
    // Once the evaluation is gone the config can go.
    await db.evaluation.delete({ where: { id: evaluation.id } });
    expect((await server.request('DELETE', `/evaluators/configs/${config.id}`)).status).toBe(204);
  });
});

describe('GraphQL', () => {
  const configFields = `id databaseId name appId evaluatorKey settingsValues createdAt updatedAt
    app { id name } evaluator { key resultType }`;

  it('lists the evaluators with typed settings', async () => {
    const { data, errors } = await server.graphql(`{
      evaluators { key name description resultType requiresLlmApiKeys
        settingsTemplate { name label type default required description min max options } }
    }`);
    expect(errors).toBeUndefined();
    expect(data.evaluators).toHaveLength(18);
    const similarity = data.evaluators.find((evaluator: { key: string }) => evaluator.key === 'auto_similarity_match');
    expect(similarity.resultType).toBe('BOOL');
    expect(similarity.settingsTemplate[0]).toEqual({
      name: 'similarity_threshold',
      label: 'Similarity threshold',
      type: 'NUMBER',
      default: 0.5,
      required: false,
      description: expect.any(String),
      min: 0,
      max: 1,
      options: null,
    });
    const code = data.evaluators.find((evaluator: { key: string }) => evaluator.key === 'auto_custom_code_run');
    expect(code.settingsTemplate.map((setting: { name: string }) => setting.name)).toEqual(['code', 'runtime', 'correct_answer_key']);
    expect(code.settingsTemplate[0]).toMatchObject({ type: 'CODE', required: true, default: null, min: null, max: null });
    expect(code.settingsTemplate[1]).toMatchObject({ type: 'MULTIPLE_CHOICE', default: 'python', options: ['python', 'javascript'] });
    const critique = await server.graphql(`{ evaluator(key: "auto_ai_critique") { settingsTemplate { name type default } } }`);
    expect(critique.data.evaluator.settingsTemplate[0]).toMatchObject({ name: 'prompt_template', type: 'MESSAGES' });
    expect(critique.data.evaluator.settingsTemplate[0].default).toHaveLength(2);
    expect((await server.graphql(`{ evaluator(key: "nope") { key } }`)).data.evaluator).toBeNull();
  });

  it('creates, reads, lists, updates and deletes a config', async () => {
    const gqlAppId = await createApp('evaluators-graphql-app');
    const created = await server.graphql(`mutation ($input: CreateEvaluatorConfigInput!) { createEvaluatorConfig(input: $input) { ${configFields} } }`, {
      input: { appId: globalId('App', gqlAppId), name: 'GQL', evaluatorKey: 'auto_contains_all', settingsValues: { substrings: 'a, b' } },
    });
    expect(created.errors).toBeUndefined();
    const config = created.data.createEvaluatorConfig;
    expect(config).toMatchObject({
      name: 'GQL',
      appId: globalId('App', gqlAppId),
      evaluatorKey: 'auto_contains_all',
      settingsValues: { substrings: 'a, b', case_sensitive: true },
      app: { id: globalId('App', gqlAppId), name: 'evaluators-graphql-app' },
      evaluator: { key: 'auto_contains_all', resultType: 'BOOL' },
    });
    expect(config.createdAt).toMatch(ISO);
    // REST sees the same config.
    const rest = await server.request('GET', `/evaluators/configs/${config.databaseId}`);
    expect(rest.body).toMatchObject({ id: config.databaseId, settings_values: config.settingsValues });

    const second = await server.graphql(`mutation ($input: CreateEvaluatorConfigInput!) { createEvaluatorConfig(input: $input) { id } }`, {
      input: { appId: globalId('App', gqlAppId), name: 'GQL 2', evaluatorKey: 'auto_exact_match', settingsValues: {} },
    });
    const read = await server.graphql(`query ($id: ID!) { evaluatorConfig(id: $id) { ${configFields} } }`, { id: config.id });
    expect(read.data.evaluatorConfig).toEqual(config);

    const listed = await server.graphql(
      `query ($app: ID) { evaluatorConfigs(appId: $app, first: 1) { edges { cursor node { id name } } pageInfo { hasNextPage endCursor } } }`,
      { app: globalId('App', gqlAppId) },
    );
    expect(listed.errors).toBeUndefined();
    expect(listed.data.evaluatorConfigs.edges.map((edge: { node: { name: string } }) => edge.node.name)).toEqual(['GQL']);
    expect(listed.data.evaluatorConfigs.pageInfo.hasNextPage).toBe(true);
    const next = await server.graphql(
      `query ($app: ID, $after: String) { evaluatorConfigs(appId: $app, first: 5, after: $after) { edges { node { id } } pageInfo { hasNextPage } } }`,
      { app: globalId('App', gqlAppId), after: listed.data.evaluatorConfigs.pageInfo.endCursor },
    );
    expect(next.data.evaluatorConfigs.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([second.data.createEvaluatorConfig.id]);
    expect(next.data.evaluatorConfigs.pageInfo.hasNextPage).toBe(false);

    const updated = await server.graphql(
      `mutation ($id: ID!, $input: UpdateEvaluatorConfigInput!) { updateEvaluatorConfig(id: $id, input: $input) { name settingsValues } }`,
      { id: config.id, input: { name: 'GQL renamed', settingsValues: { substrings: 'c', case_sensitive: false } } },
    );
    expect(updated.errors).toBeUndefined();
    expect(updated.data.updateEvaluatorConfig).toEqual({ name: 'GQL renamed', settingsValues: { substrings: 'c', case_sensitive: false } });

    const deleted = await server.graphql(`mutation ($id: ID!) { deleteEvaluatorConfig(id: $id) }`, { id: config.id });
    expect(deleted.data.deleteEvaluatorConfig).toBe(config.id);
    const gone = await server.graphql(`query ($id: ID!) { evaluatorConfig(id: $id) { id } }`, { id: config.id });
    expect(gone.data.evaluatorConfig).toBeNull();
    expect(gone.errors[0]).toMatchObject({ message: `EvaluatorConfig with id ${config.databaseId} not found`, extensions: { code: 'NOT_FOUND' } });
  });

  it('reports the same validation faults as REST', async () => {
    const settings = { similarity_threshold: 2, typo: 1 };
    const rest = await server.request('POST', '/evaluators/configs', {
      app_id: appId,
      name: 'GQL bad',
      evaluator_key: 'auto_similarity_match',
      settings_values: settings,
    });
    const result = await server.graphql(`mutation ($input: CreateEvaluatorConfigInput!) { createEvaluatorConfig(input: $input) { id } }`, {
      input: { appId: globalId('App', appId), name: 'GQL bad', evaluatorKey: 'auto_similarity_match', settingsValues: settings },
    });
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(result.errors[0].extensions.detail).toEqual(rest.body.detail);
    expect(rest.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'settings_values', 'similarity_threshold'],
      ['body', 'settings_values', 'typo'],
    ]);
    const update = await server.graphql(`mutation ($id: ID!, $input: UpdateEvaluatorConfigInput!) { updateEvaluatorConfig(id: $id, input: $input) { id } }`, {
      id: globalId('EvaluatorConfig', UNKNOWN_ID),
      input: { name: 'x' },
    });
    expect(update.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
