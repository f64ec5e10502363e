// Each case stored once, and only by the worker holding the run's lease
// (docs/evaluation-engine.md#fencing, docs/operations.md#several-instances): a case stored meanwhile
// by another worker is neither stored again nor counted, and a worker whose lease was taken over
// stores nothing more.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createGate, useEndpoints, sleep } from '../../test/helpers/endpoints.js';
import { createApp, getScenarios, startEndpointEvaluation, waitForStatus } from '../../test/helpers/evaluations.js';

const server = useTestServer();
const endpoint = useEndpoints();
let appId: string;

beforeAll(async () => {
  appId = await createApp(server, 'fencing');
});

/** The ids of the traces the runner stored for an evaluation's calls. */
async function evaluationTraceIds(evaluationId: string): Promise<string[]> {
  const { db, sql } = server.assay.services;
  const rows = await sql.query<{ traceId: string }>(
    db,
    `SELECT DISTINCT "traceId" FROM "Span" WHERE ${sql.jsonMember('"attributes"', 'assay.evaluation_id')} = ? ORDER BY "traceId"`,
    [evaluationId],
  );
  return rows.map((row) => row.traceId);
}

describe('a case stored meanwhile by another worker', () => {
  it('is neither stored again nor counted twice, and the rest of its batch is stored', async () => {
    // Case "b" is held until a scenario for it has been written behind the runner's back, as a
    // worker that took the lease over would have written it (with its count).
    const gate = createGate();
    const user = await endpoint(async (request) => {
      if (request.body.inputs.q === 'b') await gate.wait();
      return { body: { data: 'ok' } };
    });
    const {
      testset,
      evaluation: { id },
    } = await startEndpointEvaluation(
      server,
      user.url,
      ['a', 'b', 'c'].map((q) => ({ q, correct_answer: 'ok' })),
      { appId, rate_limit: { batch_size: 3 } },
    );
    await user.waitForRequests(3);
    const db = server.assay.db;
    const evaluation = await db.evaluation.findUniqueOrThrow({ where: { id } });
    const row = await db.testsetRow.findFirstOrThrow({ where: { testsetId: testset.id, data: { equals: { q: 'b', correct_answer: 'ok' } } } });
    const other = await db.evaluationScenario.create({
      data: {
        projectId: evaluation.projectId,
        evaluationId: id,
        position: row.position,
        testsetRowId: row.id,
        inputs: [],
        output: { type: 'text', value: 'by the other worker', error: null },
        correctAnswers: [],
      },
    });
    await db.evaluation.update({ where: { id }, data: { done: { increment: 1 } } });
    gate.open();
    expect(await waitForStatus(server, id)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED', error: null },
      progress: { total: 3, done: 3, errors: 0 },
    });
    const scenarios = await getScenarios(server, id);
    expect(scenarios.map((s) => s.outputs[0].result.value)).toEqual(['ok', 'by the other worker', 'ok']);
    expect(scenarios[1].id).toBe(other.id);
    expect(scenarios[1].results).toEqual([]);
    // The call made here for "b" left no trace: traces are stored with their scenarios, or not at all.
    const stored = await db.evaluationScenario.findMany({ where: { evaluationId: id }, orderBy: { position: 'asc' } });
    expect(await evaluationTraceIds(id)).toEqual([stored[0].traceId, stored[2].traceId].sort());
  });
});

describe('a worker whose lease another worker took over', () => {
  it('writes nothing more and does not fail the run, which goes on once the lease is free again', async () => {
    // Its cases are held until the lease has moved to "another worker" (as after a long pause of
    // this one, docs/operations.md#several-instances); the renewal, every 10 s here, comes later.
    const gate = createGate();
    const user = await endpoint(async () => {
      await gate.wait();
      return { body: { data: 'ok' } };
    });
    const {
      evaluation: { id },
    } = await startEndpointEvaluation(
      server,
      user.url,
      ['a', 'b'].map((q) => ({ q, correct_answer: 'ok' })),
      { appId, rate_limit: { batch_size: 2 } },
    );
    await user.waitForRequests(2);
    const db = server.assay.db;
    await db.evaluation.update({ where: { id }, data: { leaseOwner: 'another worker', leaseExpiresAt: new Date(Date.now() + 60_000) } });
    gate.open();
    const runningNow = async () => Number(/^assay_evaluations_running\{kind="evaluation"\} (\d+)$/m.exec((await server.request('GET', '/metrics')).text)?.[1]);
    while ((await runningNow()) > 0) await sleep(20);
    // Its batch was refused whole: no scenario, no count, and the run is not failed.
    expect(await db.evaluationScenario.count({ where: { evaluationId: id } })).toBe(0);
    expect(await db.evaluation.findUniqueOrThrow({ where: { id }, select: { status: true, done: true, leaseOwner: true } })).toEqual({
      status: 'EVALUATION_STARTED',
      done: 0,
      leaseOwner: 'another worker',
    });

    // The other worker is gone: the lease is free, and the run is taken again and finished.
    await db.evaluation.update({ where: { id }, data: { leaseOwner: null, leaseExpiresAt: null } });
    server.assay.services.events.publish('jobs:created', 'evaluation');
    expect(await waitForStatus(server, id)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED', error: null },
      progress: { total: 2, done: 2, errors: 0 },
    });
    expect(await db.evaluationScenario.count({ where: { evaluationId: id } })).toBe(2);
  });
});
