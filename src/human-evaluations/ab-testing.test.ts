// A/B tests end to end (docs/human-evaluations.md): two endpoint variants played by a local HTTP
// server, outputs generated in the background, every scenario judged by three judges, then the
// results (REST, percentages by hand), the win rates, the position bias and the agreement (GraphQL,
// by hand).
import { decodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeEndpoint, startEndpoint } from '../../test/helpers/endpoints.js';
import { createApp, createEndpointVariant, createTestset } from '../../test/helpers/evaluations.js';
import { createHumanEvaluation, judge, waitForHumanStatus } from '../../test/helpers/human-evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();
let user: FakeEndpoint;
let appId: string;
let variantA: string;
let variantB: string;
let testsetId: string;

const ROWS = [
  { country: 'France', language: 'French', notes: 'not an input', correct_answer: 'Paris' },
  { country: 'Peru', language: 'Spanish', notes: 'x', correct_answer: 'Lima' },
  { country: 'Japan', language: 'Japanese', notes: 'y', correct_answer: 'Tokyo' },
  { country: 'Kenya', language: 'Swahili', notes: 'z', correct_answer: 'Nairobi' },
];

beforeAll(async () => {
  // Answers in the variant's style: its parameters say which.
  user = await startEndpoint((request) => {
    const { inputs, parameters } = request.body;
    const text = `${inputs.country} speaks ${inputs.language}`;
    return { body: { data: parameters.style === 'loud' ? text.toUpperCase() : text.toLowerCase() } };
  });
  appId = await createApp(server, 'ab-app');
  variantA = (await createEndpointVariant(server, appId, user.url, { name: 'loud', parameters: { style: 'loud' } })).variant_id;
  variantB = (await createEndpointVariant(server, appId, user.url, { name: 'quiet', parameters: { style: 'quiet' } })).variant_id;
  testsetId = (await createTestset(server, ROWS, 'capitals')).id;
});
afterAll(async () => {
  await user.close();
});

describe('an A/B test from creation to results', () => {
  let evaluationId: string;
  let scenarios: any[];

  it('creates the evaluation (docs/contract.md 2.6) and generates both outputs of every case in the background', async () => {
    const created = await createHumanEvaluation(server, {
      app_id: appId,
      variant_ids: [variantA, variantB],
      evaluation_type: 'human_a_b_testing',
      inputs: ['country', 'language'],
      testset_id: testsetId,
    });
    evaluationId = created.id;
    const revisions = (await server.request('GET', `/variants/${variantA}/revisions`)).body;
    expect(created).toEqual({
      id: expect.any(String),
      app_id: appId,
      project_id: expect.any(String),
      evaluation_type: 'human_a_b_testing',
      variant_ids: [variantA, variantB],
      variant_names: ['loud', 'quiet'],
      variants_revision_ids: [revisions[0].id, expect.any(String)],
      revisions: ['1', '1'],
      testset_id: testsetId,
      testset_name: 'capitals',
      status: 'EVALUATION_INITIALIZED',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });

    const finished = await waitForHumanStatus(server, evaluationId);
    expect(finished.status).toBe('EVALUATION_FINISHED');

    // Each case went to each variant once, with the chosen columns only and the variant's parameters.
    expect(user.requests).toHaveLength(8);
    const sent = user.requests.map((r) => r.body).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(sent).toEqual(
      ROWS.flatMap((row) => [
        { inputs: { country: row.country, language: row.language }, parameters: { style: 'loud' } },
        { inputs: { country: row.country, language: row.language }, parameters: { style: 'quiet' } },
      ]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );

    const response = await server.request('GET', `/human-evaluations/${evaluationId}/evaluation_scenarios`);
    expect(response.status).toBe(200);
    scenarios = response.body;
    expect(scenarios).toEqual(
      ROWS.map((row) => ({
        id: expect.any(String),
        evaluation_id: evaluationId,
        inputs: [
          { input_name: 'country', input_value: row.country },
          { input_name: 'language', input_value: row.language },
        ],
        outputs: [
          { variant_id: variantA, variant_output: `${row.country} speaks ${row.language}`.toUpperCase() },
          { variant_id: variantB, variant_output: `${row.country} speaks ${row.language}`.toLowerCase() },
        ],
        vote: null,
        score: null,
        correct_answer: row.correct_answer,
        is_pinned: false,
        note: '',
      })),
    );
  });

  it('records the left/right order shown for each scenario, and shows the outputs in that order', async () => {
    const response = await server.graphql(
      `query($id: ID!) { humanEvaluation(id: $id) { progress { total done errors }
         scenarios(first: 10) { edges { node { id position displayOrder hasError shownOutputs { variantId } outputs { variantId error traceId latency } } } } } }`,
      { id: globalId('HumanEvaluation', evaluationId) },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data.humanEvaluation.progress).toEqual({ total: 4, done: 4, errors: 0 });
    const nodes = response.data.humanEvaluation.scenarios.edges.map((e: any) => e.node);
    expect(nodes.map((n: any) => n.position)).toEqual([0, 1, 2, 3]);
    for (const node of nodes) {
      expect([...node.displayOrder].sort()).toEqual([gid(variantA), gid(variantB)].sort());
      expect(node.shownOutputs.map((o: any) => o.variantId)).toEqual(node.displayOrder);
      expect(node.hasError).toBe(false);
      expect(node.outputs.map((o: any) => o.variantId)).toEqual([gid(variantA), gid(variantB)]);
      for (const output of node.outputs) {
        expect(output.error).toBeNull();
        expect(output.traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(output.latency).toBeGreaterThan(0);
      }
    }
    // Each call was traced like an ingested trace.
    const trace = await server.request('GET', `/observability/traces/${nodes[0].outputs[0].traceId}/`);
    expect(trace.status).toBe(200);
    expect(trace.body).toMatchObject({ name: 'loud', status: 'OK', variant: { variant_id: variantA, variant_name: 'loud', revision: 1 } });
  });

  it('takes every judge’s vote, mirrors the latest on the scenario, and counts all judgements in the results', async () => {
    // By hand: rows of (ann, bob, cat) per scenario, in test set order.
    const votes = [
      [variantA, variantA, variantA],
      [variantA, variantB, variantA],
      [variantB, variantB, variantB],
      ['1', variantA, '1'],
    ];
    for (const [index, scenario] of scenarios.entries()) {
      for (const [j, name] of ['ann', 'bob', 'cat'].entries()) {
        const judged = await judge(server, evaluationId, scenario.id, 'human_a_b_testing', { vote: votes[index][j], judge: name });
        expect(judged.vote).toBe(votes[index][j]);
      }
    }
    // cat judged last: the scenarios show cat's votes.
    const listed = (await server.request('GET', `/human-evaluations/${evaluationId}/evaluation_scenarios`)).body;
    expect(listed.map((s: any) => s.vote)).toEqual([variantA, variantA, variantB, '1']);

    // 12 judgements: "1" twice (16.67%), "0" never, A six times (50%), B four times (33.33%).
    const results = await server.request('GET', `/human-evaluations/${evaluationId}/results`);
    expect(results.status).toBe(200);
    expect(results.body).toEqual({
      votes_data: {
        variants: [variantA, variantB],
        variant_names: ['loud', 'quiet'],
        nb_of_rows: 12,
        positive_votes: { number_of_votes: 2, percentage: 16.67 },
        flag_votes: { number_of_votes: 0, percentage: 0 },
        variants_votes_data: {
          [variantA]: { number_of_votes: 6, percentage: 50 },
          [variantB]: { number_of_votes: 4, percentage: 33.33 },
        },
      },
    });
  });

  it('gives win rates with Wilson intervals and Fleiss’ and Cohen’s kappa computed by hand', async () => {
    const response = await server.graphql(
      `query($id: ID!) { humanEvaluation(id: $id) { statistics {
          scenarios judgedScenarios judgements judges positiveVotes flagVotes
          variants { variantId wins losses ties winRate winRateInterval { low high } }
          agreement { scenarios judgements observedAgreement expectedAgreement fleissKappa
                      pairs { judgeA judgeB scenarios observedAgreement cohenKappa } } } } }`,
      { id: globalId('HumanEvaluation', evaluationId) },
    );
    expect(response.errors).toBeUndefined();
    const stats = response.data.humanEvaluation.statistics;
    expect(stats).toMatchObject({ scenarios: 4, judgedScenarios: 4, judgements: 12, judges: ['ann', 'bob', 'cat'], positiveVotes: 2, flagVotes: 0 });
    // A: 6 wins, 4 losses (votes for B), 2 ties ("1") → 6/10; Wilson 95%: [0.3127, 0.8318].
    const [a, b] = stats.variants;
    expect(a).toMatchObject({ variantId: gid(variantA), wins: 6, losses: 4, ties: 2, winRate: 0.6 });
    expect(a.winRateInterval.low).toBeCloseTo(0.3127, 4);
    expect(a.winRateInterval.high).toBeCloseTo(0.8318, 4);
    expect(b).toMatchObject({ variantId: gid(variantB), wins: 4, losses: 6, ties: 2, winRate: 0.4 });
    expect(b.winRateInterval.low).toBeCloseTo(0.1682, 4);
    expect(b.winRateInterval.high).toBeCloseTo(0.6873, 4);

    // Fleiss: P_i = 1, 1/3, 1, 1/3 → P̄ = 2/3; shares A 6/12, B 4/12, "1" 2/12 → P̄e = 7/18; κ = 5/11.
    const agreement = stats.agreement;
    expect(agreement.scenarios).toBe(4);
    expect(agreement.judgements).toBe(12);
    expect(agreement.observedAgreement).toBeCloseTo(2 / 3, 10);
    expect(agreement.expectedAgreement).toBeCloseTo(7 / 18, 10);
    expect(agreement.fleissKappa).toBeCloseTo(5 / 11, 10);
    // Cohen: ann–bob agree on 2 of 4, chance 0.375 → 0.2; ann–cat agree on all → 1; bob–cat → 0.2.
    expect(agreement.pairs).toEqual([
      { judgeA: 'ann', judgeB: 'bob', scenarios: 4, observedAgreement: 0.5, cohenKappa: expect.closeTo(0.2, 10) },
      { judgeA: 'ann', judgeB: 'cat', scenarios: 4, observedAgreement: 1, cohenKappa: expect.closeTo(1, 10) },
      { judgeA: 'bob', judgeB: 'cat', scenarios: 4, observedAgreement: 0.5, cohenKappa: expect.closeTo(0.2, 10) },
    ]);
  });

  it('lists each judgement attributed to its judge, and a judge changing a vote replaces only theirs', async () => {
    const scenario = scenarios[1];
    await judge(server, evaluationId, scenario.id, 'human_a_b_testing', { vote: variantB, judge: 'ann' });
    const response = await server.graphql(
      `query($id: ID!) { humanEvaluation(id: $id) { scenarios(first: 2) { edges { node { vote judgements { judge vote score } } } } } }`,
      { id: globalId('HumanEvaluation', evaluationId) },
    );
    expect(response.data.humanEvaluation.scenarios.edges[1].node).toEqual({
      vote: gid(variantB),
      judgements: [
        { judge: 'ann', vote: gid(variantB), score: null },
        { judge: 'bob', vote: gid(variantB), score: null },
        { judge: 'cat', vote: gid(variantA), score: null },
      ],
    });
    const results = (await server.request('GET', `/human-evaluations/${evaluationId}/results`)).body.votes_data;
    expect(results.variants_votes_data[variantA]).toEqual({ number_of_votes: 5, percentage: 41.67 });
    expect(results.variants_votes_data[variantB]).toEqual({ number_of_votes: 5, percentage: 41.67 });
  });

  it('measures position bias from the recorded order: a judge who always picks the left output', async () => {
    const order = await server.graphql(`query($id: ID!) { humanEvaluation(id: $id) { scenarios(first: 10) { edges { node { id displayOrder } } } } }`, {
      id: globalId('HumanEvaluation', evaluationId),
    });
    const nodes = order.data.humanEvaluation.scenarios.edges.map((e: any) => e.node);
    // A fresh evaluation judged by one judge who always votes for what was shown on the left.
    const second = await createHumanEvaluation(server, {
      app_id: appId,
      variant_ids: [variantA, variantB],
      evaluation_type: 'human_a_b_testing',
      inputs: ['country'],
      testset_id: testsetId,
    });
    await waitForHumanStatus(server, second.id);
    const shown = (
      await server.graphql(`query($id: ID!) { humanEvaluation(id: $id) { scenarios(first: 10) { edges { node { databaseId displayOrder } } } } }`, {
        id: globalId('HumanEvaluation', second.id),
      })
    ).data.humanEvaluation.scenarios.edges.map((e: any) => e.node);
    for (const node of shown) await judge(server, second.id, node.databaseId, 'human_a_b_testing', { vote: plain(node.displayOrder[0]) });
    const response = await server.graphql(
      `query($id: ID!) { humanEvaluation(id: $id) { statistics { positionBias { decisive leftWins rightWins leftRate leftRateInterval { low high } pValue } } } }`,
      { id: globalId('HumanEvaluation', second.id) },
    );
    // 4 of 4 on the left: rate 1, Wilson [0.5101, 1], exact two-sided p = 2 · (1/2)^4 = 0.125.
    const bias = response.data.humanEvaluation.statistics.positionBias;
    expect(bias).toMatchObject({ decisive: 4, leftWins: 4, rightWins: 0, leftRate: 1, pValue: 0.125 });
    expect(bias.leftRateInterval.low).toBeCloseTo(0.5101, 4);
    expect(bias.leftRateInterval.high).toBe(1);
    // The first evaluation's bias, recounted from its recorded order and the judgements made above.
    const first = await server.graphql(`query($id: ID!) { humanEvaluation(id: $id) { statistics { positionBias { decisive leftWins rightWins } } } }`, {
      id: globalId('HumanEvaluation', evaluationId),
    });
    const votesNow = [[variantA, variantA, variantA], [variantB, variantB, variantA], [variantB, variantB, variantB], [variantA]];
    const left = votesNow.flatMap((vs, i) => vs.filter((v) => gid(v) === nodes[i].displayOrder[0])).length;
    expect(first.data.humanEvaluation.statistics.positionBias).toEqual({ decisive: 10, leftWins: left, rightWins: 10 - left });
  });

  it('draws the order at random: over 40 cases both orders occur', async () => {
    const many = await createTestset(
      server,
      Array.from({ length: 40 }, (_, n) => ({ country: `C${n}`, language: 'L' })),
    );
    const evaluation = await createHumanEvaluation(server, {
      app_id: appId,
      variant_ids: [variantA, variantB],
      evaluation_type: 'human_a_b_testing',
      inputs: ['country'],
      testset_id: many.id,
      // The client fills outputs itself: nothing is generated.
      status: 'EVALUATION_FINISHED',
    });
    expect(evaluation.status).toBe('EVALUATION_FINISHED');
    const response = await server.graphql(
      `query($id: ID!) { humanEvaluation(id: $id) { scenarios(first: 40) { edges { node { displayOrder outputs { variantId } } } } } }`,
      { id: globalId('HumanEvaluation', evaluation.id) },
    );
    const nodes = response.data.humanEvaluation.scenarios.edges.map((e: any) => e.node);
    expect(nodes).toHaveLength(40);
    const leftA = nodes.filter((n: any) => n.displayOrder[0] === gid(variantA)).length;
    // All 40 on one side has probability 2 · 2^-40.
    expect(leftA).toBeGreaterThan(0);
    expect(leftA).toBeLessThan(40);
    // Nothing was generated for it: outputs stay empty.
    expect(nodes.every((n: any) => n.outputs.length === 0)).toBe(true);
  });
});

/** A variant's global id, as GraphQL answers it. */
function gid(variantId: string): string {
  return globalId('Variant', variantId);
}

/** The REST id of a variant's global id. */
function plain(variantGlobalId: string): string {
  return decodeGlobalID(variantGlobalId).id;
}
