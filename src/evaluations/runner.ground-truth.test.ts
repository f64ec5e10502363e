// The ground-truth column rules of automatic evaluations (docs/evaluations.md): correct_answer_key,
// else the evaluation's correct_answer_column, both left out of the inputs a variant is sent.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { useEndpoints } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';

const server = useTestServer();
const endpoint = useEndpoints();
const app = fixtures.useApp(server, 'runs');

describe('ground truth columns', () => {
  it('reads correct_answer_key, else the evaluation correct_answer_column; both columns are left out of the inputs', async () => {
    const user = await endpoint((request) => ({ body: { data: String(request.body.inputs.q).toUpperCase() } }));
    const variant = await fixtures.createEndpointVariant(server, app.id, user.url);
    const testset = await fixtures.createTestset(server, [
      { q: 'a', expected: 'A', correct_answer: 'nope', note: 7 },
      { q: 'b', expected: 'nope', correct_answer: 'B', note: 8 },
    ]);
    const byColumn = await fixtures.createConfig(server, app.id, 'auto_exact_match');
    const byKey = await fixtures.createConfig(server, app.id, 'auto_exact_match', { correct_answer_key: 'testcase.correct_answer' });
    const { id } = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [variant.variant_id],
      evaluators_configs: [byColumn.id, byKey.id],
      testset_id: testset.id,
      correct_answer_column: 'expected',
    });
    await fixtures.waitForStatus(server, id);
    const scenarios = await fixtures.getScenarios(server, id);
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
    const evaluation = await fixtures.getEvaluation(server, id);
    expect(evaluation.total_cost).toEqual({ type: 'error', value: null, error: { message: 'No cost was measured for this evaluation', stacktrace: null } });
    expect(evaluation.average_cost).toEqual(evaluation.total_cost);
    expect(evaluation.average_latency.type).toBe('latency');
  });
});
