// The batching of rate_limit (docs/evaluations.md#rate_limit), run by the evaluation engine
// (docs/evaluation-engine.md#batches): batch_size cases at once, delay_between_batches apart.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { useEndpoints, sleep } from '../../test/helpers/endpoints.js';
import { createApp, createConfig, createEndpointVariant, createTestset, getScenarios, startEvaluation, waitForStatus } from '../../test/helpers/evaluations.js';

const server = useTestServer();
const endpoint = useEndpoints();
let appId: string;

beforeAll(async () => {
  appId = await createApp(server, 'rate-limit');
});

describe('rate limit batches', () => {
  it('runs batch_size cases at once and waits delay_between_batches seconds between batches', async () => {
    const user = await endpoint(async (request) => {
      await sleep(100);
      return { body: { data: `answer ${request.body.inputs.n}` } };
    });
    const variant = await createEndpointVariant(server, appId, user.url);
    const rows = Array.from({ length: 6 }, (_, n) => ({ n, correct_answer: `answer ${n}` }));
    const testset = await createTestset(server, rows);
    const exact = await createConfig(server, appId, 'auto_exact_match');
    const started = Date.now();
    const { id } = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id],
      testset_id: testset.id,
      rate_limit: { batch_size: 2, delay_between_batches: 1 },
    });
    const end = await waitForStatus(server, id);
    const elapsed = Date.now() - started;
    expect(end.status.value).toBe('EVALUATION_FINISHED');
    expect(user.requests).toHaveLength(6);
    expect(user.maxConcurrent).toBe(2);
    // Batches [0,1], [2,3], [4,5] in test set order, 1 s apart (after each 100 ms batch).
    const arrivals = user.requests.map((r) => ({ n: r.body.inputs.n as number, at: r.at }));
    const batches = [0, 1, 2].map((b) => arrivals.filter((a) => Math.floor(a.n / 2) === b));
    for (const [b, batch] of batches.entries()) {
      expect(batch.map((a) => a.n).sort()).toEqual([2 * b, 2 * b + 1]);
      expect(Math.abs(batch[0].at - batch[1].at)).toBeLessThan(300);
    }
    for (const b of [1, 2]) {
      const gap = Math.min(...batches[b].map((a) => a.at)) - Math.max(...batches[b - 1].map((a) => a.at));
      expect(gap).toBeGreaterThanOrEqual(1000);
    }
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    expect((await getScenarios(server, id)).map((s) => s.inputs[0].value)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
