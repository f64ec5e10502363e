// Reading, updating and deleting evaluator configs over HTTP: lists by app, 404 for unknown ids and
// other projects' configs, settings re-validated on PUT, and a config in use kept from deletion.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createApp, createConfigFrom } from '../../test/helpers/evaluations.js';
import { EVALUATOR_CONFIG_FIELDS as CONFIG_FIELDS, UNKNOWN_ID } from '../../test/helpers/contract.js';

const server = useTestServer();
let appId: string;
const createConfig = (body: Record<string, unknown>) => createConfigFrom(server, { app_id: appId, ...body });

beforeAll(async () => {
  appId = await createApp(server, 'evaluators-app');
});

describe('GET /evaluators/configs', () => {
  it('lists the configs of an app in creation order, and all of the project without a filter', async () => {
    const listAppId = await createApp(server, 'evaluators-list-app');
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
    const emptyAppId = await createApp(server, 'evaluators-empty-app');
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

  it("keeps a custom code config's runtime and version when an update leaves them out; a new config that names none is Python, version 1", async () => {
    const python = await createConfig({
      name: 'Code new',
      evaluator_key: 'auto_custom_code_run',
      settings_values: { code: 'def evaluate(*a):\n    return 1' },
    });
    expect(python.settings_values).toEqual({ code: 'def evaluate(*a):\n    return 1', runtime: 'python', version: '1', correct_answer_key: null });
    const javascript = await createConfig({
      name: 'Code js',
      evaluator_key: 'auto_custom_code_run',
      settings_values: { code: 'function evaluate() { return 1 }', runtime: 'javascript', version: '2' },
    });
    const updated = await server.request('PUT', `/evaluators/configs/${javascript.id}`, { settings_values: { code: 'function evaluate() { return 2 }' } });
    expect(updated.body.settings_values).toEqual({ code: 'function evaluate() { return 2 }', runtime: 'javascript', version: '2', correct_answer_key: null });
    // A config stored before configs recorded their runtime is JavaScript, and stays so.
    await server.assay.db.evaluatorConfig.update({ where: { id: javascript.id }, data: { settingsValues: { code: 'function evaluate() { return 3 }' } } });
    const legacy = await server.request('PUT', `/evaluators/configs/${javascript.id}`, { settings_values: { code: 'function evaluate() { return 4 }' } });
    expect(legacy.body.settings_values).toEqual({ code: 'function evaluate() { return 4 }', runtime: 'javascript', version: '1', correct_answer_key: null });
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
