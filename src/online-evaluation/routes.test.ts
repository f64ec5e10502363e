// The evaluation rule routes: creation with defaults, a 422 naming the field for every bad value,
// 409 on a taken name, 404 for unknown ids and for another project's, versions on PATCH, previews
// that store nothing, and the same through GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { createApp, createConfig } from '../../test/helpers/evaluations.js';
import { legacySpan } from '../../test/helpers/spans.js';
import { globalId } from '../shared/graphql/ids.js';

let server: TestServer;
let configId: string;

beforeAll(async () => {
  server = await startServer();
  const appId = await createApp(server);
  configId = (await createConfig(server, appId, 'auto_regex_test', { regex_pattern: 'Paris', regex_should_match: true }, 'mentions-paris')).id;
  const ingested = await server.request('POST', '/observability/trace', {
    trace: 'preview-trace',
    spans: [
      legacySpan('root', null, 0, 2, {
        spankind: 'workflow',
        environment: 'production',
        session_id: 's-1',
        inputs: { country: 'France' },
        outputs: { answer: 'Paris' },
      }),
      legacySpan('llm', 'root', 0.5, 1.5, { spankind: 'llm', environment: 'production', inputs: { prompt: 'capital?' }, outputs: { text: 'Lyon' } }),
    ],
  });
  expect(ingested.status).toBe(200);
});

afterAll(async () => {
  await server?.close();
});

const create = (body: Record<string, unknown>) => server.request('POST', '/evaluation-rules', { evaluator_config_id: configId, ...body });

describe('POST /evaluation-rules', () => {
  it('creates a rule with its defaults: every trace, all sampled, no delay, the config’s name as score name', async () => {
    const created = await create({ name: 'defaults' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'defaults',
      enabled: true,
      target: 'trace',
      filter: {},
      sampling_rate: 1,
      delay_seconds: 0,
      evaluator_config_id: configId,
      mapping: null,
      score_name: 'mentions-paris',
      daily_cost_limit_usd: null,
      status: 'active',
      paused_reason: null,
      version: 1,
    });
    expect((await server.request('GET', `/evaluation-rules/${created.body.id}`)).body).toEqual(created.body);
    expect((await server.request('GET', '/evaluation-rules')).body.map((rule: any) => rule.name)).toContain('defaults');
  });

  it.each([
    [{ sampling_rate: 0 }, ['body', 'sampling_rate']],
    [{ sampling_rate: 1.5 }, ['body', 'sampling_rate']],
    [{ delay_seconds: -1 }, ['body', 'delay_seconds']],
    [{ target: 'conversation' }, ['body', 'target']],
    [{ filter: { environment: 'assay-evaluation' } }, ['body', 'filter', 'environment']],
    [{ filter: { colour: 'blue' } }, ['body', 'filter']],
    [{ filter: { spankind: ['NOPE'] } }, ['body', 'filter', 'spankind', 0]],
    [{ filter: { min_cost: 2, max_cost: 1 } }, ['body', 'filter', 'min_cost']],
    [{ mapping: { inputs: 'input.question' } }, ['body', 'mapping', 'inputs']],
    [{ daily_cost_limit_usd: -1 }, ['body', 'daily_cost_limit_usd']],
    [{ name: '' }, ['body', 'name']],
  ])('refuses %j with a 422 at %j', async (body, loc) => {
    const response = await create({ name: 'bad', ...body });
    expect(response.status, response.text).toBe(422);
    expect(response.body.detail.map((issue: any) => issue.loc)).toContainEqual(loc);
  });

  it('answers 404 for an evaluator config the project does not have, as evaluations do', async () => {
    const response = await create({ name: 'no config', evaluator_config_id: 'no-such-config' });
    expect(response.status).toBe(404);
    expect(response.body.detail).toMatch(/no-such-config/);
  });

  it('refuses a name the project already uses with a 409', async () => {
    expect((await create({ name: 'taken' })).status).toBe(200);
    expect((await create({ name: 'taken' })).status).toBe(409);
  });
});

describe('GET/PATCH/DELETE /evaluation-rules/{id}', () => {
  it('raises the version when what the rule evaluates changes, not when it is renamed or disabled', async () => {
    const rule = (await create({ name: 'versioned' })).body;
    const renamed = await server.request('PATCH', `/evaluation-rules/${rule.id}`, { name: 'versioned-2', enabled: false });
    expect(renamed.body).toMatchObject({ name: 'versioned-2', enabled: false, version: 1 });
    const refiltered = await server.request('PATCH', `/evaluation-rules/${rule.id}`, { filter: { environment: 'production' }, score_name: 'paris' });
    expect(refiltered.body).toMatchObject({ filter: { environment: 'production' }, score_name: 'paris', version: 2 });
    const back = await server.request('PATCH', `/evaluation-rules/${rule.id}`, { score_name: null });
    expect(back.body).toMatchObject({ score_name: 'mentions-paris', version: 3 });
    expect((await server.request('PATCH', `/evaluation-rules/${rule.id}`, { sampling_rate: 0 })).status).toBe(422);
  });

  it('answers 404 for unknown ids and for the ids of another project alike', async () => {
    const other = await server.request('POST', '/projects', { name: 'rules-other-project' });
    expect(other.status, other.text).toBe(200);
    // With auth off every request acts in the default project: the other project's rule is made directly.
    const foreign = await server.assay.db.evaluationRule.create({
      data: { projectId: other.body.id, name: 'theirs', target: 'trace', filter: {}, evaluatorConfigId: configId, scoreName: 'theirs' },
    });
    for (const id of [foreign.id, 'no-such-rule']) {
      for (const [method, path, body] of [
        ['GET', `/evaluation-rules/${id}`],
        ['PATCH', `/evaluation-rules/${id}`, { enabled: false }],
        ['GET', `/evaluation-rules/${id}/jobs`],
        ['GET', `/evaluation-rules/${id}/stats`],
        ['POST', `/evaluation-rules/${id}/preview`, { trace_id: 'preview-trace' }],
        ['DELETE', `/evaluation-rules/${id}`],
      ] as const) {
        expect((await server.request(method, path, body)).status, `${method} ${path}`).toBe(404);
      }
    }
    expect((await server.request('GET', '/evaluation-rules')).body.map((rule: any) => rule.id)).not.toContain(foreign.id);
    expect(await server.assay.db.evaluationRule.findUnique({ where: { id: foreign.id } })).toMatchObject({ enabled: true });
    const mine = (await create({ name: 'mine' })).body;
    expect((await server.request('DELETE', `/evaluation-rules/${mine.id}`)).status).toBe(204);
    expect((await server.request('GET', `/evaluation-rules/${mine.id}`)).status).toBe(404);
  });
});

describe('previews', () => {
  it('runs an unsaved rule on a trace: the variables, the result, nothing stored', async () => {
    const preview = await server.request('POST', '/evaluation-rules/preview', {
      rule: { name: 'unsaved', evaluator_config_id: configId, filter: { environment: 'production' }, mapping: { output: '$.output.answer' } },
      trace_id: 'preview-trace',
    });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toEqual({
      matches: true,
      target: { type: 'trace', trace_id: 'preview-trace', span_id: null, session_id: null },
      variables: { inputs: { country: 'France' }, output: 'Paris', expected: null },
      result: { type: 'bool', value: true, error: null },
      cost: 0,
    });
    expect(await server.assay.db.evaluationRuleJob.count()).toBe(0);
    expect(await server.assay.db.score.count({ where: { source: 'online' } })).toBe(0);
  });

  it('runs a saved span rule on the first matching span, and says when nothing matches', async () => {
    const rule = (await create({ name: 'llm spans', target: 'span', filter: { spankind: ['LLM'] } })).body;
    const preview = await server.request('POST', `/evaluation-rules/${rule.id}/preview`, { trace_id: 'preview-trace' });
    expect(preview.body).toMatchObject({
      matches: true,
      target: { type: 'span', span_id: 'llm' },
      variables: { inputs: { prompt: 'capital?' }, output: { text: 'Lyon' } },
    });
    expect(preview.body.result).toEqual({ type: 'bool', value: false, error: null });
    const staging = await server.request('POST', '/evaluation-rules/preview', {
      rule: { name: 'staging', evaluator_config_id: configId, filter: { environment: 'staging' } },
      trace_id: 'preview-trace',
    });
    expect(staging.body.matches).toBe(false);
    const unknown = await server.request('POST', `/evaluation-rules/${rule.id}/preview`, { trace_id: 'no-such-trace' });
    expect(unknown.status).toBe(404);
  });
});

describe('GraphQL', () => {
  it('creates, reads with stats and jobs, previews and deletes a rule, with the REST checks', async () => {
    const config = globalId('EvaluatorConfig', configId);
    const created = await server.graphql(
      `mutation($config: ID!) { createEvaluationRule(input: { name: "graphql rule", target: SESSION, samplingRate: 0.5, evaluatorConfigId: $config, filter: { environment: "production" } }) {
        id databaseId name target samplingRate scoreName status version evaluatorConfig { name }
        stats { jobs { status count } skipped { reason count } costUsd lastErrors { message } }
        jobs(first: 5) { edges { node { id } } pageInfo { hasNextPage } } } }`,
      { config },
    );
    expect(created.errors).toBeUndefined();
    const rule = created.data.createEvaluationRule;
    expect(rule).toMatchObject({
      name: 'graphql rule',
      target: 'SESSION',
      samplingRate: 0.5,
      scoreName: 'mentions-paris',
      status: 'ACTIVE',
      version: 1,
      evaluatorConfig: { name: 'mentions-paris' },
    });
    expect(rule.stats.jobs).toContainEqual({ status: 'DONE', count: 0 });
    expect(rule.jobs.edges).toEqual([]);

    const bad = await server.graphql(
      `mutation($config: ID!) { createEvaluationRule(input: { name: "bad", samplingRate: 0, evaluatorConfigId: $config }) { id } }`,
      { config },
    );
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(bad.errors[0].extensions)).toContain('sampling_rate');

    const preview = await server.graphql(
      `mutation($id: ID!) { previewEvaluationRule(id: $id, traceId: "preview-trace") { matches target { type sessionId } result } }`,
      { id: rule.id },
    );
    expect(preview.data.previewEvaluationRule).toMatchObject({
      matches: true,
      target: { type: 'SESSION', sessionId: 's-1' },
      result: { type: 'bool', value: true },
    });

    const listed = await server.graphql('{ evaluationRules(first: 100) { edges { node { name } } } }');
    expect(listed.data.evaluationRules.edges.map((edge: any) => edge.node.name)).toContain('graphql rule');

    const updated = await server.graphql(`mutation($id: ID!) { updateEvaluationRule(id: $id, input: { enabled: false }) { enabled version } }`, {
      id: rule.id,
    });
    expect(updated.data.updateEvaluationRule).toEqual({ enabled: false, version: 1 });
    const deleted = await server.graphql(`mutation($id: ID!) { deleteEvaluationRule(id: $id) }`, { id: rule.id });
    expect(deleted.data.deleteEvaluationRule).toBe(rule.id);
    expect((await server.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id: rule.id })).data.node).toBeNull();
  });
});
