// auto_regex_test end to end: a pattern that backtracks catastrophically (in JavaScript's engine
// `^(a+)+$` against 26 "a"s and "!" froze the whole service for 2.6 s) runs in a real evaluation
// against a local endpoint, and the service keeps answering meanwhile (docs/evaluators.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { type FakeEndpoint, sleep, startEndpoint } from '../../test/helpers/endpoints.js';
import { createApp, createConfig, createEndpointVariant, createTestset, getScenarios, startEvaluation, waitForStatus } from '../../test/helpers/evaluations.js';

const server = useTestServer();
let endpoint: FakeEndpoint;

// What the endpoint answers for each case: in a backtracking engine the first and last take
// exponential time against ^(a+)+$ (2^30 steps and more).
const outputs: Record<string, string> = {
  trap: 'a'.repeat(30) + '!',
  match: 'a'.repeat(30),
  other: 'Order #12 shipped',
  long: 'a'.repeat(5_000) + '!',
};

beforeAll(async () => {
  endpoint = await startEndpoint((request) => ({ body: { data: outputs[request.body.inputs.q] } }));
});

afterAll(async () => {
  await endpoint?.close();
});

describe('auto_regex_test in an evaluation', () => {
  it('scores a catastrophic backtracking pattern at once, while the service answers other requests within 100 ms', async () => {
    const appId = await createApp(server);
    const variant = await createEndpointVariant(server, appId, endpoint.url);
    const rows = Array.from({ length: 5 }, () => Object.keys(outputs).map((q) => ({ q }))).flat();
    const testset = await createTestset(server, rows);
    const catastrophic = await createConfig(server, appId, 'auto_regex_test', { regex_pattern: '^(a+)+$' });
    // Python's syntax for a named group, which JavaScript's RegExp did not accept.
    const named = await createConfig(server, appId, 'auto_regex_test', { regex_pattern: '(?P<order>order #\\d+)' });
    const started = Date.now();
    const { id } = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [catastrophic.id, named.id],
      testset_id: testset.id,
    });

    const latencies: number[] = [];
    for (let probe = 0; probe < 10; probe++) {
      const sent = performance.now();
      expect((await server.request('GET', '/apps')).status).toBe(200);
      latencies.push(performance.now() - sent);
      await sleep(20);
    }
    expect(Math.max(...latencies)).toBeLessThan(100);

    expect(await waitForStatus(server, id)).toMatchObject({ status: { value: 'EVALUATION_FINISHED' }, progress: { total: 20, done: 20, errors: 0 } });
    expect(Date.now() - started).toBeLessThan(5_000);
    const scored = (await getScenarios(server, id)).map((scenario) => [scenario.inputs[0].value, scenario.results.map((result: any) => result.result.value)]);
    expect(scored.slice(0, 4)).toEqual([
      ['trap', [false, false]],
      ['match', [true, false]],
      ['other', [false, true]],
      ['long', [false, false]],
    ]);
    expect(scored.slice(4)).toEqual([...scored.slice(0, 4), ...scored.slice(0, 4), ...scored.slice(0, 4), ...scored.slice(0, 4)]);
  });
});
