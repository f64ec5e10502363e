// An evaluation pins the test set revision it was created on (docs/resources.md#test-set-revisions):
// it runs that revision's rows even when the set changed since, shows the number over GraphQL and
// the comparison, and a comparison of evaluations on different revisions says so, row by row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeEndpoint, startEndpoint } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();
let user: FakeEndpoint;

beforeAll(async () => {
  user = await startEndpoint((request) => ({ body: { data: String(request.body.inputs.country) } }));
});
afterAll(() => user.close());

const countries = (scenarios: any[]) => scenarios.map((scenario) => scenario.inputs[0].value);

describe('an evaluation over a test set that changes', () => {
  it('runs and shows the revision it was created on; comparisons flag different revisions and changed cases', async () => {
    const started = await fixtures.startEndpointEvaluation(server, user.url, [
      { country: 'France', correct_answer: 'France' },
      { country: 'Spain', correct_answer: 'Spain' },
    ]);
    const { appId, variant, testset, config } = started;
    const first = started.evaluation.id;
    await fixtures.waitForStatus(server, first);
    const rows = (await server.request('GET', `/testsets/${testset.id}/revisions/1`)).body.rows;
    expect(
      (await server.request('PATCH', `/testsets/${testset.id}/rows`, { rows: [{ row_id: rows[0].id, data: { country: 'Italy', correct_answer: 'Italy' } }] }))
        .status,
    ).toBe(200);
    expect((await server.request('POST', `/testsets/${testset.id}/rows`, { rows: [{ country: 'Peru', correct_answer: 'Peru' }] })).status).toBe(200);

    const request = { app_id: appId, variant_ids: [variant.variant_id], evaluators_configs: [config.id], testset_id: testset.id };
    const second = (await fixtures.startEvaluation(server, request)).id;
    await fixtures.waitForStatus(server, second);
    expect(countries(await fixtures.getScenarios(server, first))).toEqual(['France', 'Spain']);
    expect(countries(await fixtures.getScenarios(server, second))).toEqual(['Italy', 'Spain', 'Peru']);

    // A run pinned to revision 1 (as a resumed or queued one is) reads revision 1, not the set as it is now.
    const db = server.assay.db;
    const stored = await db.evaluation.findUniqueOrThrow({ where: { id: first }, include: { evaluators: true } });
    const pinned = await db.evaluation.create({
      data: {
        projectId: stored.projectId,
        appId: stored.appId,
        variantId: stored.variantId,
        variantName: stored.variantName,
        variantRevisionId: stored.variantRevisionId,
        revision: stored.revision,
        testsetId: stored.testsetId,
        testsetName: stored.testsetName,
        testsetRevision: 1,
        rateLimit: stored.rateLimit ?? {},
        evaluators: { create: stored.evaluators.map(({ evaluatorConfigId, position }) => ({ evaluatorConfigId, position })) },
      },
    });
    server.assay.services.events.publish('jobs:created', 'evaluation');
    const status = await fixtures.waitForStatus(server, pinned.id);
    expect(status.progress.total).toBe(2);
    expect(countries(await fixtures.getScenarios(server, pinned.id))).toEqual(['France', 'Spain']);

    const evaluation = await server.graphql(`query($id: ID!) { node(id: $id) { ... on Evaluation { testsetRevision } } }`, {
      id: globalId('Evaluation', second),
    });
    expect(evaluation.data.node.testsetRevision).toBe(3);
    // The contract's Evaluation (2.4) keeps its exact fields.
    expect(Object.keys(await fixtures.getEvaluation(server, second)).sort()).toEqual(fixtures.EVALUATION_FIELDS);

    const compare = async (ids: string[]) =>
      (
        await server.graphql(`query($ids: [ID!]!) { evaluationComparison(ids: $ids) { position revisionsDiffer caseDiffers } }`, {
          ids: ids.map((id) => globalId('Evaluation', id)),
        })
      ).data.evaluationComparison;
    expect(await compare([first, second])).toEqual([
      { position: 0, revisionsDiffer: true, caseDiffers: true },
      { position: 1, revisionsDiffer: true, caseDiffers: false },
      { position: 2, revisionsDiffer: true, caseDiffers: true },
    ]);
    expect(await compare([first, pinned.id])).toEqual([
      { position: 0, revisionsDiffer: false, caseDiffers: false },
      { position: 1, revisionsDiffer: false, caseDiffers: false },
    ]);
    const rest = await server.request('GET', `/evaluations/evaluation_scenarios/comparison-results?evaluations_ids=${first},${second}`);
    expect(rest.status).toBe(200);
    expect(rest.body.map((row: any) => [row.case_differs, row.variants.map((cell: any) => cell.testset_revision)])).toEqual([
      [true, [1, 3]],
      [false, [1, 3]],
      [true, [1, 3]],
    ]);
  });
});
