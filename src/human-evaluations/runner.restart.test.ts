// Durable output generation (docs/human-evaluations.md: durable like automatic evaluations): the
// service is killed (SIGKILL) while it generates the outputs of an A/B test and started again on
// the same database; the run resumes, each case's variants are called again only where nothing was
// stored, and every scenario ends up with both outputs exactly once. Runs the real service as a
// child process.
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeEndpoint, sleep, startEndpoint } from '../../test/helpers/endpoints.js';
import { createApp, createEndpointVariant, createTestset } from '../../test/helpers/evaluations.js';
import { createHumanEvaluation, waitForHumanStatus } from '../../test/helpers/human-evaluations.js';
import { useServiceDatabase } from '../../test/helpers/process.js';
import { globalId } from '../shared/graphql/ids.js';

const service = useServiceDatabase('assay-human-restart-', { EVALUATION_LEASE_SECONDS: '1' });
const CASES = 30;

let user: FakeEndpoint | undefined;

afterAll(async () => {
  await user?.close();
});

async function storedPositions(evaluationId: string): Promise<number[]> {
  const rows = await service.query<{ position: number }>(
    `SELECT "position" FROM "HumanEvaluationScenario" WHERE "humanEvaluationId" = ? AND "outputs" <> '[]' ORDER BY "position"`,
    [evaluationId],
  );
  return rows.map((row) => row.position);
}

describe('an A/B test whose output generation is interrupted by a crash', () => {
  it('resumes after a restart without losing or repeating a case', { timeout: 60_000 }, async () => {
    user = await startEndpoint(async (request) => {
      await sleep(60);
      return { body: { data: `${request.body.parameters.side} ${request.body.inputs.n}` } };
    });
    const first = await service.start();
    const appId = await createApp(first, 'durable-human');
    const left = (await createEndpointVariant(first, appId, user.url, { name: 'left', parameters: { side: 'L' } })).variant_id;
    const right = (await createEndpointVariant(first, appId, user.url, { name: 'right', parameters: { side: 'R' } })).variant_id;
    const rows = Array.from({ length: CASES }, (_, n) => ({ n: String(n) }));
    const testset = await createTestset(first, rows);
    const { id } = await createHumanEvaluation(first, {
      app_id: appId,
      variant_ids: [left, right],
      evaluation_type: 'human_a_b_testing',
      inputs: ['n'],
      testset_id: testset.id,
    });

    // Wait until some batches (10 cases each) are stored, then kill it mid-run.
    const deadline = Date.now() + 15_000;
    while ((await storedPositions(id)).length < 10 && Date.now() < deadline) await sleep(20);
    await first.kill();
    const stored = await storedPositions(id);
    expect(stored.length).toBeGreaterThanOrEqual(10);
    expect(stored.length).toBeLessThan(CASES);
    const callsBefore = user.requests.length;

    const second = await service.start();
    expect((await waitForHumanStatus(second, id, undefined, 30_000)).status).toBe('EVALUATION_FINISHED');

    const scenarios = (await second.request('GET', `/human-evaluations/${id}/evaluation_scenarios`)).body;
    expect(scenarios).toHaveLength(CASES);
    expect(scenarios.map((s: any) => s.outputs)).toEqual(
      rows.map((row) => [
        { variant_id: left, variant_output: `L ${row.n}` },
        { variant_id: right, variant_output: `R ${row.n}` },
      ]),
    );
    // After the restart only the cases not stored before were called, each once per variant.
    const storedSet = new Set(stored);
    const calledAfter = user.requests.slice(callsBefore).map((r) => `${r.body.parameters.side}${r.body.inputs.n}`);
    const expected = rows.flatMap((_, n) => (storedSet.has(n) ? [] : [`L${n}`, `R${n}`]));
    expect(calledAfter.sort()).toEqual(expected.sort());
    const progress = await second.graphql(`query($id: ID!) { humanEvaluation(id: $id) { progress { total done errors } } }`, {
      id: globalId('HumanEvaluation', id),
    });
    expect(progress.data.humanEvaluation.progress).toEqual({ total: CASES, done: CASES, errors: 0 });
    expect(await second.stop()).toBe(0);
  });
});
