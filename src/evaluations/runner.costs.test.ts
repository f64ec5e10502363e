// One cost path (docs/costs.md): a price a user adds through /observability/prices reaches the
// calls an evaluation makes (scenario costs, average_cost, total_cost, evaluator_cost), those
// spans say their cost was computed, a price corrected later costs the next run, and costs sum
// to the decimal they are (0.01275, never 0.012750000000000001) in REST and GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { type FakeEndpoint, startEndpoint, startFakeOpenAI } from '../../test/helpers/endpoints.js';
import { generateSingleModelEvaluation } from '../../test/helpers/human-evaluations.js';
import { globalId } from '../shared/graphql/ids.js';
import * as fixtures from '../../test/helpers/evaluations.js';

const server = useTestServer();
let openai: FakeEndpoint;
let endpoint: FakeEndpoint;
/** An app whose reported cost is float noise: 0.1 + 0.2 is sent as 0.30000000000000004. */
let noisy: FakeEndpoint;
let keys: Record<string, string>;

const rows = [
  { country: 'France', correct_answer: 'Paris' },
  { country: 'Peru', correct_answer: 'Lima' },
  { country: 'Chile', correct_answer: 'Santiago' },
];

// Every call reports 1000 prompt tokens and none out: at the user's 4.25 USD per 1M input tokens a
// call costs 0.00425, three of them 0.01275 (summed as doubles: 0.012750000000000001).
beforeAll(async () => {
  openai = await startFakeOpenAI((body) => {
    const judging = body.messages[0].content.startsWith('Rate');
    return { content: judging ? 'Score: 7' : 'Paris', model: body.model, usage: { prompt_tokens: 1000, completion_tokens: 0, total_tokens: 1000 } };
  });
  // An app that reports its own cost, 0.00425 per call.
  endpoint = await startEndpoint(() => ({ body: { message: 'Paris', cost: 0.00425 } }));
  noisy = await startEndpoint(() => ({ body: { message: 'Paris', cost: 0.1 + 0.2 } }));
  keys = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.url };
});

afterAll(async () => {
  await openai?.close();
  await endpoint?.close();
  await noisy?.close();
});

async function addPrice(body: Record<string, unknown>) {
  const response = await server.request('POST', '/observability/prices', body);
  expect(response.status).toBe(200);
  return response.body;
}

async function runEvaluation(variantModel: string) {
  const appId = await fixtures.createApp(server);
  const variant = await fixtures.createPromptVariant(
    server,
    appId,
    { model: variantModel, messages: [{ role: 'user', content: 'Capital of {country}?' }] },
    'capital',
  );
  const testset = await fixtures.createTestset(server, rows);
  const judge = await fixtures.createConfig(
    server,
    appId,
    'auto_ai_critique',
    {
      model: 'acme-judge',
      prompt_template: [
        { role: 'system', content: 'Rate the answer.' },
        { role: 'user', content: '{prediction}' },
      ],
    },
    'judge',
  );
  const { id } = await fixtures.startEvaluation(server, {
    app_id: appId,
    variant_ids: [variant.variant_id],
    evaluators_configs: [judge.id],
    testset_id: testset.id,
    lm_providers_keys: keys,
  });
  expect((await fixtures.waitForStatus(server, id)).status.value).toBe('EVALUATION_FINISHED');
  return { id, judge };
}

describe('evaluation calls are priced with the project price list', () => {
  it("uses a user's price for the variant's and the judge's calls, marks those spans computed, and sums them exactly", async () => {
    // gpt-4o-mini has a built-in price (0.15 per 1M input): the user's, in effect since 2025, wins.
    // acme-judge has no built-in price at all.
    await addPrice({ model: 'gpt-4o-mini', input: 4.25, output: 0, effective_from: '2025-01-01T00:00:00Z' });
    await addPrice({ model: 'acme-judge', input: 4.25, output: 0 });
    const { id, judge } = await runEvaluation('gpt-4o-mini');

    const scenarios = await fixtures.getScenarios(server, id);
    expect(scenarios.map((s) => s.outputs[0].cost)).toEqual([0.00425, 0.00425, 0.00425]);
    const evaluation = await fixtures.getEvaluation(server, id);
    expect(evaluation.average_cost).toEqual({ type: 'cost', value: 0.00425, error: null });
    expect(evaluation.total_cost).toEqual({ type: 'cost', value: 0.01275, error: null });
    const cost = (await server.request('GET', `/evaluations/${id}/evaluator_cost`)).body;
    expect(cost).toEqual({ evaluation_id: id, total_cost: 0.01275, calls: 3, evaluators: [{ evaluator_config_id: judge.id, cost: 0.01275, calls: 3 }] });

    const graphql = await server.graphql(
      'query($id: ID!) { evaluation(id: $id) { averageCost { value } totalCost { value } evaluatorCost { totalCost evaluators { cost } } } }',
      { id: globalId('Evaluation', id) },
    );
    expect(graphql.errors).toBeUndefined();
    expect(graphql.data.evaluation).toEqual({
      averageCost: { value: 0.00425 },
      totalCost: { value: 0.01275 },
      evaluatorCost: { totalCost: 0.01275, evaluators: [{ cost: 0.01275 }] },
    });

    // The variant's LLM span and the judge's EVALUATOR span: costs Assay computed, not reported.
    const [first] = await fixtures.scenarioTraceIds(server, id);
    const trace = await server.graphql(
      'query($id: String!) { trace(traceId: $id) { cost spans(first: 10) { edges { node { spanKind model costSource metadata { cost } } } } } }',
      { id: first.trace_id },
    );
    expect(trace.errors).toBeUndefined();
    expect(trace.data.trace.cost).toBe(0.0085);
    expect(trace.data.trace.spans.edges.map((edge: any) => edge.node).sort((a: any, b: any) => a.spanKind.localeCompare(b.spanKind))).toEqual([
      { spanKind: 'EVALUATOR', model: 'acme-judge', costSource: 'computed', metadata: { cost: 0.00425 } },
      { spanKind: 'LLM', model: 'gpt-4o-mini', costSource: 'computed', metadata: { cost: 0.00425 } },
    ]);
  });

  it('prices the next run with a price corrected meanwhile (the cached list is dropped)', async () => {
    await addPrice({ model: 'acme-chat', input: 1, output: 0 });
    const before = await runEvaluation('acme-chat');
    expect((await fixtures.getEvaluation(server, before.id)).total_cost.value).toBe(0.003);
    await addPrice({ model: 'acme-chat', input: 2, output: 0 });
    const after = await runEvaluation('acme-chat');
    expect((await fixtures.getEvaluation(server, after.id)).total_cost.value).toBe(0.006);
  });

  it('leaves a call of a model without any price unpriced', async () => {
    const { id } = await runEvaluation('no-such-model');
    const evaluation = await fixtures.getEvaluation(server, id);
    expect((await fixtures.getScenarios(server, id)).map((s) => s.outputs[0].cost)).toEqual([null, null, null]);
    expect(evaluation.total_cost).toMatchObject({ value: null });
  });
});

describe('reported costs sum exactly', () => {
  it('totals three reported 0.00425 to 0.01275 and keeps them reported', async () => {
    const id = (await fixtures.runEndpointEvaluation(server, endpoint.url, rows)).id;
    const evaluation = await fixtures.getEvaluation(server, id);
    expect([evaluation.average_cost.value, evaluation.total_cost.value]).toEqual([0.00425, 0.01275]);
    const graphql = await server.graphql('query($id: ID!) { evaluation(id: $id) { totalCost { value } } }', { id: globalId('Evaluation', id) });
    expect(graphql.data.evaluation.totalCost.value).toBe(0.01275);
    const [first] = await fixtures.scenarioTraceIds(server, id);
    const trace = await server.graphql('query($id: String!) { trace(traceId: $id) { spans(first: 1) { edges { node { costSource } } } } }', {
      id: first.trace_id,
    });
    expect(trace.data.trace.spans.edges[0].node.costSource).toBe('reported');
  });
});

describe('ingested costs sum exactly', () => {
  it('rolls 0.1 + 0.2 up to a trace cost of 0.3 in REST, GraphQL and the metrics', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e47aa';
    const span = (id: string, cost: number) => ({
      id,
      name: `sumcheck-${id}`,
      spankind: 'LLM',
      start_time: '2026-11-22T10:00:00Z',
      end_time: '2026-11-22T10:00:01Z',
      cost,
    });
    const sent = await server.request('POST', '/observability/trace', {
      trace: traceId,
      spans: [span('00f067aa0ba90201', 0.1), span('00f067aa0ba90202', 0.2)],
    });
    expect(sent.status).toBeLessThan(300);
    const listed = (await server.request('GET', '/observability/traces?name_contains=sumcheck')).body;
    expect(listed.traces.map((trace: any) => trace.cost)).toEqual([0.3]);
    const graphql = await server.graphql('query($id: String!) { trace(traceId: $id) { cost } }', { id: traceId });
    expect(graphql.data.trace.cost).toBe(0.3);
    for (const of of ['spans', 'traces']) {
      const metrics = (await server.request('GET', `/observability/metrics?of=${of}&name_contains=sumcheck`)).body;
      expect(metrics.cost).toBe(0.3);
    }
  });
});

describe('reported costs are kept to the pico-dollar', () => {
  it("shows an app's reported 0.30000000000000004 as 0.3 in scenarios, totals and traces, REST and GraphQL", async () => {
    const id = (await fixtures.runEndpointEvaluation(server, noisy.url, rows)).id;
    const scenarios = await fixtures.getScenarios(server, id);
    expect(scenarios.map((scenario) => scenario.outputs[0].cost)).toEqual([0.3, 0.3, 0.3]);
    const evaluation = await fixtures.getEvaluation(server, id);
    expect([evaluation.average_cost.value, evaluation.total_cost.value]).toEqual([0.3, 0.9]);
    const graphql = await server.graphql(
      'query($id: ID!) { evaluation(id: $id) { totalCost { value } scenarios(first: 5) { edges { node { outputs { cost } } } } } }',
      { id: globalId('Evaluation', id) },
    );
    expect(graphql.errors).toBeUndefined();
    expect(graphql.data.evaluation.totalCost.value).toBe(0.9);
    expect(graphql.data.evaluation.scenarios.edges.map((edge: any) => edge.node.outputs[0].cost)).toEqual([0.3, 0.3, 0.3]);
    const tree = (await server.request('GET', `/observability/traces/${scenarios[0].trace_id}`)).body;
    expect(tree.metadata.cost).toBe(0.3);
  });

  it("shows a human evaluation's reported 0.30000000000000004 as 0.3", async () => {
    const { evaluation: human } = await generateSingleModelEvaluation(server, noisy.url, rows, ['country']);
    const { data, errors } = await server.graphql(
      'query($id: ID!) { humanEvaluation(id: $id) { scenarios(first: 5) { edges { node { outputs { cost } } } } } }',
      { id: globalId('HumanEvaluation', human.id) },
    );
    expect(errors).toBeUndefined();
    expect(data.humanEvaluation.scenarios.edges.map((edge: any) => edge.node.outputs[0].cost)).toEqual([0.3, 0.3, 0.3]);
  });

  it('stores an ingested span reported at 0.1 + 0.2 as 0.3, REST and GraphQL', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e47ab';
    const sent = await server.request('POST', '/observability/trace', {
      trace: traceId,
      spans: [{ id: '00f067aa0ba90203', name: 'noisy', start_time: '2026-11-22T10:00:00Z', end_time: '2026-11-22T10:00:01Z', cost: 0.1 + 0.2 }],
    });
    expect(sent.status).toBe(200);
    expect((await server.request('GET', `/observability/spans/00f067aa0ba90203?type=span`)).body.metadata.cost).toBe(0.3);
    const graphql = await server.graphql('query($id: String!) { trace(traceId: $id) { cost root { metadata { cost } } } }', { id: traceId });
    expect(graphql.data.trace).toEqual({ cost: 0.3, root: { metadata: { cost: 0.3 } } });
  });
});
