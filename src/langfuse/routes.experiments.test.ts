// Langfuse's dataset runs (experiments.ts) over HTTP: run items made before and after their
// traces arrive, one run per name and dataset, an item run again re-linked, the run read with its
// items and paged, the v1 dataset naming its runs, the key's project; then the faults in Langfuse's
// bodies: a missing traceId (400), unknown items, datasets and runs, another project's (404).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { ingestSpans, legacySpan } from '../../test/helpers/spans.js';

const KEY = 'langfuse-experiments-key-0123456789abcdef';
let server: TestServer;
let otherKey: string;

const basic = (secret = KEY) => ({ authorization: `Basic ${Buffer.from(`pk-lf-public:${secret}`).toString('base64')}` });
const call = (method: string, path: string, body?: unknown, key = KEY) => server.request(method, `/api/public${path}`, body, basic(key));

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY });
  otherKey = (await server.request('POST', '/projects', { name: 'other' }, basic())).body.api_key.key;
  await call('POST', '/v2/datasets', { name: 'sums' });
  for (const [id, question, answer] of [
    ['sum-1', '1+1', '2'],
    ['sum-2', '2+2', '4'],
  ]) {
    expect((await call('POST', '/dataset-items', { datasetName: 'sums', id, input: { question }, expectedOutput: answer })).status).toBe(200);
  }
});

afterAll(async () => {
  await server.close();
});

// Assay's own routes, with the same key.
const withKey = () => ({ request: (method: string, path: string, body?: unknown) => server.request(method, path, body, basic()) });

describe("Langfuse's dataset runs over runs recorded from code", () => {
  it('records run items as cases of one run per name, with what their traces and scores bring', async () => {
    await ingestSpans(withKey(), 'run-trace-1', [legacySpan('root-1', null, 0, 2, { outputs: { answer: '2' }, cost: 0.01 })]);
    const first = await call('POST', '/dataset-run-items', {
      runName: 'calc',
      runDescription: 'a calculator',
      metadata: { version: 1 },
      datasetItemId: 'sum-1',
      traceId: 'run-trace-1',
      observationId: 'root-1',
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ datasetRunName: 'calc', datasetItemId: 'sum-1', traceId: 'run-trace-1', observationId: 'root-1' });
    const second = await call('POST', '/dataset-run-items', { runName: 'calc', metadata: 'second', datasetItemId: 'sum-2', traceId: 'run-trace-2' });
    expect(second.body.datasetRunId).toBe(first.body.datasetRunId);
    // The second trace and a score on it arrive after the item.
    await ingestSpans(withKey(), 'run-trace-2', [legacySpan('root-2', null, 0, 1, { outputs: { answer: '5' }, cost: 0.02 })]);
    expect((await call('POST', '/scores', { traceId: 'run-trace-2', name: 'correct', value: 0, dataType: 'BOOLEAN' })).status).toBe(200);
    expect((await call('POST', '/scores', { traceId: 'run-trace-1', name: 'correct', value: 1, dataType: 'BOOLEAN' })).status).toBe(200);

    const runId = first.body.datasetRunId;
    let scenarios: any[] = [];
    for (let attempt = 0; attempt < 100; attempt++) {
      scenarios = (await server.request('GET', `/evaluations/${runId}/evaluation_scenarios`, undefined, basic())).body;
      if (scenarios.every((scenario) => scenario.outputs[0].cost !== null)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(
      scenarios.map((scenario) => [scenario.outputs[0].result.value, scenario.outputs[0].cost, scenario.outputs[0].latency, scenario.results[0]?.result.value]),
    ).toEqual([
      [{ answer: '2' }, 0.01, 2, true],
      [{ answer: '5' }, 0.02, 1, false],
    ]);
    const evaluation = (await server.request('GET', `/evaluations/${runId}`, undefined, basic())).body;
    expect(evaluation).toMatchObject({ status: { value: 'EVALUATION_FINISHED' }, variant_names: ['calc'], average_cost: { value: 0.015 } });
    expect(evaluation.aggregated_results[0]).toMatchObject({ evaluator_config: { name: 'correct', evaluator_key: 'external' }, result: { value: 0.5 } });

    // The run as Langfuse shows it: its latest description, metadata kept as an object.
    const run = await call('GET', '/datasets/sums/runs/calc');
    expect(run.body).toMatchObject({ id: runId, name: 'calc', description: 'a calculator', metadata: { value: 'second' }, datasetName: 'sums' });
    expect(run.body.datasetRunItems.map((item: any) => [item.datasetItemId, item.traceId, item.observationId])).toEqual([
      ['sum-1', 'run-trace-1', 'root-1'],
      ['sum-2', 'run-trace-2', null],
    ]);
    // An item run again is linked to its new trace, not added twice.
    await call('POST', '/dataset-run-items', { runName: 'calc', datasetItemId: 'sum-2', traceId: 'run-trace-3' });
    const items = await call('GET', `/dataset-run-items?datasetId=${run.body.datasetId}&runName=calc&limit=1&page=2`);
    expect(items.body).toMatchObject({ data: [{ datasetItemId: 'sum-2', traceId: 'run-trace-3' }], meta: { page: 2, limit: 1, totalItems: 2, totalPages: 2 } });

    await call('POST', '/dataset-run-items', { runName: 'other-run', datasetItemId: 'sum-1', traceId: 'run-trace-4' });
    expect((await call('GET', '/datasets/sums/runs?limit=10')).body.data.map((listed: any) => listed.name)).toEqual(['calc', 'other-run']);
    expect((await call('GET', '/datasets/sums')).body.runs).toEqual(['calc', 'other-run']);
    expect((await call('DELETE', '/datasets/sums/runs/other-run')).body).toEqual({ message: 'Dataset run successfully deleted' });
    expect((await call('GET', '/datasets/sums/runs/other-run')).status).toBe(404);

    const projects = await call('GET', '/projects');
    expect(projects.body).toEqual({ data: [{ id: evaluation.project_id, name: expect.any(String), organization: expect.any(Object), metadata: {} }] });
  });

  it("answers faults in Langfuse's bodies, and another project's names and ids as unknown", async () => {
    const missing = await call('POST', '/dataset-run-items', { runName: 'x', datasetItemId: 'sum-1' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toEqual(expect.arrayContaining([expect.objectContaining({ path: ['traceId'] })]));
    expect((await call('POST', '/dataset-run-items', { datasetItemId: 'sum-1', traceId: 't' })).status).toBe(400);
    expect((await call('GET', '/dataset-run-items?runName=calc')).status).toBe(400);
    for (const key of [KEY, otherKey]) {
      const unknownItem = key === KEY ? 'no-such-item' : 'sum-1';
      expect((await call('POST', '/dataset-run-items', { runName: 'x', datasetItemId: unknownItem, traceId: 't' }, key)).status).toBe(404);
    }
    for (const [method, path] of [
      ['GET', '/datasets/sums/runs'],
      ['GET', '/datasets/sums/runs/calc'],
      ['DELETE', '/datasets/sums/runs/calc'],
    ] as const) {
      const other = await call(method, path, undefined, otherKey);
      expect(other.status, path).toBe(404);
      expect(typeof other.body.message).toBe('string');
    }
    expect((await call('GET', '/datasets/sums/runs/no-such-run')).status).toBe(404);
    expect((await call('GET', '/datasets/no-such-dataset/runs')).status).toBe(404);
    // The run is still there for its own project.
    expect((await call('GET', '/datasets/sums/runs/calc')).status).toBe(200);
  });
});
