// rate_limit retries (docs/evaluations.md#rate_limit): transient failures (5xx, 408, 429, network
// errors, timeouts) are retried up to max_retries times, retry_delay apart unless a Retry-After
// header says otherwise; a 4xx is not retried; a case out of retries is stored with an error output
// and the run goes on to end FINISHED_WITH_ERRORS. The server's per-call timeout is 0.5 s here.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { closedPortUrl, useEndpoints, type FakeEndpoint, type RecordedRequest, type Reply } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';

const server = useTestServer({ VARIANT_TIMEOUT_SECONDS: '0.5' });
const app = fixtures.useApp(server, 'retries');
const endpoint = useEndpoints();

beforeAll(async () => {});

/** Requests that carried test case `name` (column `case`). */
function callsFor(user: FakeEndpoint, name: string): RecordedRequest[] {
  return user.requests.filter((request) => request.body.inputs.case === name);
}

describe('retries of variant calls', () => {
  it('retries 5xx and 408 up to max_retries, never a 400, stores errors and goes on', async () => {
    // Calls seen so far per case, to fail the first ones.
    const seen: Record<string, number> = {};
    const user = await endpoint((request): Reply => {
      const name: string = request.body.inputs.case;
      seen[name] = (seen[name] ?? 0) + 1;
      switch (name) {
        case 'flaky': // fails twice, then answers: within max_retries = 2
          return seen[name] <= 2 ? { status: 503, body: 'busy' } : { body: { data: 'ok, recovered' } };
        case 'timeout408':
          return seen[name] === 1 ? { status: 408, body: 'slow' } : { body: { data: 'ok' } };
        case 'down': // fails every time: 1 call + 2 retries
          return { status: 503, body: 'down for maintenance' };
        case 'bad': // a client error is final
          return { status: 400, body: 'bad request' };
        default:
          return { body: { data: 'ok' } };
      }
    });
    const variant = await fixtures.createEndpointVariant(server, app.id, user.url);
    const testset = await fixtures.createTestset(
      server,
      ['flaky', 'down', 'bad', 'timeout408', 'fine'].map((name) => ({ case: name, correct_answer: 'ok' })),
    );
    const exact = await fixtures.createConfig(server, app.id, 'auto_exact_match');
    const contains = await fixtures.createConfig(server, app.id, 'auto_contains', { substring: 'ok' });
    const { id } = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id, contains.id],
      testset_id: testset.id,
      rate_limit: { batch_size: 2, max_retries: 2, retry_delay: 0 },
    });
    expect(await fixtures.waitForStatus(server, id)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED_WITH_ERRORS', error: null },
      progress: { total: 5, done: 5, errors: 2 },
    });
    expect(['flaky', 'down', 'bad', 'timeout408', 'fine'].map((name) => callsFor(user, name).length)).toEqual([3, 3, 1, 2, 1]);

    const scenarios = await fixtures.getScenarios(server, id);
    const outputs = scenarios.map((s) => s.outputs[0]);
    expect(outputs[0].result).toEqual({ type: 'text', value: 'ok, recovered', error: null });
    const failure = (message: string) => ({ result: { type: 'error', value: null, error: { message, stacktrace: null } }, cost: null, latency: null });
    expect(outputs[1]).toEqual(failure(`The endpoint ${user.url} answered 503: down for maintenance`));
    expect(outputs[2]).toEqual(failure(`The endpoint ${user.url} answered 400: bad request`));
    expect(outputs[3].result).toEqual({ type: 'text', value: 'ok', error: null });
    expect(outputs[4].result).toEqual({ type: 'text', value: 'ok', error: null });
    // A case without output is not scored; its results say why.
    const notScored = { type: 'error', value: null, error: { message: 'The variant gave no output to evaluate (see the output error)', stacktrace: null } };
    expect(scenarios[1].results).toEqual([
      { evaluator_config: exact.id, result: notScored },
      { evaluator_config: contains.id, result: notScored },
    ]);
    // Aggregates over the three cases with output: exact ("ok, recovered" ≠ "ok") 2/3, contains "ok" 3/3.
    const evaluation = (await server.request('GET', `/evaluations/${id}`)).body;
    expect(evaluation.aggregated_results.map((a: any) => a.result)).toEqual([
      { type: 'number', value: 2 / 3, error: null },
      { type: 'number', value: 1, error: null },
    ]);
    // The failed case's trace is recorded as an error without output.
    const traces = await fixtures.scenarioTraceIds(server, id);
    const span = (await server.request('GET', `/observability/traces/${traces[2].trace_id}`)).body;
    expect(span.status).toBe('ERROR');
    expect(span.content.outputs).toBeNull();
  });

  it('waits what Retry-After says, over retry_delay either way', async () => {
    // Case "after1": 429 with Retry-After: 1 under retry_delay 0 → the retry comes ≥ 1 s later.
    // Case "after0": 503 with Retry-After: 0 under retry_delay 1 → the retry comes at once.
    // Case "plain": 503 without the header under retry_delay 1 → the retry comes ≥ 1 s later.
    const seen: Record<string, number> = {};
    const user = await endpoint((request): Reply => {
      const name: string = request.body.inputs.case;
      seen[name] = (seen[name] ?? 0) + 1;
      if (seen[name] > 1) return { body: { data: 'ok' } };
      if (name === 'after1') return { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' };
      if (name === 'after0') return { status: 503, headers: { 'retry-after': '0' }, body: 'busy' };
      return { status: 503, body: 'busy' };
    });
    const noDelay = await fixtures.createEndpointVariant(server, app.id, user.url);
    const exact = await fixtures.createConfig(server, app.id, 'auto_exact_match');
    const first = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [noDelay.variant_id],
      evaluators_configs: [exact.id],
      testset_id: (await fixtures.createTestset(server, [{ case: 'after1', correct_answer: 'ok' }])).id,
      rate_limit: { max_retries: 1, retry_delay: 0 },
    });
    const second = await fixtures.startEvaluation(server, {
      app_id: app.id,
      variant_ids: [noDelay.variant_id],
      evaluators_configs: [exact.id],
      testset_id: (
        await fixtures.createTestset(server, [
          { case: 'after0', correct_answer: 'ok' },
          { case: 'plain', correct_answer: 'ok' },
        ])
      ).id,
      rate_limit: { batch_size: 2, max_retries: 1, retry_delay: 1 },
    });
    for (const { id } of [first, second]) {
      expect(await fixtures.waitForStatus(server, id)).toEqual({
        status: { type: 'status', value: 'EVALUATION_FINISHED', error: null },
        progress: expect.objectContaining({ errors: 0 }),
      });
    }
    const gap = (name: string) => {
      const calls = callsFor(user, name);
      expect(calls, name).toHaveLength(2);
      return calls[1].at - calls[0].at;
    };
    expect(gap('after1')).toBeGreaterThanOrEqual(950);
    expect(gap('after0')).toBeLessThan(500);
    expect(gap('plain')).toBeGreaterThanOrEqual(950);
  });

  it('stops a call after VARIANT_TIMEOUT_SECONDS and retries timeouts and unreachable endpoints as transient', async () => {
    const hanging = await endpoint(() => new Promise<void>(() => undefined));
    const slow = await fixtures.createEndpointVariant(server, app.id, hanging.url, { name: 'hangs' });
    const unreachableUrl = await closedPortUrl();
    const gone = await fixtures.createEndpointVariant(server, app.id, unreachableUrl, { name: 'gone' });
    const exact = await fixtures.createConfig(server, app.id, 'auto_exact_match');
    const testset = await fixtures.createTestset(server, [{ case: 'only', correct_answer: 'ok' }]);
    // One request, two variants: two evaluations that run side by side.
    const [timedOut, unreachable] = await fixtures.startEvaluations(server, {
      app_id: app.id,
      variant_ids: [slow.variant_id, gone.variant_id],
      evaluators_configs: [exact.id],
      testset_id: testset.id,
      rate_limit: { max_retries: 1, retry_delay: 0 },
    });
    const started = Date.now();
    expect(await fixtures.waitForStatus(server, timedOut.id)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED_WITH_ERRORS', error: null },
      progress: { total: 1, done: 1, errors: 1 },
    });
    // Two attempts of 0.5 s each.
    expect(hanging.requests).toHaveLength(2);
    expect(hanging.requests[1].at - hanging.requests[0].at).toBeGreaterThanOrEqual(450);
    expect(Date.now() - started).toBeLessThan(5_000);
    const [timeoutScenario] = await fixtures.getScenarios(server, timedOut.id);
    expect(timeoutScenario.outputs).toEqual([
      {
        result: { type: 'error', value: null, error: { message: 'The call took longer than 0.5 s and was stopped', stacktrace: null } },
        cost: null,
        latency: null,
      },
    ]);

    expect((await fixtures.waitForStatus(server, unreachable.id)).status.value).toBe('EVALUATION_FINISHED_WITH_ERRORS');
    const [unreachableScenario] = await fixtures.getScenarios(server, unreachable.id);
    expect(unreachableScenario.outputs[0].result.type).toBe('error');
    expect(unreachableScenario.outputs[0].result.error.message).toMatch(
      new RegExp(`^The endpoint ${unreachableUrl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} could not be reached: `),
    );
  });
});
