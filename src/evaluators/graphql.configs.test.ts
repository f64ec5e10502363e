// The evaluators' GraphQL fields: the catalogue with typed settings, and configs created, read,
// listed, updated and deleted with the same validation faults as REST.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createApp } from '../../test/helpers/evaluations.js';
import { ISO, UNKNOWN_ID } from '../../test/helpers/contract.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();
let appId: string;

beforeAll(async () => {
  appId = await createApp(server, 'evaluators-app');
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
    expect(code.settingsTemplate.map((setting: { name: string }) => setting.name)).toEqual(['code', 'runtime', 'version', 'correct_answer_key']);
    expect(code.settingsTemplate[0]).toMatchObject({ type: 'CODE', required: true, default: null, min: null, max: null });
    expect(code.settingsTemplate[1]).toMatchObject({ type: 'MULTIPLE_CHOICE', default: 'python', options: ['python', 'javascript'] });
    expect(code.settingsTemplate[2]).toMatchObject({ type: 'MULTIPLE_CHOICE', default: '1', options: ['1', '2'] });
    const critique = await server.graphql(`{ evaluator(key: "auto_ai_critique") { settingsTemplate { name type default } } }`);
    expect(critique.data.evaluator.settingsTemplate[0]).toMatchObject({ name: 'prompt_template', type: 'MESSAGES' });
    expect(critique.data.evaluator.settingsTemplate[0].default).toHaveLength(2);
    expect((await server.graphql(`{ evaluator(key: "nope") { key } }`)).data.evaluator).toBeNull();
  });

  it('creates, reads, lists, updates and deletes a config', async () => {
    const gqlAppId = await createApp(server, 'evaluators-graphql-app');
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
