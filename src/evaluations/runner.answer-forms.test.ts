// Automatic evaluations run end to end against endpoint variants played by local HTTP servers:
// every answer form of docs/evaluations.md#what-a-variant-is-sent, the stored scenarios
// (docs/contract.md 2.3) in test set order, the trace of each invocation, and Agenta v2 answers
// without a full trace.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { useEndpoints, type FakeEndpoint, type Reply, sleep } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';

const server = useTestServer();
const endpoint = useEndpoints();
const app = fixtures.useApp(server, 'runs');

describe('a run over every answer form of an endpoint', () => {
  // Test cases and what the endpoint answers for each (one form per case); each answer waits a
  // little, the earlier cases longest, so that the later cases of a batch are answered first.
  const rows = [
    { country: 'France', correct_answer: 'Paris' },
    { country: 'Peru', correct_answer: 'Lima' },
    { country: 'Italy', correct_answer: 'Rome' },
    { country: 'Japan', correct_answer: 'Tokyo' },
    { country: 'Spain', correct_answer: 'Madrid' },
  ];
  const delays: Record<string, number> = { France: 250, Peru: 200, Italy: 150, Japan: 100, Spain: 50 };
  const answers: Record<string, Reply> = {
    // Agenta v2: output, cost and latency from the answer.
    France: { body: { data: 'Paris', trace: { cost: 0.002, latency: 0.5, usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } } } },
    // {message, cost, latency}.
    Peru: { body: { message: 'Lima!', cost: 0.001, latency: 0.25 } },
    // An OpenAI chat completion: cost from usage and the price of gpt-4o-mini
    // (0.15 USD per 1M input tokens, 0.60 per 1M output): (1000 × 0.15 + 500 × 0.60) / 1e6 = 0.00045.
    Italy: {
      body: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1700000000,
        model: 'gpt-4o-mini-2024-07-18',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Rome' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
      },
    },
    // Any other JSON: the output is that JSON.
    Japan: { body: { city: 'Tokyo', ok: true } },
    // Plain text.
    Spain: { body: 'Madird' },
  };
  let user: FakeEndpoint;
  let variant: { variant_id: string; variant_name: string };
  let testset: { id: string; name: string };
  let configs: { id: string }[];
  let evaluationId: string;
  let scenarios: any[];

  beforeAll(async () => {
    user = await endpoint(async (request) => {
      await sleep(delays[request.body.inputs.country]);
      return answers[request.body.inputs.country];
    });
    variant = await fixtures.createEndpointVariant(server, app.id, user.url, { name: 'forms', parameters: { style: 'short', temperature: 0 } });
    testset = await fixtures.createTestset(server, rows, 'capitals');
    configs = [
      await fixtures.createConfig(server, app.id, 'auto_exact_match', {}, 'forms-exact'),
      await fixtures.createConfig(server, app.id, 'auto_contains', { substring: 'a', case_sensitive: true }, 'forms-contains-a'),
      await fixtures.createConfig(server, app.id, 'auto_levenshtein_distance', {}, 'forms-levenshtein'),
    ];
    const created = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [variant.variant_id],
      evaluators_configs: configs.map((c) => c.id),
      testset_id: testset.id,
      rate_limit: { batch_size: 3 },
    });
    evaluationId = created.id;
    const end = await fixtures.waitForStatus(server, evaluationId);
    expect(end).toEqual({ status: { type: 'status', value: 'EVALUATION_FINISHED', error: null }, progress: { total: 5, done: 5, errors: 0 } });
    scenarios = await fixtures.getScenarios(server, evaluationId);
  });

  it('POSTs {inputs, parameters} as JSON to the uri, once per case, without the ground truth', () => {
    expect(user.requests).toHaveLength(5);
    const sent = [...user.requests].sort((a, b) => a.body.inputs.country.localeCompare(b.body.inputs.country));
    for (const request of sent) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/');
      expect(request.headers['content-type']).toMatch(/^application\/json/);
    }
    expect(sent.map((r) => r.body)).toEqual(
      // The variant must not see the answer: the ground-truth column is left out of its inputs.
      [...rows]
        .sort((a, b) => a.country.localeCompare(b.country))
        .map((row) => ({ inputs: { country: row.country }, parameters: { style: 'short', temperature: 0 } })),
    );
    // batch_size 3: the first three cases were in flight together, never more.
    expect(user.maxConcurrent).toBe(3);
  });

  it('stores one scenario per case, in test set order, with every field of docs/contract.md 2.3', () => {
    expect(scenarios).toHaveLength(5);
    expect(scenarios.map((s) => s.inputs)).toEqual(rows.map((row) => [{ name: 'country', type: 'text', value: row.country }]));
    expect(scenarios.map((s) => s.correct_answers)).toEqual(rows.map((row) => [{ key: 'correct_answer', value: row.correct_answer }]));
    for (const scenario of scenarios) {
      expect(Object.keys(scenario).sort()).toEqual(['correct_answers', 'evaluation_id', 'id', 'inputs', 'is_pinned', 'note', 'outputs', 'results', 'trace_id']);
      expect(scenario.evaluation_id).toBe(evaluationId);
      expect(typeof scenario.id).toBe('string');
      expect(scenario.is_pinned).toBe(false);
      expect(scenario.note).toBe('');
      expect(scenario.outputs).toHaveLength(1);
    }
    expect(new Set(scenarios.map((s) => s.id)).size).toBe(5);
  });

  it('reads each answer form into an output with its cost and latency', () => {
    const outputs = scenarios.map((s) => s.outputs[0]);
    expect(outputs[0]).toEqual({ result: { type: 'text', value: 'Paris', error: null }, cost: 0.002, latency: 0.5 });
    expect(outputs[1]).toEqual({ result: { type: 'text', value: 'Lima!', error: null }, cost: 0.001, latency: 0.25 });
    expect(outputs[2]).toMatchObject({ result: { type: 'text', value: 'Rome', error: null } });
    expect(outputs[2].cost).toBeCloseTo(0.00045, 12);
    expect(outputs[3]).toMatchObject({ result: { type: 'json', value: { city: 'Tokyo', ok: true }, error: null }, cost: null });
    expect(outputs[4]).toMatchObject({ result: { type: 'text', value: 'Madird', error: null }, cost: null });
    // Forms without a latency of their own get the measured one, in seconds (the endpoint waited).
    for (const [index, country] of [
      [2, 'Italy'],
      [3, 'Japan'],
      [4, 'Spain'],
    ] as const) {
      expect(outputs[index].latency).toBeGreaterThanOrEqual(delays[country] / 1000 - 0.005);
      expect(outputs[index].latency).toBeLessThan(5);
    }
  });

  it('scores each case with every config, in config order', () => {
    const [exact, contains, levenshtein] = configs.map((c) => c.id);
    const bool = (value: boolean) => ({ type: 'bool', value, error: null });
    const number = (value: number) => ({ type: 'number', value, error: null });
    // Paris = Paris; "Lima!" ≠ "Lima" (1 edit); Rome = Rome; the JSON's text '{"city":"Tokyo","ok":true}'
    // (26 characters, containing "Tokyo") is 21 deletions from "Tokyo"; "Madird" → "Madrid" is 2 edits.
    // Contains "a": Paris, Lima!, Madird yes; Rome and the JSON text no.
    const expected = [
      [bool(true), bool(true), number(0)],
      [bool(false), bool(true), number(1)],
      [bool(true), bool(false), number(0)],
      [bool(false), bool(false), number(21)],
      [bool(false), bool(true), number(2)],
    ];
    expect(scenarios.map((s) => s.results)).toEqual(
      expected.map(([a, b, c]) => [
        { evaluator_config: exact, result: a },
        { evaluator_config: contains, result: b },
        { evaluator_config: levenshtein, result: c },
      ]),
    );
  });

  it('aggregates per config and totals cost and latency', async () => {
    const evaluation = await fixtures.getEvaluation(server, evaluationId);
    expect(evaluation.status).toEqual({ type: 'status', value: 'EVALUATION_FINISHED', error: null });
    // exact 2/5, contains 3/5, levenshtein (0 + 1 + 0 + 21 + 2) / 5 = 4.8.
    expect(evaluation.aggregated_results).toEqual([
      { evaluator_config: configs[0], result: { type: 'number', value: 0.4, error: null } },
      { evaluator_config: configs[1], result: { type: 'number', value: 0.6, error: null } },
      { evaluator_config: configs[2], result: { type: 'number', value: 4.8, error: null } },
    ]);
    // Costs of the cases that reported or implied one: 0.002 + 0.001 + 0.00045 = 0.00345; mean 0.00115.
    expect(evaluation.total_cost).toMatchObject({ type: 'cost', error: null });
    expect(evaluation.total_cost.value).toBeCloseTo(0.00345, 12);
    expect(evaluation.average_cost).toMatchObject({ type: 'cost', error: null });
    expect(evaluation.average_cost.value).toBeCloseTo(0.00115, 12);
    const latencies = scenarios.map((s) => s.outputs[0].latency as number);
    expect(evaluation.average_latency).toMatchObject({ type: 'latency', error: null });
    expect(evaluation.average_latency.value).toBeCloseTo(latencies.reduce((a, b) => a + b, 0) / 5, 9);
  });

  it('records a trace per case, readable with the variant and its output', async () => {
    const traces = await fixtures.scenarioTraceIds(server, evaluationId);
    expect(traces.map((t) => t.position)).toEqual([0, 1, 2, 3, 4]);
    for (const { trace_id } of traces) expect(trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(traces.map((t) => t.trace_id)).size).toBe(5);
    // REST's scenarios link the same traces (docs/contract.md 2.3).
    expect((await fixtures.getScenarios(server, evaluationId)).map((scenario) => scenario.trace_id)).toEqual(traces.map((t) => t.trace_id));

    const expectedOutputs = ['Paris', 'Lima!', 'Rome', { city: 'Tokyo', ok: true }, 'Madird'];
    for (const [position, { trace_id }] of traces.entries()) {
      const response = await server.request('GET', `/observability/traces/${trace_id}`);
      expect(response.status, response.text).toBe(200);
      const span = response.body;
      expect(span).toMatchObject({
        trace_id,
        name: 'forms',
        parent_span_id: null,
        status: 'OK',
        variant: { variant_id: variant.variant_id, variant_name: 'forms', revision: 1 },
        children: [],
      });
      expect(span.content.outputs).toEqual({ output: expectedOutputs[position] });
      expect(span.content.inputs).toEqual({ inputs: { country: rows[position].country }, parameters: { style: 'short', temperature: 0 } });
    }
    const [france, , italy] = await Promise.all(traces.map(async (t) => (await server.request('GET', `/observability/traces/${t.trace_id}`)).body));
    expect(france.metadata.cost).toBe(0.002);
    expect(france.metadata.usage).toEqual({ prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 });
    expect(italy.metadata.cost).toBeCloseTo(0.00045, 12);
    expect(italy.metadata.usage).toEqual({ prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 });
  });
});

describe('Agenta v2 answers without a full trace', () => {
  it('reads data whether trace is null, absent, or without numbers', async () => {
    const answers: Record<string, unknown> = {
      // Agenta's SDK with tracing off.
      a: { version: '2.0', data: 'x', trace: null },
      b: { data: { k: 1 } },
      c: { data: 'y', trace: { latency: 'slow', cost: null } },
    };
    const user = await endpoint((request) => ({ body: answers[request.body.inputs.q] }));
    const variant = await fixtures.createEndpointVariant(server, app.id, user.url);
    const testset = await fixtures.createTestset(server, [
      { q: 'a', correct_answer: 'x' },
      { q: 'b', correct_answer: '{"k":1}' },
      { q: 'c', correct_answer: 'y' },
    ]);
    const exact = await fixtures.createConfig(server, app.id, 'auto_exact_match');
    const { id } = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id],
      testset_id: testset.id,
    });
    expect((await fixtures.waitForStatus(server, id)).status.value).toBe('EVALUATION_FINISHED');
    const scenarios = await fixtures.getScenarios(server, id);
    expect(scenarios.map((s) => s.outputs[0].result)).toEqual([
      { type: 'text', value: 'x', error: null },
      { type: 'json', value: { k: 1 }, error: null },
      { type: 'text', value: 'y', error: null },
    ]);
    for (const scenario of scenarios) {
      expect(scenario.outputs[0].cost).toBeNull();
      // No usable latency in the answer: the measured one (seconds).
      expect(scenario.outputs[0].latency).toBeGreaterThan(0);
      expect(scenario.outputs[0].latency).toBeLessThan(5);
    }
    expect(scenarios.map((s) => s.results[0].result.value)).toEqual([true, true, true]);
  });
});
