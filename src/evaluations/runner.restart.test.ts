// Durable runs (docs/evaluations.md#durability): the service is killed (SIGKILL, no shutdown work)
// in the middle of an evaluation and started again on the same database; the run resumes where it
// stopped, and each test case ends up with exactly one scenario. Runs the real service as a child
// process.
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeEndpoint, sleep, startEndpoint } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';
import { useServiceDatabase } from '../../test/helpers/process.js';
import { globalId } from '../shared/graphql/ids.js';

const service = useServiceDatabase('assay-restart-', { EVALUATION_LEASE_SECONDS: '1' });
const CASES = 40;

let user: FakeEndpoint | undefined;

afterAll(async () => {
  await user?.close();
});

describe('an evaluation interrupted by a crash', () => {
  it('resumes after a restart without losing or repeating a test case', { timeout: 60_000 }, async () => {
    user = await startEndpoint(async (request) => {
      await sleep(100);
      return { body: { data: `answer ${request.body.inputs.n}` } };
    });

    const first = await service.start();
    const appId = await fixtures.createApp(first, 'durable');
    const variant = await fixtures.createEndpointVariant(first, appId, user.url);
    const rows = Array.from({ length: CASES }, (_, n) => ({ n, correct_answer: `answer ${n}` }));
    const testset = await fixtures.createTestset(first, rows);
    const exact = await fixtures.createConfig(first, appId, 'auto_exact_match');
    const { id } = await fixtures.startEvaluation(first, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id],
      testset_id: testset.id,
      rate_limit: { batch_size: 4 },
    });

    // Some batches are stored, most are not: kill it there.
    const before = await fixtures.waitForDone(first, id, 8, 15_000);
    expect(before.status.value).toBe('EVALUATION_STARTED');
    expect(before.progress.done).toBeLessThan(CASES);
    await first.kill();
    const callsBeforeRestart = user.requests.length;

    // What the killed process had stored (committed), read from its database.
    const stored = (await service.query<{ position: number }>('SELECT "position" FROM "EvaluationScenario" WHERE "evaluationId" = ?', [id])).map(
      (row) => row.position,
    );
    const [{ done }] = await service.query<{ done: number }>('SELECT "done" FROM "Evaluation" WHERE "id" = ?', [id]);
    expect(stored.length).toBeGreaterThanOrEqual(8);
    expect(stored.length).toBeLessThan(CASES);
    expect(done).toBe(stored.length);

    const second = await service.start();
    expect(await fixtures.waitForStatus(second, id, undefined, 30_000)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED', error: null },
      progress: { total: CASES, done: CASES, errors: 0 },
    });

    // Exactly one scenario per test case, in test set order.
    const scenarios = await fixtures.getScenarios(second, id);
    expect(scenarios).toHaveLength(CASES);
    expect(scenarios.map((s) => s.inputs[0].value)).toEqual(rows.map((row) => row.n));
    expect(scenarios.every((s) => s.outputs[0].result.value === `answer ${s.inputs[0].value}`)).toBe(true);
    const positions = await second.graphql(`query($id: ID!) { evaluation(id: $id) { scenarios(first: 100) { edges { node { position } } } } }`, {
      id: globalId('Evaluation', id),
    });
    expect(positions.data.evaluation.scenarios.edges.map((e: any) => e.node.position)).toEqual(rows.map((_, n) => n));

    // After the restart only the cases not stored before were called, each once.
    const calledAfter = user.requests.slice(callsBeforeRestart).map((r) => r.body.inputs.n as number);
    const storedSet = new Set(stored);
    expect([...calledAfter].sort((a, b) => a - b)).toEqual(rows.map((_, n) => n).filter((n) => !storedSet.has(n)));

    const evaluation = (await second.request('GET', `/evaluations/${id}`)).body;
    expect(evaluation.aggregated_results.map((a: any) => a.result)).toEqual([{ type: 'number', value: 1, error: null }]);
    expect(await second.stop()).toBe(0);
  });
});
