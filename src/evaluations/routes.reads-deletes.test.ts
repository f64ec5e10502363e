// Reads of evaluations that really ran (docs/evaluations.md): the list by app, the results route,
// the case-by-case comparison of two variants over one test set, DELETE /evaluations (all or
// nothing, also of a running one), and the 404 of every route for an unknown id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createGate, type FakeEndpoint, sleep, startEndpoint } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';

const server = useTestServer();
const app = fixtures.useApp(server, 'compared');
const endpoints: FakeEndpoint[] = [];
let otherAppId: string;
let upper: { variant_id: string; variant_name: string };
let echo: { variant_id: string; variant_name: string };
let exactConfig: any;
let evaluationA: string;
let evaluationB: string;
let evaluationOther: string;

const rows = [
  { word: 'abc', correct_answer: 'ABC' },
  { word: 'Hi', correct_answer: 'HI' },
  { word: 'XY', correct_answer: 'XY' },
];

beforeAll(async () => {
  const upperEndpoint = await startEndpoint((request) => ({ body: { data: String(request.body.inputs.word).toUpperCase() } }));
  const echoEndpoint = await startEndpoint((request) => ({ body: { data: request.body.inputs.word } }));
  endpoints.push(upperEndpoint, echoEndpoint);
  otherAppId = await fixtures.createApp(server, 'elsewhere');
  upper = await fixtures.createEndpointVariant(server, app.id, upperEndpoint.url, { name: 'upper' });
  echo = await fixtures.createEndpointVariant(server, app.id, echoEndpoint.url, { name: 'echo' });
  const testset = await fixtures.createTestset(server, rows);
  exactConfig = await fixtures.createConfig(server, app.id, 'auto_exact_match', {}, 'exact');
  const created = await fixtures.startEvaluations(server, {
    app_id: app.id,
    variant_ids: [upper.variant_id, echo.variant_id],
    evaluators_configs: [exactConfig.id],
    testset_id: testset.id,
  });
  [evaluationA, evaluationB] = created.map((e: any) => e.id);
  const otherVariant = await fixtures.createEndpointVariant(server, otherAppId, echoEndpoint.url, { name: 'other-echo' });
  const otherConfig = await fixtures.createConfig(server, otherAppId, 'auto_exact_match', {}, 'exact');
  evaluationOther = (
    await fixtures.startEvaluation(server, {
      app_id: otherAppId,
      variant_ids: [otherVariant.variant_id],
      evaluators_configs: [otherConfig.id],
      testset_id: testset.id,
    })
  ).id;
  for (const id of [evaluationA, evaluationB, evaluationOther]) await fixtures.waitForStatus(server, id);
});

afterAll(async () => {
  for (const started of endpoints) await started.close();
});

describe('reading evaluations that ran', () => {
  it('lists the evaluations of an app, oldest first', async () => {
    const ofApp = await server.request('GET', `/evaluations?app_id=${app.id}`);
    expect(ofApp.status).toBe(200);
    expect(ofApp.body.map((e: any) => [e.id, e.variant_names[0]])).toEqual([
      [evaluationA, 'upper'],
      [evaluationB, 'echo'],
    ]);
    expect((await server.request('GET', `/evaluations?app_id=${otherAppId}`)).body.map((e: any) => e.id)).toEqual([evaluationOther]);
    const all = (await server.request('GET', '/evaluations')).body.map((e: any) => e.id);
    expect(all).toEqual(expect.arrayContaining([evaluationA, evaluationB, evaluationOther]));
    expect((await server.request('GET', '/evaluations?app_id=no-such-app')).body).toEqual([]);
    // The listed evaluation is the same as the one read alone.
    expect(ofApp.body[0]).toEqual(await fixtures.getEvaluation(server, evaluationA));
  });

  it('answers the aggregated results of one evaluation', async () => {
    // upper: ABC, HI, XY all equal the answers → 1; echo: only XY → 1/3.
    expect((await server.request('GET', `/evaluations/${evaluationA}/results`)).body).toEqual({
      id: evaluationA,
      results: [{ evaluator_config: exactConfig, result: { type: 'number', value: 1, error: null } }],
    });
    expect((await server.request('GET', `/evaluations/${evaluationB}/results/`)).body).toEqual({
      id: evaluationB,
      results: [{ evaluator_config: exactConfig, result: { type: 'number', value: 1 / 3, error: null } }],
    });
  });

  it('compares two evaluations case by case, in the order asked', async () => {
    const scenariosA = await fixtures.getScenarios(server, evaluationA);
    const scenariosB = await fixtures.getScenarios(server, evaluationB);
    const response = await server.request('GET', `/evaluations/evaluation_scenarios/comparison-results?evaluations_ids=${evaluationB},${evaluationA}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual(
      rows.map((row, position) => ({
        position,
        inputs: [{ name: 'word', type: 'text', value: row.word }],
        correct_answers: [{ key: 'correct_answer', value: row.correct_answer }],
        // Both ran on revision 1 of the same test set: the same version of every case.
        case_differs: false,
        variants: [
          { evaluation_id: evaluationB, variant_id: echo.variant_id, variant_name: 'echo', revision: '1', testset_revision: 1, scenario: scenariosB[position] },
          {
            evaluation_id: evaluationA,
            variant_id: upper.variant_id,
            variant_name: 'upper',
            revision: '1',
            testset_revision: 1,
            scenario: scenariosA[position],
          },
        ],
      })),
    );
    const outputs = response.body.map((r: any) => r.variants.map((v: any) => v.scenario.outputs[0].result.value));
    expect(outputs).toEqual([
      ['abc', 'ABC'],
      ['Hi', 'HI'],
      ['XY', 'XY'],
    ]);
    // Spaces around the ids are ignored.
    const spaced = await server.request('GET', `/evaluations/evaluation_scenarios/comparison-results?evaluations_ids=${evaluationA},%20${evaluationB}`);
    expect(spaced.body.map((r: any) => r.variants.map((v: any) => v.evaluation_id))).toEqual(rows.map(() => [evaluationA, evaluationB]));
    // The ids are required.
    const missing = await server.request('GET', '/evaluations/evaluation_scenarios/comparison-results');
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ detail: [{ loc: ['query', 'evaluations_ids'], msg: 'Field required', type: 'missing' }] });
  });

  it('answers 404 naming the id on every route for an unknown evaluation', async () => {
    const routes: [string, string][] = [
      ['GET', '/evaluations/nope'],
      ['GET', '/evaluations/nope/'],
      ['GET', '/api/evaluations/nope'],
      ['GET', '/evaluations/nope/status'],
      ['GET', '/evaluations/nope/results'],
      ['GET', '/evaluations/nope/evaluation_scenarios'],
      ['POST', '/evaluations/nope/cancel'],
      ['GET', `/evaluations/evaluation_scenarios/comparison-results?evaluations_ids=${evaluationA},nope`],
    ];
    for (const [method, path] of routes) {
      const response = await server.request(method, path);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body, `${method} ${path}`).toEqual({ detail: 'Evaluation with id nope not found' });
    }
  });
});

describe('DELETE /evaluations', () => {
  it('deletes nothing when one id is unknown, and answers 404 naming it', async () => {
    const response = await server.request('DELETE', '/evaluations', { evaluations_ids: [evaluationOther, 'nope'] });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Evaluation with id nope not found' });
    expect((await server.request('GET', `/evaluations/${evaluationOther}`)).status).toBe(200);
    expect(await fixtures.getScenarios(server, evaluationOther)).toHaveLength(3);
  });

  it('refuses an empty list', async () => {
    const response = await server.request('DELETE', '/evaluations', { evaluations_ids: [] });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail: [{ loc: ['body', 'evaluations_ids'], msg: 'List should have at least 1 item', type: 'too_short' }] });
  });

  it('deletes evaluations with their scenarios (204), then every read is 404; their traces stay', async () => {
    const traces = await fixtures.scenarioTraceIds(server, evaluationOther);
    const response = await server.request('DELETE', '/evaluations', { evaluations_ids: [evaluationOther] });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    for (const path of [`/evaluations/${evaluationOther}`, `/evaluations/${evaluationOther}/evaluation_scenarios`, `/evaluations/${evaluationOther}/status`]) {
      const read = await server.request('GET', path);
      expect(read.status, path).toBe(404);
      expect(read.body).toEqual({ detail: `Evaluation with id ${evaluationOther} not found` });
    }
    expect(await server.assay.db.evaluationScenario.count({ where: { evaluationId: evaluationOther } })).toBe(0);
    expect((await server.request('GET', `/evaluations?app_id=${otherAppId}`)).body).toEqual([]);
    // The other app's evaluations are untouched.
    expect((await server.request('GET', `/evaluations?app_id=${app.id}`)).body).toHaveLength(2);
    expect((await server.request('GET', `/observability/traces/${traces[0].trace_id}`)).status).toBe(200);
    // Deleting it again: it is gone.
    expect((await server.request('DELETE', '/evaluations', { evaluations_ids: [evaluationOther] })).status).toBe(404);
  });

  it('deletes a running evaluation and stops its run', async () => {
    const gate = createGate();
    const held = await startEndpoint(async () => {
      await gate.wait();
      return { body: { data: 'late' } };
    });
    endpoints.push(held);
    const variant = await fixtures.createEndpointVariant(server, app.id, held.url, { name: 'held' });
    const testset = await fixtures.createTestset(server, [{ word: 'a' }, { word: 'b' }, { word: 'c' }]);
    const { id } = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exactConfig.id],
      testset_id: testset.id,
      rate_limit: { batch_size: 1 },
    });
    await held.waitForRequests(1);
    expect((await server.request('DELETE', '/evaluations', { evaluations_ids: [id] })).status).toBe(204);
    gate.open();
    await sleep(400);
    expect(held.requests).toHaveLength(1);
    expect((await server.request('GET', `/evaluations/${id}`)).status).toBe(404);
    expect(await server.assay.db.evaluationScenario.count({ where: { evaluationId: id } })).toBe(0);
  });
});
