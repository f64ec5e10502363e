// `Evaluation.evaluatorConfigs`: the configs an evaluation runs, named from its creation, while the
// run goes on and no aggregate names them yet (the evaluation page preloads its columns with it).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';

let server: TestServer;
let endpoint: Server;
let release: () => void;
const held = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  // Holds every call until released, so the run is under way while the test reads it.
  endpoint = createServer((req, res) => {
    req.resume();
    void held.then(() => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ message: 'Paris' }));
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  server = await startServer();
});
afterAll(async () => {
  release();
  await server.close();
  endpoint.close();
});

const read = `query($id: ID!) { evaluation(id: $id) { progress { status } evaluatorConfigs { id databaseId name } aggregatedResults { evaluatorConfig { id } } } }`;

describe('Evaluation.evaluatorConfigs', () => {
  it('names the configs in the order asked, before the aggregates and after them', async () => {
    const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/`;
    const appId = (await server.request('POST', '/apps', { app_name: 'configs-app' })).body.app_id;
    const variantId = (await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'v', kind: 'endpoint', uri: url, parameters: {} })).body
      .variant_id;
    const testsetId = (await server.request('POST', '/testsets', { name: 'one', csvdata: [{ country: 'France', correct_answer: 'Paris' }] })).body.id;
    const config = async (name: string, evaluator_key: string) =>
      (await server.request('POST', '/evaluators/configs', { app_id: appId, name, evaluator_key, settings_values: {} })).body.id as string;
    const exact = await config('exact', 'auto_exact_match');
    const similar = await config('similar', 'auto_similarity_match');

    const created = await server.graphql(`mutation($input: CreateEvaluationInput!) { createEvaluations(input: $input) { id } }`, {
      input: {
        appId: globalId('App', appId),
        variantIds: [globalId('Variant', variantId)],
        // Asked in the reverse of their creation: the field keeps the order asked.
        evaluatorConfigIds: [globalId('EvaluatorConfig', similar), globalId('EvaluatorConfig', exact)],
        testsetId: globalId('Testset', testsetId),
        rateLimit: { batchSize: 1, maxRetries: 0, retryDelay: 0, delayBetweenBatches: 0 },
      },
    });
    expect(created.errors).toBeUndefined();
    const id = created.data.createEvaluations[0].id;
    const expected = [
      { id: globalId('EvaluatorConfig', similar), databaseId: similar, name: 'similar' },
      { id: globalId('EvaluatorConfig', exact), databaseId: exact, name: 'exact' },
    ];

    const running = await server.graphql(read, { id });
    expect(running.errors).toBeUndefined();
    expect(running.data.evaluation.progress.status).not.toBe('EVALUATION_FINISHED');
    expect(running.data.evaluation.aggregatedResults).toEqual([]);
    expect(running.data.evaluation.evaluatorConfigs).toEqual(expected);

    release();
    let finished = running;
    for (let attempt = 0; attempt < 200 && finished.data.evaluation.progress.status !== 'EVALUATION_FINISHED'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      finished = await server.graphql(read, { id });
    }
    expect(finished.data.evaluation.progress.status).toBe('EVALUATION_FINISHED');
    expect(finished.data.evaluation.evaluatorConfigs).toEqual(expected);
    expect(finished.data.evaluation.aggregatedResults.map((aggregate: { evaluatorConfig: { id: string } }) => aggregate.evaluatorConfig.id)).toEqual(
      expected.map((config) => config.id),
    );
  });
});
