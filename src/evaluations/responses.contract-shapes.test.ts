// The contract shapes of Evaluation (2.4) and EvaluationScenario (2.3) as read over REST and
// GraphQL. Rows are stored directly here; creating and running evaluations is tested elsewhere.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { EVALUATION_FIELDS } from '../../test/helpers/evaluations.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();
let appId: string;
let configIds: string[];
let running: string;
let finished: string;

beforeAll(async () => {
  appId = (await server.request('POST', '/apps', { app_name: 'reads' })).body.app_id;
  const variant = (await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'v1', kind: 'endpoint', uri: 'http://127.0.0.1:9/' })).body;
  configIds = [];
  for (const [name, evaluator_key] of [
    ['exact', 'auto_exact_match'],
    ['json', 'auto_contains_json'],
  ]) {
    configIds.push((await server.request('POST', '/evaluators/configs', { app_id: appId, name, evaluator_key, settings_values: {} })).body.id);
  }
  const db = server.assay.db;
  const project = await db.project.findFirstOrThrow();
  const revision = await db.variantRevision.findFirstOrThrow({ where: { variantId: variant.variant_id } });
  const base = {
    projectId: project.id,
    appId,
    variantId: variant.variant_id,
    variantName: 'v1',
    variantRevisionId: revision.id,
    revision: 1,
    testsetId: 'ts-1',
    testsetName: 'capitals',
    rateLimit: { batch_size: 10, max_retries: 0, retry_delay: 0, delay_between_batches: 0 },
  };
  running = (await db.evaluation.create({ data: { ...base, status: 'EVALUATION_STARTED', total: 2, done: 1 } })).id;
  finished = (
    await db.evaluation.create({
      data: {
        ...base,
        status: 'EVALUATION_FINISHED_WITH_ERRORS',
        averageLatency: 0.25,
        averageCost: null,
        totalCost: null,
        evaluators: {
          create: [
            // Stored in reverse: answers follow `position`, not insertion order.
            {
              evaluatorConfigId: configIds[1],
              position: 1,
              aggregate: { type: 'error', value: null, error: { message: 'no case succeeded', stacktrace: null } },
            },
            { evaluatorConfigId: configIds[0], position: 0, aggregate: { type: 'number', value: 0.5, error: null } },
          ],
        },
      },
    })
  ).id;
  for (const position of [1, 0]) {
    await db.evaluationScenario.create({
      data: {
        projectId: project.id,
        evaluationId: finished,
        position,
        inputs: [{ name: 'country', type: 'text', value: position === 0 ? 'France' : 'Peru' }],
        output: { type: 'text', value: position === 0 ? 'Paris' : 'Lima?', error: null },
        cost: position === 0 ? 0.001 : null,
        latency: 0.25,
        correctAnswers: [{ key: 'correct_answer', value: position === 0 ? 'Paris' : 'Lima' }],
        // The first case's calls were traced; the second's trace is missing (a scenario stored without one).
        traceId: position === 0 ? '4bf92f3577b34da6a3ce929d0e0e4736' : null,
        results: {
          create: [
            { evaluatorConfigId: configIds[1], type: 'error', error: { message: 'no JSON', stacktrace: 'at line 1' } },
            { evaluatorConfigId: configIds[0], type: 'bool', value: position === 0, score: position === 0 ? 1 : 0 },
          ],
        },
      },
    });
  }
});

describe('reading evaluations', () => {
  it('answers an Evaluation with every field of docs/contract.md 2.4', async () => {
    const response = await server.request('GET', `/evaluations/${finished}`);
    expect(response.status).toBe(200);
    const evaluation = response.body;
    expect(Object.keys(evaluation).sort()).toEqual(EVALUATION_FIELDS);
    expect(evaluation).toMatchObject({
      id: finished,
      app_id: appId,
      variant_names: ['v1'],
      revisions: ['1'],
      testset_id: 'ts-1',
      testset_name: 'capitals',
      status: { type: 'status', value: 'EVALUATION_FINISHED_WITH_ERRORS', error: null },
      average_latency: { type: 'latency', value: 0.25, error: null },
      average_cost: { type: 'error', value: null, error: { message: 'No cost was measured for this evaluation', stacktrace: null } },
    });
    expect(evaluation.variant_ids).toHaveLength(1);
    expect(evaluation.variant_revision_ids).toHaveLength(1);
    expect(evaluation.aggregated_results.map((a: any) => a.evaluator_config.id)).toEqual(configIds);
    expect(Object.keys(evaluation.aggregated_results[0].evaluator_config).sort()).toEqual([
      'created_at',
      'evaluator_key',
      'id',
      'name',
      'project_id',
      'settings_values',
      'updated_at',
    ]);
    expect(evaluation.aggregated_results[0].result).toEqual({ type: 'number', value: 0.5, error: null });
  });

  it('gives null totals and no aggregates while an evaluation runs', async () => {
    const evaluation = (await server.request('GET', `/evaluations/${running}`)).body;
    expect(evaluation.status).toEqual({ type: 'status', value: 'EVALUATION_STARTED', error: null });
    expect(evaluation.aggregated_results).toEqual([]);
    expect([evaluation.average_cost, evaluation.total_cost, evaluation.average_latency]).toEqual([null, null, null]);
  });

  it('lists evaluations, filtered by app', async () => {
    const all = await server.request('GET', `/evaluations?app_id=${appId}`);
    expect(all.body.map((e: any) => e.id)).toEqual([running, finished]);
    expect((await server.request('GET', '/evaluations?app_id=other')).body).toEqual([]);
  });

  it('answers scenarios in test set order with every field of docs/contract.md 2.3 (operation 4.4)', async () => {
    const response = await server.request('GET', `/evaluations/${finished}/evaluation_scenarios`);
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(2);
    const [first, second] = response.body;
    expect(Object.keys(first).sort()).toEqual(['correct_answers', 'evaluation_id', 'id', 'inputs', 'is_pinned', 'note', 'outputs', 'results', 'trace_id']);
    expect(first).toMatchObject({
      evaluation_id: finished,
      inputs: [{ name: 'country', type: 'text', value: 'France' }],
      outputs: [{ result: { type: 'text', value: 'Paris', error: null }, cost: 0.001, latency: 0.25 }],
      correct_answers: [{ key: 'correct_answer', value: 'Paris' }],
      is_pinned: false,
      note: '',
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
    // Results follow the evaluation's config order.
    expect(first.results).toEqual([
      { evaluator_config: configIds[0], result: { type: 'bool', value: true, error: null } },
      { evaluator_config: configIds[1], result: { type: 'error', value: null, error: { message: 'no JSON', stacktrace: 'at line 1' } } },
    ]);
    expect(second.inputs[0].value).toBe('Peru');
    expect(second.outputs[0].cost).toBeNull();
    expect(second.trace_id).toBeNull();
  });

  it('answers 404 for an unknown or malformed evaluation id', async () => {
    for (const path of ['/evaluations/nope', '/evaluations/nope/evaluation_scenarios', '/api/evaluations/%20/evaluation_scenarios/']) {
      const response = await server.request('GET', path);
      expect(response.status, path).toBe(404);
      expect(response.body.detail).toMatch(/^Evaluation with id .* not found$/);
    }
  });

  it('reads the same evaluation through GraphQL', async () => {
    const response = await server.graphql(
      `query($id: ID!) { evaluation(id: $id) { id status { type value } averageLatency { value } aggregatedResults { evaluatorConfig { id name } result { type value } }
        scenarios(first: 5) { edges { node { position traceId inputs outputs { result { value } cost } results { evaluatorConfigId result { type value } } } } } } }`,
      { id: globalId('Evaluation', finished) },
    );
    expect(response.errors).toBeUndefined();
    const evaluation = response.data.evaluation;
    expect(evaluation.status).toEqual({ type: 'status', value: 'EVALUATION_FINISHED_WITH_ERRORS' });
    expect(evaluation.aggregatedResults.map((a: any) => a.evaluatorConfig.name)).toEqual(['exact', 'json']);
    expect(evaluation.scenarios.edges.map((e: any) => e.node.outputs[0].result.value)).toEqual(['Paris', 'Lima?']);
    // The same trace ids as REST answers.
    const rest = (await server.request('GET', `/evaluations/${finished}/evaluation_scenarios`)).body;
    expect(evaluation.scenarios.edges.map((e: any) => e.node.traceId)).toEqual(rest.map((scenario: any) => scenario.trace_id));
    expect(rest.map((scenario: any) => scenario.trace_id)).toEqual(['4bf92f3577b34da6a3ce929d0e0e4736', null]);
  });
});
