// The contract shapes of HumanEvaluation (2.6) and HumanEvaluationScenario (2.7), operations 4.5
// and 4.6. Rows are stored directly here; creating human evaluations is tested elsewhere.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();
let evaluationId: string;

beforeAll(async () => {
  const appId = (await server.request('POST', '/apps', { app_name: 'human-reads' })).body.app_id;
  const db = server.assay.db;
  const project = await db.project.findFirstOrThrow();
  evaluationId = (
    await db.humanEvaluation.create({
      data: {
        projectId: project.id,
        appId,
        evaluationType: 'human_a_b_testing',
        status: 'EVALUATION_FINISHED',
        variantIds: ['va', 'vb'],
        variantNames: ['a', 'b'],
        variantRevisionIds: ['ra', 'rb'],
        revisions: [1, 3],
        testsetId: 'ts-1',
        testsetName: 'capitals',
        inputs: ['country'],
        scenarios: {
          create: [
            { projectId: project.id, position: 1, inputs: [{ input_name: 'country', input_value: 'Peru' }], outputs: [], score: 80 },
            {
              projectId: project.id,
              position: 0,
              inputs: [{ input_name: 'country', input_value: 'France' }],
              outputs: [
                { variant_id: 'va', variant_output: 'Paris' },
                { variant_id: 'vb', variant_output: 'Lyon' },
              ],
              vote: 'va',
              correctAnswer: 'Paris',
            },
          ],
        },
      },
    })
  ).id;
});

describe('reading human evaluations', () => {
  it('answers a HumanEvaluation with every field of docs/contract.md 2.6 (operation 4.5)', async () => {
    const response = await server.request('GET', `/human-evaluations/${evaluationId}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: evaluationId,
      app_id: expect.any(String),
      project_id: expect.any(String),
      evaluation_type: 'human_a_b_testing',
      variant_ids: ['va', 'vb'],
      variant_names: ['a', 'b'],
      variants_revision_ids: ['ra', 'rb'],
      revisions: ['1', '3'],
      testset_id: 'ts-1',
      testset_name: 'capitals',
      status: 'EVALUATION_FINISHED',
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
  });

  it('answers scenarios in test set order with every field of docs/contract.md 2.7 (operation 4.6)', async () => {
    const response = await server.request('GET', `/human-evaluations/${evaluationId}/evaluation_scenarios`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      {
        id: expect.any(String),
        evaluation_id: evaluationId,
        inputs: [{ input_name: 'country', input_value: 'France' }],
        outputs: [
          { variant_id: 'va', variant_output: 'Paris' },
          { variant_id: 'vb', variant_output: 'Lyon' },
        ],
        vote: 'va',
        score: null,
        correct_answer: 'Paris',
        is_pinned: false,
        note: '',
      },
      {
        id: expect.any(String),
        evaluation_id: evaluationId,
        inputs: [{ input_name: 'country', input_value: 'Peru' }],
        outputs: [],
        vote: null,
        score: 80,
        correct_answer: null,
        is_pinned: false,
        note: '',
      },
    ]);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const path of ['/human-evaluations/nope', '/human-evaluations/nope/evaluation_scenarios']) {
      const response = await server.request('GET', path);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'HumanEvaluation with id nope not found' });
    }
  });

  it('reads the same evaluation through GraphQL', async () => {
    const response = await server.graphql(
      `query($id: ID!) { humanEvaluation(id: $id) { evaluationType status revisions scenarios { edges { node { vote score inputs { inputName inputValue } } } } } }`,
      { id: globalId('HumanEvaluation', evaluationId) },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data.humanEvaluation).toMatchObject({ evaluationType: 'HUMAN_A_B_TESTING', status: 'EVALUATION_FINISHED', revisions: ['1', '3'] });
    expect(response.data.humanEvaluation.scenarios.edges.map((e: any) => e.node.vote)).toEqual([globalId('Variant', 'va'), null]);
  });
});
