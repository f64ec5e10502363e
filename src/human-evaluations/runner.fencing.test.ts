// Output generation is fenced by the run's lease (docs/evaluation-engine.md#fencing,
// docs/operations.md#several-instances): a worker whose lease another worker took over (as after a
// long pause of this one) stores no output, no trace and no count, does not end the run, and the
// run goes on once the lease is free again.
import { beforeAll, describe, expect, it } from 'vitest';
import { createGate, useEndpoints, sleep } from '../../test/helpers/endpoints.js';
import { createApp, createEndpointVariant, createTestset } from '../../test/helpers/evaluations.js';
import { createHumanEvaluation, waitForHumanStatus } from '../../test/helpers/human-evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';

const server = useTestServer();
const endpoint = useEndpoints();
let appId: string;

beforeAll(async () => {
  appId = await createApp(server, 'human-fencing');
});

/** Output generation runs under way in this process, from the running-evaluations gauge. */
async function generationsRunning(): Promise<number> {
  const metrics = (await server.request('GET', '/metrics')).text;
  return Number(/^assay_evaluations_running\{kind="human-evaluation"\} (\d+)$/m.exec(metrics)?.[1]);
}

/** How many spans were stored for the calls of this human evaluation. */
async function storedSpans(evaluationId: string): Promise<number> {
  const { db, sql } = server.assay.services;
  const rows = await sql.query<{ n: number | bigint }>(
    db,
    `SELECT COUNT(*) AS "n" FROM "Span" WHERE ${sql.jsonMember('"attributes"', 'assay.human_evaluation_id')} = ?`,
    [evaluationId],
  );
  return Number(rows[0].n);
}

describe('a generating worker whose lease another worker took over', () => {
  it('stores nothing more and does not end the run, which goes on once the lease is free again', async () => {
    // Its calls are held until the lease has moved to "another worker"; the renewal, every 10 s
    // here, comes later.
    const gate = createGate();
    const user = await endpoint(async (request) => {
      await gate.wait();
      return { body: `answer to ${request.body.inputs.question}` };
    });
    const variantId = (await createEndpointVariant(server, appId, user.url)).variant_id;
    const testset = await createTestset(server, [{ question: 'a' }, { question: 'b' }]);
    const { id } = await createHumanEvaluation(server, {
      app_id: appId,
      variant_ids: [variantId],
      evaluation_type: 'single_model_test',
      inputs: ['question'],
      testset_id: testset.id,
    });
    await user.waitForRequests(2);
    const db = server.assay.db;
    await db.humanEvaluation.update({ where: { id }, data: { leaseOwner: 'another worker', leaseExpiresAt: new Date(Date.now() + 60_000) } });
    gate.open();
    while ((await generationsRunning()) > 0) await sleep(20);

    // Its batch was refused whole: no output, no trace, no count, and the run is not ended.
    const scenarios = await db.humanEvaluationScenario.findMany({ where: { humanEvaluationId: id }, select: { outputs: true } });
    expect(scenarios.map((scenario) => scenario.outputs)).toEqual([[], []]);
    expect(await storedSpans(id)).toBe(0);
    expect(await db.humanEvaluation.findUniqueOrThrow({ where: { id }, select: { status: true, done: true, leaseOwner: true } })).toEqual({
      status: 'EVALUATION_STARTED',
      done: 0,
      leaseOwner: 'another worker',
    });

    // The other worker is gone: the lease is free, and the run is taken again and finished.
    await db.humanEvaluation.update({ where: { id }, data: { leaseOwner: null, leaseExpiresAt: null } });
    server.assay.services.events.publish('jobs:created', 'human-evaluation');
    expect(await waitForHumanStatus(server, id)).toMatchObject({ status: 'EVALUATION_FINISHED' });
    const generated = (await server.request('GET', `/human-evaluations/${id}/evaluation_scenarios`)).body;
    expect(generated.map((scenario: any) => scenario.outputs)).toEqual([
      [{ variant_id: variantId, variant_output: 'answer to a' }],
      [{ variant_id: variantId, variant_output: 'answer to b' }],
    ]);
    expect(await storedSpans(id)).toBe(2);
  });
});
