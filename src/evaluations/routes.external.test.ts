// Runs recorded from code (docs/experiments.md) through REST and GraphQL: created over a test set,
// cases added in batches with their outputs, traces and results, cost and latency read from the
// traces (one stored before its case, one after), finished with aggregates computed as for Assay's
// runs, and shown in the lists and the comparison beside a run Assay made. Then the faults: 422
// naming the field, 404 for unknown ids and another project's, 409 for ended runs and Assay's runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { type FakeEndpoint, startEndpoint } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';
import { ingestSpans, legacySpan } from '../../test/helpers/spans.js';
import { aggregate } from '../shared/statistics.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();
const app = fixtures.useApp(server, 'external-runs');
const endpoints: FakeEndpoint[] = [];
let testset: { id: string; name: string };
let rowIds: string[];
let assayRun: string;

const rows = [
  { word: 'abc', correct_answer: 'ABC' },
  { word: 'Hi', correct_answer: 'HI' },
  { word: 'XY', correct_answer: 'XY' },
];

beforeAll(async () => {
  const upper = await startEndpoint((request) => ({ body: { data: String(request.body.inputs.word).toUpperCase() } }));
  endpoints.push(upper);
  const variant = await fixtures.createEndpointVariant(server, app.id, upper.url, { name: 'upper' });
  testset = await fixtures.createTestset(server, rows);
  rowIds = (await server.request('GET', `/testsets/${testset.id}/revisions/1`)).body.rows.map((row: any) => row.id);
  const exact = await fixtures.createConfig(server, app.id, 'auto_exact_match', {}, 'exact');
  assayRun = (
    await fixtures.startEvaluation(server, { app_id: app.id, variant_ids: [variant.variant_id], evaluators_configs: [exact.id], testset_id: testset.id })
  ).id;
  await fixtures.waitForStatus(server, assayRun);
});

afterAll(async () => {
  for (const started of endpoints) await started.close();
});

async function ok(method: string, path: string, body?: unknown) {
  const response = await server.request(method, path, body);
  expect(response.status, `${method} ${path}: ${response.text}`).toBe(200);
  return response.body;
}

/** A trace of one root span lasting `seconds`, that cost `cost`. */
async function trace(id: string, seconds: number, cost: number, outputs?: unknown) {
  await ingestSpans(server, id, [legacySpan(`${id}-root`, null, 0, seconds, { cost, ...(outputs === undefined ? {} : { outputs }) })]);
}

describe('a run recorded from code', () => {
  it('is recorded case by case, reads its traces whenever they come, and is compared with Assay runs', async () => {
    await trace('ext-before', 2, 0.5);
    const run = await ok('POST', '/evaluations/external', {
      testset_id: testset.id,
      name: 'from-notebook',
      app_id: app.id,
      description: 'uppercase by hand',
      metadata: { commit: 'abc123' },
    });
    expect(run).toMatchObject({
      origin: 'external',
      name: 'from-notebook',
      variant_names: ['from-notebook'],
      app_id: app.id,
      testset_id: testset.id,
      description: 'uppercase by hand',
      metadata: { commit: 'abc123' },
      status: { type: 'status', value: 'EVALUATION_STARTED', error: null },
      aggregated_results: [],
      average_cost: null,
      progress: { total: 0, done: 0, errors: 0 },
    });
    const first = await ok('POST', `/evaluations/${run.id}/cases`, {
      cases: [
        {
          testset_row_id: rowIds[0],
          output: 'ABC',
          trace_id: 'ext-before',
          results: [
            { name: 'exact', value: true },
            { name: 'tone', value: 'friendly' },
          ],
        },
        { testset_row_id: rowIds[1], output: 'hi', trace_id: 'ext-after', results: [{ name: 'exact', value: false, comment: 'lower case' }] },
      ],
    });
    expect(first.scenario_ids).toHaveLength(2);
    await ok('POST', `/evaluations/${run.id}/cases`, {
      cases: [{ testset_row_id: rowIds[2], output: { text: 'XY' }, cost: 0.1, latency: 1, results: [{ name: 'exact', value: 1, data_type: 'BOOLEAN' }] }],
    });
    // The second case's trace arrives after it: its cost and latency follow.
    await trace('ext-after', 3, 0.25);
    const scenarios = await fixtures.pollUntil<any[]>(
      server,
      `/evaluations/${run.id}/evaluation_scenarios`,
      (body) => body[1]?.outputs[0].cost === 0.25,
      'the late trace read into its case',
    );
    expect(scenarios.map((scenario) => [scenario.outputs[0].result, scenario.outputs[0].cost, scenario.outputs[0].latency, scenario.trace_id])).toEqual([
      [{ type: 'text', value: 'ABC', error: null }, 0.5, 2, 'ext-before'],
      [{ type: 'text', value: 'hi', error: null }, 0.25, 3, 'ext-after'],
      [{ type: 'json', value: { text: 'XY' }, error: null }, 0.1, 1, null],
    ]);
    expect(scenarios[0].inputs).toEqual([{ name: 'word', type: 'text', value: 'abc' }]);
    expect(scenarios[0].correct_answers).toEqual([{ key: 'correct_answer', value: 'ABC' }]);
    expect(scenarios.map((scenario) => scenario.results.map((result: any) => result.result.value))).toEqual([[true, 'friendly'], [false], [true]]);
    // Each bool or number result is a score of its scenario, with the code's comment.
    const scores = await ok('GET', `/scores?scenario_id=${first.scenario_ids[1]}`);
    expect(scores.scores).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'exact', value: 0, comment: 'lower case', source: 'evaluation' })]));

    const finished = await ok('POST', `/evaluations/${run.id}/finish`, {});
    expect(finished.status.value).toBe('EVALUATION_FINISHED');
    expect(finished.progress).toEqual({ total: 3, done: 3, errors: 0 });
    expect(finished.average_cost).toEqual({ type: 'cost', value: expect.closeTo((0.5 + 0.25 + 0.1) / 3, 9), error: null });
    expect(finished.total_cost.value).toBeCloseTo(0.85, 9);
    expect(finished.average_latency).toEqual({ type: 'latency', value: 2, error: null });
    const [exactResult, toneResult] = finished.aggregated_results;
    expect(exactResult.evaluator_config.name).toBe('exact');
    expect(exactResult.result.value).toBeCloseTo(2 / 3, 9);
    // A category has no mean: the aggregate says so, as for any config no case could be scored by.
    expect(toneResult.evaluator_config).toMatchObject({ name: 'tone', evaluator_key: 'external' });
    expect(toneResult.result.type).toBe('error');

    // In the lists beside Assay's run, and in the comparison case by case under the same config.
    const listed = (await ok('GET', `/evaluations?app_id=${app.id}`)).map((evaluation: any) => evaluation.id);
    expect(listed).toEqual([assayRun, run.id]);
    const comparison = await ok('GET', `/evaluations/evaluation_scenarios/comparison-results?evaluations_ids=${assayRun},${run.id}`);
    expect(comparison).toHaveLength(3);
    expect(comparison[1].variants.map((variant: any) => [variant.variant_name, variant.scenario.outputs[0].result.value])).toEqual([
      ['upper', 'HI'],
      ['from-notebook', 'hi'],
    ]);

    // GraphQL: the same statistics as an Assay run's, computed the same way.
    const { data, errors } = await server.graphql(
      `query ($ids: [ID!]!) { nodes(ids: $ids) { ... on Evaluation { origin description metadata variantNames status { value }
         aggregatedResults { evaluatorConfig { name evaluatorKey } result { value } count errors stddev confidenceInterval { low high } } } } }`,
      { ids: [globalId('Evaluation', assayRun), globalId('Evaluation', run.id)] },
    );
    expect(errors).toBeUndefined();
    const [assay, recorded] = data.nodes;
    expect(assay.origin).toBe('assay');
    expect(recorded).toMatchObject({ origin: 'external', description: 'uppercase by hand', metadata: { commit: 'abc123' }, variantNames: ['from-notebook'] });
    const expected = aggregate(3, 0, 2, 2, true);
    expect(recorded.aggregatedResults[0]).toMatchObject({ evaluatorConfig: { name: 'exact', evaluatorKey: 'auto_exact_match' }, count: 3, errors: 0 });
    expect(recorded.aggregatedResults[0].stddev).toBeCloseTo(expected.stddev!, 9);
    expect(recorded.aggregatedResults[0].confidenceInterval.low).toBeCloseTo(expected.ciLow!, 9);
    expect(recorded.aggregatedResults[0].confidenceInterval.high).toBeCloseTo(expected.ciHigh!, 9);
    expect(assay.aggregatedResults[0]).toMatchObject({ evaluatorConfig: { name: 'exact' }, count: 3, result: { value: 1 } });

    // Ended: no more cases, no second finish; the runner never took it.
    expect((await server.request('POST', `/evaluations/${run.id}/cases`, { cases: [{ inputs: { word: 'z' }, output: 'Z' }] })).status).toBe(409);
    expect((await server.request('POST', `/evaluations/${run.id}/finish`, {})).status).toBe(409);
    expect(await server.assay.db.evaluation.findUnique({ where: { id: run.id }, select: { leaseOwner: true } })).toEqual({ leaseOwner: null });
  });

  it('goes through GraphQL too, with inline cases, outputs read from spans, failures and errors', async () => {
    const create = await server.graphql(
      `mutation ($input: CreateExternalRunInput!) { createExternalRun(input: $input) { id databaseId origin appId status { value } } }`,
      { input: { testsetId: globalId('Testset', testset.id), name: 'graphql-run', metadata: { model: 'local' } } },
    );
    expect(create.errors).toBeUndefined();
    const run = create.data.createExternalRun;
    // No app named: the test set's, else the project's `experiments` app.
    const experiments = (await ok('GET', '/apps?app_name=experiments'))[0];
    expect(run).toMatchObject({ origin: 'external', appId: globalId('App', experiments.app_id ?? experiments.id), status: { value: 'EVALUATION_STARTED' } });
    await trace('ext-span-output', 1, 0.02, { answer: 'ABC' });
    const added = await server.graphql(
      `mutation ($id: ID!, $cases: [ExternalCaseInput!]!) { addExternalRunCases(id: $id, cases: $cases) { progress { total done errors } } }`,
      {
        id: run.id,
        cases: [
          { testsetRowId: rowIds[0], traceId: 'ext-span-output', results: [{ name: 'exact', value: 1, dataType: 'NUMERIC' }] },
          { inputs: { word: 'extra' }, error: 'the model timed out' },
        ],
      },
    );
    expect(added.errors).toBeUndefined();
    expect(added.data.addExternalRunCases.progress).toEqual({ total: 2, done: 2, errors: 1 });
    const scenarios = await fixtures.getScenarios(server, run.databaseId);
    expect(scenarios[0].outputs[0]).toEqual({ result: { type: 'json', value: { answer: 'ABC' }, error: null }, cost: 0.02, latency: 1 });
    // The inline case comes after the test set's rows.
    expect(scenarios[1].inputs).toEqual([{ name: 'word', type: 'text', value: 'extra' }]);
    expect(scenarios[1].outputs[0].result).toMatchObject({ type: 'error', error: { message: 'the model timed out' } });
    const positions = await server.assay.db.evaluationScenario.findMany({
      where: { evaluationId: run.databaseId },
      orderBy: { position: 'asc' },
      select: { position: true },
    });
    expect(positions.map((row) => row.position)).toEqual([0, 3]);

    const failed = await server.graphql(
      `mutation ($id: ID!) { finishExternalRun(id: $id, status: "EVALUATION_FAILED", error: "CI job killed") { status { value error { message } } } }`,
      {
        id: run.id,
      },
    );
    expect(failed.errors).toBeUndefined();
    expect(failed.data.finishExternalRun.status).toEqual({ value: 'EVALUATION_FAILED', error: { message: 'CI job killed' } });
    const again = await server.graphql(`mutation ($id: ID!) { finishExternalRun(id: $id) { id } }`, { id: run.id });
    expect(again.errors[0].extensions.code).toBe('CONFLICT');
  });

  it('answers 422 naming the field, 404 for unknown ids and 409 for taken names and Assay runs', async () => {
    const run = await ok('POST', '/evaluations/external', { testset_id: testset.id, name: 'faults', app_id: app.id });
    const fault = async (path: string, body: unknown) => {
      const response = await server.request('POST', path, body);
      expect(response.status, response.text).toBe(422);
      return response.body.detail.map((issue: any) => issue.loc);
    };
    expect(await fault('/evaluations/external', { testset_id: testset.id })).toContainEqual(['body', 'name']);
    expect(await fault(`/evaluations/${run.id}/cases`, { cases: [] })).toContainEqual(['body', 'cases']);
    expect(await fault(`/evaluations/${run.id}/cases`, { cases: [{ testset_row_id: rowIds[0], inputs: { word: 'x' }, output: 'x' }] })).toContainEqual([
      'body',
      'cases',
      0,
      'testset_row_id',
    ]);
    expect(await fault(`/evaluations/${run.id}/cases`, { cases: [{ inputs: { word: 'x' } }] })).toContainEqual(['body', 'cases', 0, 'output']);
    expect(
      await fault(`/evaluations/${run.id}/cases`, {
        cases: [{ inputs: { word: 'x' }, output: 'x', results: [{ name: 'exact', value: 'yes', data_type: 'BOOLEAN' }] }],
      }),
    ).toContainEqual(['body', 'cases', 0, 'results', 0, 'value']);
    expect(await fault(`/evaluations/${run.id}/cases`, { cases: [{ inputs: {}, output: 'x', cost: -1 }] })).toContainEqual(['body', 'cases', 0, 'cost']);
    expect(await fault(`/evaluations/${run.id}/cases`, { cases: [{ testset_row_id: 'no-such-row', output: 'x' }] })).toEqual([
      ['body', 'cases', 0, 'testset_row_id'],
    ]);
    expect(await fault(`/evaluations/${run.id}/finish`, { status: 'EVALUATION_STARTED' })).toContainEqual(['body', 'status']);

    expect((await server.request('POST', '/evaluations/external', { testset_id: 'no-such-testset', name: 'x' })).status).toBe(404);
    expect((await server.request('POST', '/evaluations/external', { testset_id: testset.id, name: 'x', app_id: 'no-such-app' })).status).toBe(404);
    expect((await server.request('POST', '/evaluations/external', { testset_id: testset.id, name: 'faults' })).status).toBe(409);
    expect((await server.request('POST', `/evaluations/${assayRun}/cases`, { cases: [{ inputs: {}, output: 'x' }] })).status).toBe(409);
    expect((await server.request('POST', `/evaluations/${assayRun}/finish`, {})).status).toBe(409);

    // Another project's run is unknown here.
    const other = await ok('POST', '/projects', { name: 'external-runs-other' });
    const foreign = await server.assay.db.evaluation.update({ where: { id: run.id }, data: { projectId: other.id } });
    for (const id of [foreign.id, 'no-such-run']) {
      expect((await server.request('POST', `/evaluations/${id}/cases`, { cases: [{ inputs: {}, output: 'x' }] })).status).toBe(404);
      expect((await server.request('POST', `/evaluations/${id}/finish`, {})).status).toBe(404);
    }
  });
});
