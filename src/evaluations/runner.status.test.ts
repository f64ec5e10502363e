// The life of an evaluation's status (docs/evaluations.md#status-and-its-transitions): INITIALIZED
// while queued, STARTED while its cases run, FINISHED; CANCELLED by POST /evaluations/{id}/cancel
// (and nothing runs after it); FAILED when its test set is gone by the time it starts. Endpoints
// hold their requests until the test releases them, so each state is observed deterministically.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createGate, useEndpoints, type FakeEndpoint, type Gate, sleep } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';

const server = useTestServer();
const app = fixtures.useApp(server, 'statuses');
let configId: string;
const endpoint = useEndpoints();

/** An endpoint answering `{data: "ok"}`, each request held until `gate` opens. */
function gatedEndpoint(gate: Gate): Promise<FakeEndpoint> {
  return endpoint(async () => {
    await gate.wait();
    return { body: { data: 'ok', trace: { cost: 0.001, latency: 0.01 } } };
  });
}

beforeAll(async () => {
  configId = (await fixtures.createConfig(server, app.id, 'auto_exact_match')).id;
});

const rows = (count: number) => Array.from({ length: count }, (_, n) => ({ n, correct_answer: 'ok' }));

describe('evaluation statuses', () => {
  it('is STARTED with progress while cases run, then FINISHED', async () => {
    const gate = createGate();
    const user = await gatedEndpoint(gate);
    const variant = await fixtures.createEndpointVariant(server, app.id, user.url);
    const testset = await fixtures.createTestset(server, rows(3));
    const created = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [variant.variant_id],
      evaluators_configs: [configId],
      testset_id: testset.id,
      rate_limit: { batch_size: 2 },
    });
    expect(created.status.value).toBe('EVALUATION_INITIALIZED');
    await user.waitForRequests(2);
    expect(await fixtures.waitForStatus(server, created.id, ['EVALUATION_STARTED'])).toEqual({
      status: { type: 'status', value: 'EVALUATION_STARTED', error: null },
      progress: { total: 3, done: 0, errors: 0 },
    });
    // While it runs: no aggregates, null totals, no scenarios yet.
    const running = await fixtures.getEvaluation(server, created.id);
    expect(running.aggregated_results).toEqual([]);
    expect([running.average_cost, running.total_cost, running.average_latency]).toEqual([null, null, null]);
    expect(await fixtures.getScenarios(server, created.id)).toEqual([]);
    await sleep(100);
    expect(user.requests).toHaveLength(2);

    gate.open();
    expect(await fixtures.waitForStatus(server, created.id)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED', error: null },
      progress: { total: 3, done: 3, errors: 0 },
    });
    expect(user.requests).toHaveLength(3);
    // Finishing a second time is refused.
    const cancel = await server.request('POST', `/evaluations/${created.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body).toEqual({ detail: `Evaluation ${created.id} has already ended (EVALUATION_FINISHED)` });
  });

  it('is CANCELLED by a cancel mid-run: no call follows, the status stays, a second cancel is 409', async () => {
    const gate = createGate();
    const user = await gatedEndpoint(gate);
    const variant = await fixtures.createEndpointVariant(server, app.id, user.url);
    const testset = await fixtures.createTestset(server, rows(4));
    const { id } = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [variant.variant_id],
      evaluators_configs: [configId],
      testset_id: testset.id,
      rate_limit: { batch_size: 1 },
    });
    await user.waitForRequests(1);

    const cancel = await server.request('POST', `/evaluations/${id}/cancel`);
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body).toMatchObject({ id, status: { type: 'status', value: 'EVALUATION_CANCELLED', error: null } });

    gate.open();
    await sleep(400);
    expect(user.requests).toHaveLength(1);
    expect(await fixtures.waitForStatus(server, id, ['EVALUATION_CANCELLED'])).toEqual({
      status: { type: 'status', value: 'EVALUATION_CANCELLED', error: null },
      progress: { total: 4, done: 0, errors: 0 },
    });
    // The case in flight when it was cancelled is not stored.
    expect(await fixtures.getScenarios(server, id)).toEqual([]);

    const again = await server.request('POST', `/evaluations/${id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: `Evaluation ${id} has already ended (EVALUATION_CANCELLED)` });
    expect((await server.request('POST', '/evaluations/no-such-evaluation/cancel')).body).toEqual({
      detail: 'Evaluation with id no-such-evaluation not found',
    });
  });

  it('is FAILED when its test set was deleted before it started', async () => {
    // The runner takes a bounded number of evaluations at once: keep creating ones whose endpoint
    // holds its call until one is not taken up. That one waits, INITIALIZED, and loses its test set.
    const gate = createGate();
    const user = await gatedEndpoint(gate);
    const variant = await fixtures.createEndpointVariant(server, app.id, user.url);
    const blockers: string[] = [];
    let queued: { id: string; testsetId: string } | undefined;
    for (let attempt = 0; attempt < 12 && !queued; attempt++) {
      const testset = await fixtures.createTestset(server, rows(1));
      const { id } = await fixtures.startEvaluation(server, {
        app_id: app.id,
        variant_ids: [variant.variant_id],
        evaluators_configs: [configId],
        testset_id: testset.id,
      });
      try {
        await user.waitForRequests(blockers.length + 1, 1_000);
        blockers.push(id);
      } catch {
        queued = { id, testsetId: testset.id };
      }
    }
    expect(queued, 'an evaluation left waiting for a free runner slot').toBeDefined();
    expect((await server.request('GET', `/evaluations/${queued!.id}/status`)).body).toEqual({
      status: { type: 'status', value: 'EVALUATION_INITIALIZED', error: null },
      progress: { total: 1, done: 0, errors: 0 },
    });
    expect((await server.request('DELETE', `/testsets/${queued!.testsetId}`)).status).toBeLessThan(300);

    gate.open();
    expect(await fixtures.waitForStatus(server, queued!.id)).toEqual({
      status: {
        type: 'status',
        value: 'EVALUATION_FAILED',
        error: { message: `The test set ${queued!.testsetId} of this evaluation no longer exists`, stacktrace: null },
      },
      progress: { total: 1, done: 0, errors: 0 },
    });
    const failed = await fixtures.getEvaluation(server, queued!.id);
    expect(failed.aggregated_results).toEqual([]);
    expect(failed.testset_id).toBe(queued!.testsetId);
    expect(await fixtures.getScenarios(server, queued!.id)).toEqual([]);
    // The endpoint was never called for it; the others all finished.
    expect(user.requests).toHaveLength(blockers.length);
    for (const id of blockers) expect((await fixtures.waitForStatus(server, id)).status.value).toBe('EVALUATION_FINISHED');
    const cancel = await server.request('POST', `/evaluations/${queued!.id}/cancel`);
    expect(cancel.status).toBe(409);
  });
});
