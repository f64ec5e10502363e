// Evaluation results of Assay's own runs appear as scores of their scenarios (docs/scores.md#evaluations):
// one per evaluator result, named by its config, of source "evaluation", read through REST `GET
// /scores` and GraphQL `EvaluationScenario.scores`; errors make none; deleting the evaluation
// deletes them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndpoint, type FakeEndpoint } from '../../test/helpers/endpoints.js';
import { createApp, createConfig, createEndpointVariant, createTestset, startEvaluation, waitForStatus } from '../../test/helpers/evaluations.js';
import { startServer, type TestServer } from '../../test/helpers/server.js';

let server: TestServer;
let endpoint: FakeEndpoint;

beforeAll(async () => {
  server = await startServer();
  // The app answers "Paris" whatever it is asked.
  endpoint = await startEndpoint(() => ({ body: { message: 'Paris', cost: 0.001, latency: 0.01 } }));
});

afterAll(async () => {
  await endpoint.close();
  await server.close();
});

describe('scenario scores', () => {
  it("writes each evaluator's result on each test case as a score of the scenario", async () => {
    const app = await createApp(server);
    const variant = await createEndpointVariant(server, app, endpoint.url);
    const testset = await createTestset(server, [
      { country: 'France', correct_answer: 'Paris' },
      { country: 'Spain', correct_answer: 'Madrid' },
    ]);
    const exact = await createConfig(server, app, 'auto_exact_match', {}, 'exact');
    const distance = await createConfig(server, app, 'auto_levenshtein_distance', {}, 'distance');
    // Code that throws: every result is an error, which makes no score.
    const broken = await createConfig(
      server,
      app,
      'auto_custom_code_run',
      { code: 'function evaluate() { throw new Error("boom"); }', runtime: 'javascript' },
      'broken',
    );
    const evaluation = await startEvaluation(server, {
      app_id: app,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id, distance.id, broken.id],
      testset_id: testset.id,
    });
    await waitForStatus(server, evaluation.id);

    const scenarios = (await server.request('GET', `/evaluations/${evaluation.id}/evaluation_scenarios`)).body as { id: string; inputs: { value: string }[] }[];
    expect(scenarios).toHaveLength(2);
    const listed = await server.request('GET', '/scores?source=evaluation&limit=100');
    expect(listed.status).toBe(200);
    const byScenario = (scenarioId: string) =>
      listed.body.scores
        .filter((score: any) => score.scenario_id === scenarioId)
        .map((score: any) => [score.name, score.data_type, score.value])
        .sort();
    const france = scenarios.find((scenario) => scenario.inputs[0].value === 'France')!;
    const spain = scenarios.find((scenario) => scenario.inputs[0].value === 'Spain')!;
    expect(byScenario(france.id)).toEqual([
      ['distance', 'NUMERIC', 0],
      ['exact', 'BOOLEAN', 1],
    ]);
    // "Paris" is three edits from "Madrid".
    expect(byScenario(spain.id)).toEqual([
      ['distance', 'NUMERIC', 3],
      ['exact', 'BOOLEAN', 0],
    ]);
    const one = listed.body.scores.find((score: any) => score.scenario_id === france.id && score.name === 'exact');
    expect(one).toMatchObject({
      id: `${france.id}:${exact.id}`,
      target: 'scenario',
      source: 'evaluation',
      string_value: 'True',
      author: { type: 'system', id: null, label: null },
      metadata: { evaluation_id: evaluation.id, evaluator_config_id: exact.id, evaluator_key: 'auto_exact_match' },
    });

    const read = await server.graphql(
      `query($id: ID!) { node(id: $id) { ... on EvaluationScenario { scores { name dataType value source target scenarioId } } } }`,
      { id: Buffer.from(`EvaluationScenario:${france.id}`).toString('base64') },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data.node.scores.map((score: any) => score.name).sort()).toEqual(['distance', 'exact']);
    expect(read.data.node.scores.find((score: any) => score.name === 'exact')).toMatchObject({
      dataType: 'BOOLEAN',
      value: 1,
      source: 'EVALUATION',
      target: 'SCENARIO',
    });

    expect((await server.request('DELETE', '/evaluations', { evaluations_ids: [evaluation.id] })).status).toBe(204);
    expect((await server.request('GET', '/scores?source=evaluation')).body.scores).toEqual([]);
  });
});
