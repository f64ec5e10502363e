// The real `@langfuse/client`'s experiments against Assay (docs/langfuse.md#dataset-runs): a dataset
// made with the SDK, `dataset.runExperiment` with a task (a traced generation with a reported
// cost) and an evaluator, exported by Langfuse's span processor to Assay's OTLP path. The run is
// then read back through Langfuse's dataset-run routes and through Assay's evaluations: its cases
// with the task's output, their traces' cost and latency, the evaluator's scores as results, and
// the same statistics as a run Assay made over the same test set; finally deleted with the SDK.
import { LangfuseClient } from '@langfuse/client';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import { startObservation } from '@langfuse/tracing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndpoint, type FakeEndpoint } from '../helpers/endpoints.js';
import * as fixtures from '../helpers/evaluations.js';
import type { TestServer } from '../helpers/server.js';
import { globalId } from '../../src/shared/graphql/ids.js';
import { refusal } from './helpers/langfuse.js';
import { startClientTest, type ClientTestBed } from './helpers/otel-sdk.js';

let bed: ClientTestBed;
let server: TestServer;
let langfuse: LangfuseClient;
let capitalsEndpoint: FakeEndpoint;

const CAPITALS: Record<string, string> = { France: 'Paris', Japan: 'Tokyo', Peru: 'Lima' };
/** What the task and Assay's endpoint answer: right but for Peru. */
const answer = (country: string) => (country === 'Peru' ? 'Cusco' : CAPITALS[country]);

beforeAll(async () => {
  bed = await startClientTest((baseUrl) => {
    const processor = new LangfuseSpanProcessor({ publicKey: 'pk-lf-test', secretKey: 'sk-lf-test', baseUrl, exportMode: 'immediate' });
    return { url: baseUrl, serviceName: 'experiments', processors: [processor], exportToAssay: false };
  });
  ({ server } = bed);
  langfuse = new LangfuseClient({ publicKey: 'pk-lf-test', secretKey: 'sk-lf-test', baseUrl: server.baseUrl });
  capitalsEndpoint = await startEndpoint((request) => ({ body: { data: answer(String(request.body.inputs.country)) } }));
});

afterAll(async () => {
  await langfuse.shutdown();
  await capitalsEndpoint.close();
  await bed.close();
});

describe('@langfuse/client experiments against Assay', () => {
  it('runs an experiment over a dataset, recorded as an evaluation beside the runs Assay makes', async () => {
    await langfuse.api.datasets.create({ name: 'capitals', description: 'Capital cities' });
    for (const country of Object.keys(CAPITALS)) {
      await langfuse.api.datasetItems.create({ datasetName: 'capitals', input: { country }, expectedOutput: CAPITALS[country] });
    }
    const dataset = await langfuse.dataset.get('capitals');
    expect(dataset.items).toHaveLength(3);

    const result = await dataset.runExperiment({
      name: 'capitals',
      runName: 'lookup-v1',
      description: 'A lookup table with one mistake',
      metadata: { model: 'lookup' },
      task: (item) => {
        const country = (item.input as { country: string }).country;
        // A model call the task makes, with the cost its provider reported.
        startObservation(
          'lookup',
          { model: 'lookup-model', input: { country }, output: answer(country), costDetails: { total: 0.002 } },
          { asType: 'generation' },
        ).end();
        return Promise.resolve(answer(country));
      },
      evaluators: [
        ({ output, expectedOutput }) =>
          Promise.resolve({ name: 'exact_match', value: output === expectedOutput ? 1 : 0, dataType: 'BOOLEAN' as const, comment: String(output) }),
      ],
    });
    await bed.sdk.flush();
    expect(result.itemResults).toHaveLength(3);
    const runId = result.datasetRunId!;
    expect(runId).toBeTruthy();
    // The SDK's link to the run names the key's project (GET /api/public/projects).
    const [project] = (await server.request('GET', '/projects')).body;
    expect(result.datasetRunUrl).toBe(`${server.baseUrl}/project/${project.id}/datasets/${dataset.id}/runs/${runId}`);

    // Langfuse's dataset-run routes.
    const runs = await langfuse.api.datasets.getRuns('capitals');
    expect(runs.data.map((run) => [run.id, run.name, run.description, run.metadata, run.datasetName])).toEqual([
      [runId, 'lookup-v1', 'A lookup table with one mistake', { model: 'lookup' }, 'capitals'],
    ]);
    const run = await langfuse.api.datasets.getRun('capitals', 'lookup-v1');
    expect(run.datasetRunItems.map((item) => [item.datasetItemId, item.traceId]).sort()).toEqual(
      result.itemResults.map((item) => [(item.item as { id: string }).id, item.traceId]).sort(),
    );
    expect((await langfuse.api.datasets.get('capitals')).id).toBe(dataset.id);

    // Assay's evaluation: every case's output, its trace's cost and latency, the scores as results.
    const scenarios = await fixtures.pollUntil<any[]>(
      server,
      `/evaluations/${runId}/evaluation_scenarios`,
      (body) => body.length === 3 && body.every((scenario) => scenario.outputs[0].cost !== null && scenario.results.length === 1),
      'the traces and scores of every case',
      30_000,
    );
    expect(scenarios.map((scenario) => [scenario.inputs, scenario.outputs[0].result.value, scenario.results[0].result.value])).toEqual([
      [[{ name: 'country', type: 'text', value: 'France' }], 'Paris', true],
      [[{ name: 'country', type: 'text', value: 'Japan' }], 'Tokyo', true],
      [[{ name: 'country', type: 'text', value: 'Peru' }], 'Cusco', false],
    ]);
    for (const scenario of scenarios) {
      expect(scenario.outputs[0].cost).toBeCloseTo(0.002, 9);
      expect(scenario.outputs[0].latency).toBeGreaterThan(0);
      expect(scenario.correct_answers).toEqual([{ key: 'correct_answer', value: CAPITALS[scenario.inputs[0].value] }]);
    }
    const evaluation = await fixtures.getEvaluation(server, runId);
    expect(evaluation).toMatchObject({ variant_names: ['lookup-v1'], testset_id: dataset.id, status: { value: 'EVALUATION_FINISHED' } });
    expect(evaluation.aggregated_results[0].result.value).toBeCloseTo(2 / 3, 9);
    expect(evaluation.average_cost.value).toBeCloseTo(0.002, 9);

    // A run Assay makes over the same test set, with the same answers.
    const appId = await fixtures.createApp(server, 'capitals-app');
    const variant = await fixtures.createEndpointVariant(server, appId, capitalsEndpoint.url, { name: 'endpoint' });
    const config = await fixtures.createConfig(server, appId, 'auto_exact_match', {}, 'exact_match');
    const assayRun = (
      await fixtures.startEvaluation(server, { app_id: appId, variant_ids: [variant.variant_id], evaluators_configs: [config.id], testset_id: dataset.id })
    ).id;
    await fixtures.waitForStatus(server, assayRun);
    expect((await server.request('GET', '/evaluations')).body.map((listed: any) => listed.id)).toEqual(expect.arrayContaining([runId, assayRun]));
    const comparison = (await server.request('GET', `/evaluations/evaluation_scenarios/comparison-results?evaluations_ids=${assayRun},${runId}`)).body;
    expect(
      comparison.map((row: any) =>
        row.variants.map((cell: any) => [cell.variant_name, cell.scenario.outputs[0].result.value, cell.scenario.results[0].result.value]),
      ),
    ).toEqual([
      [
        ['endpoint', 'Paris', true],
        ['lookup-v1', 'Paris', true],
      ],
      [
        ['endpoint', 'Tokyo', true],
        ['lookup-v1', 'Tokyo', true],
      ],
      [
        ['endpoint', 'Cusco', false],
        ['lookup-v1', 'Cusco', false],
      ],
    ]);
    const { data, errors } = await server.graphql(
      `query ($ids: [ID!]!) { nodes(ids: $ids) { ... on Evaluation { origin aggregatedResults { result { value } count errors stddev confidenceInterval { low high } } } } }`,
      { ids: [globalId('Evaluation', assayRun), globalId('Evaluation', runId)] },
    );
    expect(errors).toBeUndefined();
    const [assayStats, recordedStats] = data.nodes;
    expect(recordedStats.origin).toBe('external');
    expect(recordedStats.aggregatedResults).toEqual(assayStats.aggregatedResults);

    // Deleted with the SDK: the evaluation goes, its traces stay.
    expect(await langfuse.api.datasets.deleteRun('capitals', 'lookup-v1')).toMatchObject({ message: expect.any(String) });
    expect((await server.request('GET', `/evaluations/${runId}`)).status).toBe(404);
    expect((await langfuse.api.datasets.getRuns('capitals')).data).toEqual([]);
    expect((await refusal(langfuse.api.datasets.getRun('capitals', 'lookup-v1'))).statusCode).toBe(404);
    expect((await server.request('GET', `/observability/traces/${result.itemResults[0].traceId}`)).status).toBe(200);
  }, 120_000);
});
