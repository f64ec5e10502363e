// Automatic evaluations run end to end against endpoint variants played by local HTTP servers:
// every answer form of docs/evaluations.md#what-a-variant-is-sent, the stored scenarios
// (docs/contract.md 2.3) in test set order, the trace of each invocation, the aggregates and totals
// of docs/evaluations.md (all expected values worked out by hand below), the ground-truth column
// rules, and the batching of rate_limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { createGate, type FakeEndpoint, type Reply, sleep, startEndpoint } from '../../test/helpers/endpoints.js';
import {
  createApp,
  createConfig,
  createEndpointVariant,
  createTestset,
  getEvaluation,
  getScenarios,
  scenarioTraceIds,
  startEvaluation,
  waitForStatus,
} from '../../test/helpers/evaluations.js';

let server: TestServer;
const endpoints: FakeEndpoint[] = [];
let appId: string;

async function endpoint(handler: Parameters<typeof startEndpoint>[0]): Promise<FakeEndpoint> {
  const started = await startEndpoint(handler);
  endpoints.push(started);
  return started;
}

beforeAll(async () => {
  server = await startServer();
  appId = await createApp(server, 'runs');
});

afterAll(async () => {
  await server?.close();
  for (const started of endpoints) await started.close();
});

/** An endpoint answering every case with the Agenta v2 form `{data, trace:{cost, latency}}` from `answers[q]`. */
function agentaAnswers(answers: Record<string, [data: unknown, cost: number, latency: number]>) {
  return (request: { body: any }): Reply => {
    const [data, cost, latency] = answers[request.body.inputs.q];
    return { body: { data, trace: { cost, latency } } };
  };
}

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
    variant = await createEndpointVariant(server, appId, user.url, { name: 'forms', parameters: { style: 'short', temperature: 0 } });
    testset = await createTestset(server, rows, 'capitals');
    configs = [
      await createConfig(server, appId, 'auto_exact_match', {}, 'forms-exact'),
      await createConfig(server, appId, 'auto_contains', { substring: 'a', case_sensitive: true }, 'forms-contains-a'),
      await createConfig(server, appId, 'auto_levenshtein_distance', {}, 'forms-levenshtein'),
    ];
    const created = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: configs.map((c) => c.id),
      testset_id: testset.id,
      rate_limit: { batch_size: 3 },
    });
    evaluationId = created.id;
    const end = await waitForStatus(server, evaluationId);
    expect(end).toEqual({ status: { type: 'status', value: 'EVALUATION_FINISHED', error: null }, progress: { total: 5, done: 5, errors: 0 } });
    scenarios = await getScenarios(server, evaluationId);
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
    const evaluation = await getEvaluation(server, evaluationId);
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
    const traces = await scenarioTraceIds(server, evaluationId);
    expect(traces.map((t) => t.position)).toEqual([0, 1, 2, 3, 4]);
    for (const { trace_id } of traces) expect(trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(traces.map((t) => t.trace_id)).size).toBe(5);
    // REST's scenarios link the same traces (docs/contract.md 2.3).
    expect((await getScenarios(server, evaluationId)).map((scenario) => scenario.trace_id)).toEqual(traces.map((t) => t.trace_id));

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
    const variant = await createEndpointVariant(server, appId, user.url);
    const testset = await createTestset(server, [
      { q: 'a', correct_answer: 'x' },
      { q: 'b', correct_answer: '{"k":1}' },
      { q: 'c', correct_answer: 'y' },
    ]);
    const exact = await createConfig(server, appId, 'auto_exact_match');
    const { id } = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id],
      testset_id: testset.id,
    });
    expect((await waitForStatus(server, id)).status.value).toBe('EVALUATION_FINISHED');
    const scenarios = await getScenarios(server, id);
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

describe('aggregates and totals', () => {
  it('computes means over the cases, and exact cost and latency totals', async () => {
    // q → [output, cost, latency]
    const user = await endpoint(agentaAnswers({ a: ['x', 0.01, 1], b: ['zz', 0.02, 2], c: ['w', 0.03, 0.5], d: ['vvv', 0.04, 0.5] }));
    const variant = await createEndpointVariant(server, appId, user.url);
    const testset = await createTestset(server, [
      { q: 'a', correct_answer: 'x' },
      { q: 'b', correct_answer: 'y' },
      { q: 'c', correct_answer: 'w' },
      { q: 'd', correct_answer: 'v' },
    ]);
    const configs = [
      await createConfig(server, appId, 'auto_exact_match'),
      await createConfig(server, appId, 'auto_regex_test', { regex_pattern: '^(x|zz|vvv)$' }),
      await createConfig(server, appId, 'auto_levenshtein_distance'),
    ];
    const { id } = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: configs.map((c) => c.id),
      testset_id: testset.id,
      rate_limit: { batch_size: 2 },
    });
    expect(await waitForStatus(server, id)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED', error: null },
      progress: { total: 4, done: 4, errors: 0 },
    });
    const evaluation = await getEvaluation(server, id);
    // exact: x=x, zz≠y, w=w, vvv≠v → 2/4; regex: x, zz, vvv match, w not → 3/4;
    // levenshtein: 0, 2, 0, 2 → 1.
    const results = [0.5, 0.75, 1];
    expect(evaluation.aggregated_results).toEqual(
      configs.map((config, index) => ({ evaluator_config: config, result: { type: 'number', value: results[index], error: null } })),
    );
    expect((await server.request('GET', `/evaluations/${id}/results`)).body).toEqual({ id, results: evaluation.aggregated_results });
    // Costs 0.01 + 0.02 + 0.03 + 0.04 = 0.1, mean 0.025; latencies (1 + 2 + 0.5 + 0.5) / 4 = 1.
    expect(evaluation.total_cost.type).toBe('cost');
    expect(evaluation.total_cost.value).toBeCloseTo(0.1, 12);
    expect(evaluation.average_cost.type).toBe('cost');
    expect(evaluation.average_cost.value).toBeCloseTo(0.025, 12);
    expect(evaluation.average_latency).toEqual({ type: 'latency', value: 1, error: null });
  });

  it('leaves evaluator errors out of the means, ends FINISHED_WITH_ERRORS, and gives an error aggregate when no case was scored', async () => {
    const user = await endpoint(agentaAnswers({ a: ['x', 0.001, 0.1], b: ['y', 0.001, 0.1], c: ['w', 0.001, 0.1] }));
    const variant = await createEndpointVariant(server, appId, user.url);
    const testset = await createTestset(server, [{ q: 'a', correct_answer: 'x' }, { q: 'b' }, { q: 'c', correct_answer: 'no' }]);
    const exact = await createConfig(server, appId, 'auto_exact_match');
    const contains = await createConfig(server, appId, 'auto_contains', { substring: 'x' });
    const { id } = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id, contains.id],
      testset_id: testset.id,
    });
    // Only case b has an error (no ground truth column).
    expect(await waitForStatus(server, id)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED_WITH_ERRORS', error: null },
      progress: { total: 3, done: 3, errors: 1 },
    });
    const scenarios = await getScenarios(server, id);
    expect(scenarios[1].results[0]).toEqual({
      evaluator_config: exact.id,
      result: { type: 'error', value: null, error: { message: 'The test case has no column "correct_answer" (columns: q)', stacktrace: null } },
    });
    expect(scenarios[1].results[1]).toEqual({ evaluator_config: contains.id, result: { type: 'bool', value: false, error: null } });
    expect(scenarios[1].correct_answers).toEqual([]);
    const evaluation = await getEvaluation(server, id);
    // exact: true, (error), false → 1/2 over the two scored cases; contains "x": x yes, y no, w no → 1/3.
    expect(evaluation.aggregated_results.map((a: any) => a.result)).toEqual([
      { type: 'number', value: 0.5, error: null },
      { type: 'number', value: 1 / 3, error: null },
    ]);

    // A config that could score no case at all: its aggregate is an error.
    const nowhere = await createConfig(server, appId, 'auto_exact_match', { correct_answer_key: 'testcase.expected' });
    const second = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [nowhere.id, contains.id],
      testset_id: testset.id,
    });
    expect((await waitForStatus(server, second.id)).progress).toEqual({ total: 3, done: 3, errors: 3 });
    const failed = await getEvaluation(server, second.id);
    expect(failed.status.value).toBe('EVALUATION_FINISHED_WITH_ERRORS');
    expect(failed.aggregated_results).toEqual([
      {
        evaluator_config: nowhere,
        result: { type: 'error', value: null, error: { message: 'No test case could be scored by Exact match', stacktrace: null } },
      },
      { evaluator_config: contains, result: { type: 'number', value: 1 / 3, error: null } },
    ]);
  });
});

describe('ground truth columns', () => {
  it('reads correct_answer_key, else the evaluation correct_answer_column; both columns are left out of the inputs', async () => {
    const user = await endpoint((request) => ({ body: { data: String(request.body.inputs.q).toUpperCase() } }));
    const variant = await createEndpointVariant(server, appId, user.url);
    const testset = await createTestset(server, [
      { q: 'a', expected: 'A', correct_answer: 'nope', note: 7 },
      { q: 'b', expected: 'nope', correct_answer: 'B', note: 8 },
    ]);
    const byColumn = await createConfig(server, appId, 'auto_exact_match');
    const byKey = await createConfig(server, appId, 'auto_exact_match', { correct_answer_key: 'testcase.correct_answer' });
    const { id } = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [byColumn.id, byKey.id],
      testset_id: testset.id,
      correct_answer_column: 'expected',
    });
    await waitForStatus(server, id);
    const scenarios = await getScenarios(server, id);
    expect(scenarios.map((s) => s.inputs)).toEqual([
      [
        { name: 'q', type: 'text', value: 'a' },
        { name: 'note', type: 'text', value: 7 },
      ],
      [
        { name: 'q', type: 'text', value: 'b' },
        { name: 'note', type: 'text', value: 8 },
      ],
    ]);
    expect(scenarios.map((s) => s.correct_answers)).toEqual([
      [
        { key: 'expected', value: 'A' },
        { key: 'correct_answer', value: 'nope' },
      ],
      [
        { key: 'expected', value: 'nope' },
        { key: 'correct_answer', value: 'B' },
      ],
    ]);
    expect(scenarios.map((s) => s.results.map((r: any) => r.result.value))).toEqual([
      [true, false],
      [false, true],
    ]);
    expect(scenarios.map((s) => s.outputs[0].cost)).toEqual([null, null]);
    // No case had a cost: the cost totals are error Results, the latency one a number.
    const evaluation = await getEvaluation(server, id);
    expect(evaluation.total_cost).toEqual({ type: 'error', value: null, error: { message: 'No cost was measured for this evaluation', stacktrace: null } });
    expect(evaluation.average_cost).toEqual(evaluation.total_cost);
    expect(evaluation.average_latency.type).toBe('latency');
  });
});

describe('rate limit batches', () => {
  it('runs batch_size cases at once and waits delay_between_batches seconds between batches', async () => {
    const user = await endpoint(async (request) => {
      await sleep(100);
      return { body: { data: `answer ${request.body.inputs.n}` } };
    });
    const variant = await createEndpointVariant(server, appId, user.url);
    const rows = Array.from({ length: 6 }, (_, n) => ({ n, correct_answer: `answer ${n}` }));
    const testset = await createTestset(server, rows);
    const exact = await createConfig(server, appId, 'auto_exact_match');
    const started = Date.now();
    const { id } = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id],
      testset_id: testset.id,
      rate_limit: { batch_size: 2, delay_between_batches: 1 },
    });
    const end = await waitForStatus(server, id);
    const elapsed = Date.now() - started;
    expect(end.status.value).toBe('EVALUATION_FINISHED');
    expect(user.requests).toHaveLength(6);
    expect(user.maxConcurrent).toBe(2);
    // Batches [0,1], [2,3], [4,5] in test set order, 1 s apart (after each 100 ms batch).
    const arrivals = user.requests.map((r) => ({ n: r.body.inputs.n as number, at: r.at }));
    const batches = [0, 1, 2].map((b) => arrivals.filter((a) => Math.floor(a.n / 2) === b));
    for (const [b, batch] of batches.entries()) {
      expect(batch.map((a) => a.n).sort()).toEqual([2 * b, 2 * b + 1]);
      expect(Math.abs(batch[0].at - batch[1].at)).toBeLessThan(300);
    }
    for (const b of [1, 2]) {
      const gap = Math.min(...batches[b].map((a) => a.at)) - Math.max(...batches[b - 1].map((a) => a.at));
      expect(gap).toBeGreaterThanOrEqual(1000);
    }
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    expect((await getScenarios(server, id)).map((s) => s.inputs[0].value)).toEqual([0, 1, 2, 3, 4, 5]);
  });
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
    const variant = await createEndpointVariant(server, appId, user.url);
    const testset = await createTestset(
      server,
      ['a', 'b', 'c'].map((q) => ({ q, correct_answer: 'ok' })),
    );
    const exact = await createConfig(server, appId, 'auto_exact_match');
    const { id } = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id],
      testset_id: testset.id,
      rate_limit: { batch_size: 3 },
    });
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
    const variant = await createEndpointVariant(server, appId, user.url);
    const testset = await createTestset(
      server,
      ['a', 'b'].map((q) => ({ q, correct_answer: 'ok' })),
    );
    const exact = await createConfig(server, appId, 'auto_exact_match');
    const { id } = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id],
      testset_id: testset.id,
      rate_limit: { batch_size: 2 },
    });
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
