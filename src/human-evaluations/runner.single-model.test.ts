// Output generation of single model tests end to end (docs/human-evaluations.md): a variant that
// fails, a run resumed from an expired lease, a live lease left alone, and status changes that stop
// and resume it. Lists and deletes are in routes.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeEndpoint, createGate, sleep, startEndpoint } from '../../test/helpers/endpoints.js';
import { createApp, createEndpointVariant, createTestset } from '../../test/helpers/evaluations.js';
import { createHumanEvaluation, judge, waitForHumanStatus } from '../../test/helpers/human-evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';

// A short lease: the scan for runs whose worker died comes every half lease.
const server = useTestServer({ EVALUATION_LEASE_SECONDS: '1' });
let user: FakeEndpoint;
let appId: string;
let variantId: string;

beforeAll(async () => {
  user = await startEndpoint((request) => {
    const question = request.body.inputs.question as string;
    // A plain-text answer; "boom" makes the endpoint refuse (a 400 is not retried).
    if (question === 'boom') return { status: 400, body: 'cannot answer that' };
    return { body: `answer to ${question}` };
  });
  appId = await createApp(server, 'single-app');
  variantId = (await createEndpointVariant(server, appId, user.url, { name: 'only' })).variant_id;
});
afterAll(async () => {
  await user.close();
});

/** A single model test of `variant` over test set `rows` (with `question` as input), created with `status` if given. */
async function singleModelTest(variant: string, rows: Record<string, unknown>[], status?: string) {
  const testset = await createTestset(server, rows);
  return createHumanEvaluation(server, {
    app_id: appId,
    variant_ids: [variant],
    evaluation_type: 'single_model_test',
    inputs: ['question'],
    testset_id: testset.id,
    ...(status ? { status } : {}),
  });
}

async function scenariosOf(evaluationId: string): Promise<any[]> {
  const response = await server.request('GET', `/human-evaluations/${evaluationId}/evaluation_scenarios`);
  expect(response.status).toBe(200);
  return response.body;
}

describe('a single model test', () => {
  it('generates the outputs, takes scores (integers or integer strings) and counts them per score', async () => {
    const created = await singleModelTest(variantId, [
      { question: 'one', correct_answer: 1 },
      { question: 'two', correct_answer: 'zwei' },
      { question: 'three' },
    ]);
    expect(created).toMatchObject({ evaluation_type: 'single_model_test', variant_ids: [variantId], variant_names: ['only'], revisions: ['1'] });
    expect((await waitForHumanStatus(server, created.id)).status).toBe('EVALUATION_FINISHED');

    const scenarios = await scenariosOf(created.id);
    expect(scenarios.map((s) => [s.inputs, s.outputs, s.correct_answer])).toEqual([
      [[{ input_name: 'question', input_value: 'one' }], [{ variant_id: variantId, variant_output: 'answer to one' }], '1'],
      [[{ input_name: 'question', input_value: 'two' }], [{ variant_id: variantId, variant_output: 'answer to two' }], 'zwei'],
      [[{ input_name: 'question', input_value: 'three' }], [{ variant_id: variantId, variant_output: 'answer to three' }], null],
    ]);

    const scored = await judge(server, created.id, scenarios[0].id, 'single_model_test', { score: 80 });
    expect(scored).toMatchObject({ id: scenarios[0].id, score: 80, vote: null });
    await judge(server, created.id, scenarios[1].id, 'single_model_test', { score: '80' });
    await judge(server, created.id, scenarios[2].id, 'single_model_test', { score: 40, note: 'too short', is_pinned: true, correct_answer: 'drei' });

    const after = await scenariosOf(created.id);
    expect(after.map((s) => s.score)).toEqual([80, 80, 40]);
    expect(after[2]).toMatchObject({ note: 'too short', is_pinned: true, correct_answer: 'drei' });

    const results = await server.request('GET', `/human-evaluations/${created.id}/results`);
    expect(results.status).toBe(200);
    expect(results.body).toEqual({ results_data: { '40': 1, '80': 2 } });

    // Mean 66.67, sd 23.094; t(2) = 4.303 → 66.67 ± 57.373.
    const response = await server.graphql(
      `query($id: ID!) { humanEvaluation(id: $id) { statistics { judgements positionBias { decisive }
          variants { scores meanScore scoreStddev scoreInterval { low high } wins } } } }`,
      { id: globalId('HumanEvaluation', created.id) },
    );
    const stats = response.data.humanEvaluation.statistics;
    expect(stats.judgements).toBe(3);
    expect(stats.positionBias).toBeNull();
    const [variant] = stats.variants;
    expect(variant.scores).toBe(3);
    expect(variant.wins).toBe(0);
    expect(variant.meanScore).toBeCloseTo(66.6667, 4);
    expect(variant.scoreStddev).toBeCloseTo(23.094, 3);
    expect(variant.scoreInterval.low).toBeCloseTo(9.2933, 3);
    expect(variant.scoreInterval.high).toBeCloseTo(124.04, 3);
  });

  it('records a failed variant call in the output text, flags the scenario and ends with errors', async () => {
    const created = await singleModelTest(variantId, [{ question: 'fine' }, { question: 'boom' }]);
    expect((await waitForHumanStatus(server, created.id)).status).toBe('EVALUATION_FINISHED_WITH_ERRORS');
    const scenarios = await scenariosOf(created.id);
    const message = `The endpoint ${user.url} answered 400: cannot answer that`;
    expect(scenarios.map((s) => s.outputs)).toEqual([
      [{ variant_id: variantId, variant_output: 'answer to fine' }],
      [{ variant_id: variantId, variant_output: `Error: ${message}` }],
    ]);
    const response = await server.graphql(
      `query($id: ID!) { humanEvaluation(id: $id) { progress { total done errors } scenarios { edges { node { hasError outputs { error } } } } } }`,
      { id: globalId('HumanEvaluation', created.id) },
    );
    expect(response.data.humanEvaluation.progress).toEqual({ total: 2, done: 2, errors: 1 });
    expect(response.data.humanEvaluation.scenarios.edges.map((e: any) => e.node)).toEqual([
      { hasError: false, outputs: [{ error: null }] },
      { hasError: true, outputs: [{ error: message }] },
    ]);
    // The error scenario can still be judged (say, with a 0).
    const judged = await judge(server, created.id, scenarios[1].id, 'single_model_test', { score: 0 });
    expect(judged.score).toBe(0);
  });

  it('resumes a run whose worker died (expired lease) and calls only the cases without outputs', async () => {
    // Created as if a client filled outputs itself, so the runner leaves it alone for now.
    const created = await singleModelTest(variantId, [{ question: 'r0' }, { question: 'r1' }, { question: 'r2' }], 'EVALUATION_CANCELLED');
    const db = server.assay.db;
    const [first] = await scenariosOf(created.id);
    // A worker of a dead process: it started the run, stored the first case, then its lease expired.
    await db.humanEvaluationScenario.update({
      where: { id: first.id },
      data: { outputs: [{ variant_id: variantId, variant_output: 'stored before the crash', error: null }] },
    });
    const callsBefore = user.requests.length;
    await db.humanEvaluation.update({
      where: { id: created.id },
      data: { status: 'EVALUATION_STARTED', done: 1, leaseOwner: 'dead-process', leaseExpiresAt: new Date(Date.now() - 1000) },
    });
    // The periodic scan (every half lease: 500 ms here) picks it up.
    expect((await waitForHumanStatus(server, created.id)).status).toBe('EVALUATION_FINISHED');
    expect(user.requests.slice(callsBefore).map((r) => r.body.inputs.question)).toEqual(['r1', 'r2']);
    expect((await scenariosOf(created.id)).map((s) => s.outputs[0].variant_output)).toEqual(['stored before the crash', 'answer to r1', 'answer to r2']);
    const row = await db.humanEvaluation.findUniqueOrThrow({ where: { id: created.id } });
    expect({ done: row.done, errors: row.errors, leaseOwner: row.leaseOwner }).toEqual({ done: 3, errors: 0, leaseOwner: null });
  });

  it('keeps outputs a client stored during the call, and stores no trace of that call', async () => {
    const gate = createGate();
    const held = await startEndpoint(async (request) => {
      if (request.body.inputs.question === 'h1') await gate.wait();
      return { body: `held answer to ${request.body.inputs.question}` };
    });
    try {
      const heldVariant = (await createEndpointVariant(server, appId, held.url, { name: 'held' })).variant_id;
      const created = await singleModelTest(heldVariant, [{ question: 'h0' }, { question: 'h1' }]);
      await held.waitForRequests(2);
      const db = server.assay.db;
      const [first, second] = await db.humanEvaluationScenario.findMany({ where: { humanEvaluationId: created.id }, orderBy: { position: 'asc' } });
      await db.humanEvaluationScenario.update({
        where: { id: second.id },
        data: { outputs: [{ variant_id: heldVariant, variant_output: 'by a client', error: null }] },
      });
      gate.open();
      expect((await waitForHumanStatus(server, created.id)).status).toBe('EVALUATION_FINISHED');
      expect((await scenariosOf(created.id)).map((s) => s.outputs[0].variant_output)).toEqual(['held answer to h0', 'by a client']);
      // A trace is stored with the output it belongs to, or not at all.
      const { sql } = server.assay.services;
      const traced = await sql.query<{ position: number | string }>(
        db,
        `SELECT ${sql.jsonMember('"attributes"', 'assay.testcase.position')} AS "position" FROM "Span"
         WHERE ${sql.jsonMember('"attributes"', 'assay.human_evaluation_id')} = ?`,
        [created.id],
      );
      expect(traced.map((row) => Number(row.position))).toEqual([first.position]);
    } finally {
      await held.close();
    }
  });

  it('leaves a scenario alone while a live worker holds the lease', async () => {
    const created = await singleModelTest(variantId, [{ question: 'held' }], 'EVALUATION_CANCELLED');
    const callsBefore = user.requests.length;
    await server.assay.db.humanEvaluation.update({
      where: { id: created.id },
      data: { status: 'EVALUATION_STARTED', leaseOwner: 'another-live-process', leaseExpiresAt: new Date(Date.now() + 60_000) },
    });
    await sleep(800);
    expect(user.requests.length).toBe(callsBefore);
    expect((await server.request('GET', `/human-evaluations/${created.id}`)).body.status).toBe('EVALUATION_STARTED');
  });
});

describe('status changes and a missing revision', () => {
  it('stops generating when the status is set to a final value, and resumes when set back', async () => {
    const gate = createGate();
    const slow = await startEndpoint(async (request) => {
      await gate.wait();
      return { body: { message: `slow ${request.body.inputs.question}` } };
    });
    try {
      const variant = (await createEndpointVariant(server, appId, slow.url)).variant_id;
      const created = await singleModelTest(variant, [{ question: 'a' }, { question: 'b' }]);
      await slow.waitForRequests(2);
      expect((await server.request('GET', `/human-evaluations/${created.id}`)).body.status).toBe('EVALUATION_STARTED');

      const cancelled = await server.request('PUT', `/human-evaluations/${created.id}`, { status: 'EVALUATION_CANCELLED' });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ id: created.id, status: 'EVALUATION_CANCELLED' });
      gate.open();
      await sleep(300);
      // The calls under way were abandoned: nothing stored, and the status stays the user's.
      expect((await scenariosOf(created.id)).map((s) => s.outputs)).toEqual([[], []]);
      expect((await server.request('GET', `/human-evaluations/${created.id}`)).body.status).toBe('EVALUATION_CANCELLED');

      const resumed = await server.request('PUT', `/human-evaluations/${created.id}`, { status: 'EVALUATION_INITIALIZED' });
      expect(resumed.body.status).toBe('EVALUATION_INITIALIZED');
      expect((await waitForHumanStatus(server, created.id)).status).toBe('EVALUATION_FINISHED');
      expect((await scenariosOf(created.id)).map((s) => s.outputs[0].variant_output)).toEqual(['slow a', 'slow b']);
    } finally {
      await slow.close();
    }
  });

  it('fails, saying why, when a variant revision it pinned no longer exists', async () => {
    const doomed = (await createEndpointVariant(server, appId, user.url)).variant_id;
    const created = await singleModelTest(doomed, [{ question: 'q' }], 'EVALUATION_CANCELLED');
    expect((await server.request('DELETE', `/variants/${doomed}`)).status).toBe(204);
    await server.request('PUT', `/human-evaluations/${created.id}`, { status: 'EVALUATION_INITIALIZED' });
    expect((await waitForHumanStatus(server, created.id)).status).toBe('EVALUATION_FAILED');
    const response = await server.graphql(`query($id: ID!) { humanEvaluation(id: $id) { statusError } }`, { id: globalId('HumanEvaluation', created.id) });
    const revisionId = created.variants_revision_ids[0];
    expect(response.data.humanEvaluation.statusError).toBe(
      `The variant revision ${revisionId} (${created.variant_names[0]}) of this evaluation no longer exists`,
    );
  });
});
