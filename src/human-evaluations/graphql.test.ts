// GraphQL mirrors the REST routes of human evaluations: create, judge, status, delete, and the
// "next unjudged scenario" a judging screen walks through, judge by judge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeEndpoint, startEndpoint } from '../../test/helpers/endpoints.js';
import { createApp, createEndpointVariant, createTestset } from '../../test/helpers/evaluations.js';
import { waitForHumanStatus } from '../../test/helpers/human-evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();
let user: FakeEndpoint;
let appId: string;
let variantA: string;
let variantB: string;
let testsetId: string;

beforeAll(async () => {
  user = await startEndpoint((request) => ({ body: { data: `${request.body.parameters.name}: ${request.body.inputs.word}` } }));
  appId = await createApp(server, 'graphql-human');
  variantA = (await createEndpointVariant(server, appId, user.url, { name: 'va', parameters: { name: 'A' } })).variant_id;
  variantB = (await createEndpointVariant(server, appId, user.url, { name: 'vb', parameters: { name: 'B' } })).variant_id;
  testsetId = (await createTestset(server, [{ word: 'one' }, { word: 'two' }, { word: 'three' }])).id;
});
afterAll(async () => {
  await user.close();
});

const CREATE = `mutation($input: CreateHumanEvaluationInput!) {
  createHumanEvaluation(input: $input) { id databaseId evaluationType status variantNames inputs progress { total } } }`;
const NEXT = `query($id: ID!, $judge: String) { nextHumanScenario(evaluationId: $id, judge: $judge) {
  id position inputs { inputName inputValue } shownOutputs { variantId variantOutput } } }`;
const JUDGE = `mutation($e: ID!, $s: ID!, $input: JudgeHumanScenarioInput!) {
  judgeHumanScenario(evaluationId: $e, scenarioId: $s, input: $input) { id vote score note judgements { judge vote } } }`;

describe('human evaluations through GraphQL', () => {
  let evaluationId: string;
  const human = () => globalId('HumanEvaluation', evaluationId);
  const ids = () => ({ appId: globalId('App', appId), testsetId: globalId('Testset', testsetId) });

  it('creates an A/B test; the outputs are generated as for REST', async () => {
    const response = await server.graphql(CREATE, {
      input: { ...ids(), variantIds: [variantA, variantB].map((id) => globalId('Variant', id)), evaluationType: 'HUMAN_A_B_TESTING', inputs: ['word'] },
    });
    expect(response.errors).toBeUndefined();
    expect(response.data.createHumanEvaluation).toEqual({
      id: expect.any(String),
      databaseId: expect.any(String),
      evaluationType: 'HUMAN_A_B_TESTING',
      status: 'EVALUATION_INITIALIZED',
      variantNames: ['va', 'vb'],
      inputs: ['word'],
      progress: { total: 3 },
    });
    evaluationId = response.data.createHumanEvaluation.databaseId;
    expect((await waitForHumanStatus(server, evaluationId)).status).toBe('EVALUATION_FINISHED');
  });

  it('walks each judge through the scenarios they have not judged, in test set order', async () => {
    const seen: string[] = [];
    for (;;) {
      const next = await server.graphql(NEXT, { id: human(), judge: 'zoe' });
      expect(next.errors).toBeUndefined();
      const scenario = next.data.nextHumanScenario;
      if (!scenario) break;
      seen.push(scenario.inputs[0].inputValue);
      // Both outputs, in the order recorded for this scenario.
      expect(scenario.shownOutputs.map((o: any) => o.variantOutput).sort()).toEqual([
        `A: ${scenario.inputs[0].inputValue}`,
        `B: ${scenario.inputs[0].inputValue}`,
      ]);
      const judged = await server.graphql(JUDGE, { e: human(), s: scenario.id, input: { vote: scenario.shownOutputs[1].variantId, judge: 'zoe' } });
      expect(judged.errors).toBeUndefined();
      expect(judged.data.judgeHumanScenario.judgements).toEqual([{ judge: 'zoe', vote: scenario.shownOutputs[1].variantId }]);
    }
    expect(seen).toEqual(['one', 'two', 'three']);
    // Another judge (the default one) still has every scenario ahead.
    const other = await server.graphql(NEXT, { id: human() });
    expect(other.data.nextHumanScenario.position).toBe(0);
    // zoe always chose the right-hand output: 0 of 3 on the left, p = 2 · (1/2)^3 = 0.25.
    const bias = await server.graphql(`query($id: ID!) { humanEvaluation(id: $id) { statistics { positionBias { decisive leftWins pValue } } } }`, {
      id: human(),
    });
    expect(bias.data.humanEvaluation.statistics.positionBias).toEqual({ decisive: 3, leftWins: 0, pValue: 0.25 });
  });

  it('answers the REST results through the results field', async () => {
    const response = await server.graphql(`query($id: ID!) { humanEvaluation(id: $id) { results } }`, { id: human() });
    const rest = await server.request('GET', `/human-evaluations/${evaluationId}/results`);
    expect(response.data.humanEvaluation.results).toEqual(rest.body);
    expect(rest.body.votes_data.nb_of_rows).toBe(3);
  });

  it('reports a judgement that does not fit with the same detail as REST', async () => {
    const scenarioId = (await server.graphql(NEXT, { id: human() })).data.nextHumanScenario.id;
    const response = await server.graphql(JUDGE, { e: human(), s: scenarioId, input: { score: 50, note: 'x' } });
    // The mutation's result is non-null: its failure nulls the whole answer.
    expect(response.data).toBeNull();
    expect(response.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      detail: [{ loc: ['body', 'score'], msg: 'A human_a_b_testing scenario is judged with a vote, not a score', type: 'value_error' }],
    });
    const outOfRange = await server.graphql(JUDGE, { e: human(), s: scenarioId, input: { score: 101 } });
    expect(outOfRange.errors[0].extensions.detail).toEqual([
      { loc: ['body', 'score'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal' },
    ]);
    const unknown = await server.graphql(JUDGE, { e: human(), s: globalId('HumanEvaluationScenario', 'nope'), input: { vote: '1' } });
    expect(unknown.errors[0]).toMatchObject({ message: 'HumanEvaluationScenario with id nope not found', extensions: { code: 'NOT_FOUND' } });
    const wrongCount = await server.graphql(CREATE, {
      input: { ...ids(), variantIds: [globalId('Variant', variantA)], evaluationType: 'HUMAN_A_B_TESTING', inputs: ['word'] },
    });
    expect(wrongCount.errors[0].extensions.detail).toEqual([
      { loc: ['body', 'variant_ids'], msg: 'human_a_b_testing takes exactly 2 variants, got 1', type: 'value_error' },
    ]);
  });

  it('sets the status and deletes', async () => {
    const status = await server.graphql(`mutation($id: ID!) { updateHumanEvaluationStatus(id: $id, status: EVALUATION_CANCELLED) { id status } }`, {
      id: human(),
    });
    expect(status.data.updateHumanEvaluationStatus).toEqual({ id: human(), status: 'EVALUATION_CANCELLED' });
    expect((await server.request('GET', `/human-evaluations/${evaluationId}`)).body.status).toBe('EVALUATION_CANCELLED');

    const listed = await server.graphql(`query($app: ID!) { humanEvaluations(appId: $app) { edges { node { id } } } }`, { app: globalId('App', appId) });
    expect(listed.data.humanEvaluations.edges.map((e: any) => e.node.id)).toEqual([human()]);

    const missing = await server.graphql(`mutation($ids: [ID!]!) { deleteHumanEvaluations(ids: $ids) }`, { ids: [globalId('HumanEvaluation', 'nope')] });
    expect(missing.errors[0]).toMatchObject({ message: 'HumanEvaluation with id nope not found', extensions: { code: 'NOT_FOUND' } });
    const deleted = await server.graphql(`mutation($id: ID!) { deleteHumanEvaluations(ids: [$id]) }`, { id: human() });
    expect(deleted.data.deleteHumanEvaluations).toEqual([human()]);
    expect((await server.request('GET', `/human-evaluations/${evaluationId}`)).status).toBe(404);
    const next = await server.graphql(NEXT, { id: human() });
    expect(next.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
