// The aggregates and totals of docs/evaluations.md#totals-and-aggregates (evaluations/aggregates.ts)
// over runs against endpoint variants played by local HTTP servers; all expected values worked out
// by hand below.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { useEndpoints, type Reply } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';

const server = useTestServer();
const endpoint = useEndpoints();
const app = fixtures.useApp(server, 'aggregates');

/** An endpoint answering every case with the Agenta v2 form `{data, trace:{cost, latency}}` from `answers[q]`. */
function agentaAnswers(answers: Record<string, [data: unknown, cost: number, latency: number]>) {
  return (request: { body: any }): Reply => {
    const [data, cost, latency] = answers[request.body.inputs.q];
    return { body: { data, trace: { cost, latency } } };
  };
}

describe('aggregates and totals', () => {
  it('computes means over the cases, and exact cost and latency totals', async () => {
    // q → [output, cost, latency]
    const user = await endpoint(agentaAnswers({ a: ['x', 0.01, 1], b: ['zz', 0.02, 2], c: ['w', 0.03, 0.5], d: ['vvv', 0.04, 0.5] }));
    const variant = await fixtures.createEndpointVariant(server, app.id, user.url);
    const testset = await fixtures.createTestset(server, [
      { q: 'a', correct_answer: 'x' },
      { q: 'b', correct_answer: 'y' },
      { q: 'c', correct_answer: 'w' },
      { q: 'd', correct_answer: 'v' },
    ]);
    const configs = [
      await fixtures.createConfig(server, app.id, 'auto_exact_match'),
      await fixtures.createConfig(server, app.id, 'auto_regex_test', { regex_pattern: '^(x|zz|vvv)$' }),
      await fixtures.createConfig(server, app.id, 'auto_levenshtein_distance'),
    ];
    const { id } = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [variant.variant_id],
      evaluators_configs: configs.map((c) => c.id),
      testset_id: testset.id,
      rate_limit: { batch_size: 2 },
    });
    expect(await fixtures.waitForStatus(server, id)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED', error: null },
      progress: { total: 4, done: 4, errors: 0 },
    });
    const evaluation = await fixtures.getEvaluation(server, id);
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
    const variant = await fixtures.createEndpointVariant(server, app.id, user.url);
    const testset = await fixtures.createTestset(server, [{ q: 'a', correct_answer: 'x' }, { q: 'b' }, { q: 'c', correct_answer: 'no' }]);
    const exact = await fixtures.createConfig(server, app.id, 'auto_exact_match');
    const contains = await fixtures.createConfig(server, app.id, 'auto_contains', { substring: 'x' });
    const { id } = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id, contains.id],
      testset_id: testset.id,
    });
    // Only case b has an error (no ground truth column).
    expect(await fixtures.waitForStatus(server, id)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED_WITH_ERRORS', error: null },
      progress: { total: 3, done: 3, errors: 1 },
    });
    const scenarios = await fixtures.getScenarios(server, id);
    expect(scenarios[1].results[0]).toEqual({
      evaluator_config: exact.id,
      result: { type: 'error', value: null, error: { message: 'The test case has no column "correct_answer" (columns: q)', stacktrace: null } },
    });
    expect(scenarios[1].results[1]).toEqual({ evaluator_config: contains.id, result: { type: 'bool', value: false, error: null } });
    expect(scenarios[1].correct_answers).toEqual([]);
    const evaluation = await fixtures.getEvaluation(server, id);
    // exact: true, (error), false → 1/2 over the two scored cases; contains "x": x yes, y no, w no → 1/3.
    expect(evaluation.aggregated_results.map((a: any) => a.result)).toEqual([
      { type: 'number', value: 0.5, error: null },
      { type: 'number', value: 1 / 3, error: null },
    ]);

    // A config that could score no case at all: its aggregate is an error.
    const nowhere = await fixtures.createConfig(server, app.id, 'auto_exact_match', { correct_answer_key: 'testcase.expected' });
    const second = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [variant.variant_id],
      evaluators_configs: [nowhere.id, contains.id],
      testset_id: testset.id,
    });
    expect((await fixtures.waitForStatus(server, second.id)).progress).toEqual({ total: 3, done: 3, errors: 3 });
    const failed = await fixtures.getEvaluation(server, second.id);
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
