// Evaluations through GraphQL: created by mutation, followed by a subscription over SSE to the
// end, aggregates with their statistics, and the side-by-side comparison.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';

let server: TestServer;
let endpoint: Server;
let endpointUrl: string;
let appId: string;
let testsetId: string;
let configId: string;
const variantIds: string[] = [];

// Answers the capital for "good", a wrong one for the last two countries for "bad".
const capitals: Record<string, string> = { France: 'Paris', Peru: 'Lima', Chile: 'Santiago', Japan: 'Tokyo', Kenya: 'Nairobi' };

beforeAll(async () => {
  endpoint = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const { inputs, parameters } = JSON.parse(body);
      const wrong = parameters.flavour === 'bad' && ['Japan', 'Kenya'].includes(inputs.country);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ message: wrong ? 'Rome' : capitals[inputs.country], cost: 0.002, latency: 0.1 }));
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/`;

  server = await startServer();
  appId = (await server.request('POST', '/apps', { app_name: 'gql-evals' })).body.app_id;
  for (const flavour of ['good', 'bad']) {
    const variant = await server.request('POST', `/apps/${appId}/variants`, {
      variant_name: flavour,
      kind: 'endpoint',
      uri: endpointUrl,
      parameters: { flavour },
    });
    variantIds.push(variant.body.variant_id);
  }
  const rows = Object.entries(capitals).map(([country, correct_answer]) => ({ country, correct_answer }));
  testsetId = (await server.request('POST', '/testsets', { name: 'capitals', csvdata: rows })).body.id;
  configId = (await server.request('POST', '/evaluators/configs', { app_id: appId, name: 'exact', evaluator_key: 'auto_exact_match', settings_values: {} }))
    .body.id;
});
afterAll(async () => {
  await server.close();
  endpoint.close();
});

const createMutation = `mutation($input: CreateEvaluationInput!) { createEvaluations(input: $input) { id variantNames status { value } progress { total done } } }`;
const rateLimit = { batchSize: 2, maxRetries: 0, retryDelay: 0, delayBetweenBatches: 0 };

/** Runs a subscription over SSE and collects every `next` payload until the server completes it. */
async function subscribe(query: string, variables: Record<string, unknown>) {
  const response = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query, variables }),
  });
  expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
  const events: any[] = [];
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (\w+)/m.exec(message)?.[1];
      const data = /^data: (.*)$/m.exec(message)?.[1];
      if (event === 'next' && data) events.push(JSON.parse(data));
      if (event === 'complete') return events;
    }
  }
  return events;
}

function wilson(passed: number, n: number) {
  const z = 1.959963984540054;
  const p = passed / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return { low: centre - half, high: centre + half };
}

describe('evaluations over GraphQL', () => {
  it('creates evaluations, streams their progress to the end and aggregates with statistics', async () => {
    const created = await server.graphql(createMutation, {
      input: {
        appId: globalId('App', appId),
        variantIds: variantIds.map((id) => globalId('Variant', id)),
        evaluatorConfigIds: [globalId('EvaluatorConfig', configId)],
        testsetId: globalId('Testset', testsetId),
        rateLimit,
      },
    });
    expect(created.errors).toBeUndefined();
    expect(created.data.createEvaluations.map((e: any) => e.variantNames[0])).toEqual(['good', 'bad']);
    expect(created.data.createEvaluations[0].progress).toEqual({ total: 5, done: 0 });
    const [good, bad] = created.data.createEvaluations.map((e: any) => e.id);

    const events = await subscribe(`subscription($id: ID!) { evaluationProgress(id: $id) { evaluationId status total done errors } }`, { id: bad });
    const progress = events.map((event) => event.data.evaluationProgress);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.every((p: any) => p.evaluationId === bad && p.total === 5)).toBe(true);
    const done = progress.map((p: any) => p.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    // Two cases fail the exact match; a false is a result, not an error, so there are no errors.
    expect(progress.at(-1)).toEqual({ evaluationId: bad, status: 'EVALUATION_FINISHED', total: 5, done: 5, errors: 0 });

    const finished = await subscribe(`subscription($id: ID!) { evaluationProgress(id: $id) { status done } }`, { id: good });
    expect(finished.at(-1).data.evaluationProgress).toEqual({ status: 'EVALUATION_FINISHED', done: 5 });

    const read = await server.graphql(
      `query($id: ID!) { evaluation(id: $id) { status { value } averageCost { type value } totalCost { value }
         aggregatedResults { evaluatorConfig { id } result { type value } count errors stddev confidenceInterval { low high } } } }`,
      { id: bad },
    );
    expect(read.errors).toBeUndefined();
    const evaluation = read.data.evaluation;
    expect(evaluation.totalCost.value).toBeCloseTo(0.01, 10);
    expect(evaluation.averageCost).toEqual({ type: 'cost', value: 0.002 });
    const [aggregate] = evaluation.aggregatedResults;
    expect(aggregate.evaluatorConfig.id).toBe(globalId('EvaluatorConfig', configId));
    expect(aggregate.result).toEqual({ type: 'number', value: 0.6 });
    expect(aggregate.count).toBe(5);
    expect(aggregate.errors).toBe(0);
    // Results 1,1,1,0,0: sample variance (3·0.4² + 2·0.6²)/4 = 0.3.
    expect(aggregate.stddev).toBeCloseTo(Math.sqrt(0.3), 12);
    const expected = wilson(3, 5);
    expect(aggregate.confidenceInterval.low).toBeCloseTo(expected.low, 12);
    expect(aggregate.confidenceInterval.high).toBeCloseTo(expected.high, 12);

    const comparison = await server.graphql(
      `query($ids: [ID!]!) { evaluationComparison(ids: $ids) { position inputs correctAnswers scenarios { outputs { result { value } } results { result { value } } } } }`,
      { ids: [good, bad] },
    );
    expect(comparison.errors).toBeUndefined();
    const rows = comparison.data.evaluationComparison;
    expect(rows.map((row: any) => row.position)).toEqual([0, 1, 2, 3, 4]);
    expect(rows[3].inputs).toEqual([{ name: 'country', type: 'text', value: 'Japan' }]);
    expect(rows[3].correctAnswers).toEqual([{ key: 'correct_answer', value: 'Tokyo' }]);
    expect(rows[3].scenarios.map((s: any) => [s.outputs[0].result.value, s.results[0].result.value])).toEqual([
      ['Tokyo', true],
      ['Rome', false],
    ]);
  });

  it('reports a subscription to an unknown evaluation as not found', async () => {
    const events = await subscribe(`subscription($id: ID!) { evaluationProgress(id: $id) { status } }`, { id: globalId('Evaluation', 'nope') });
    expect(events[0].errors[0]).toMatchObject({ message: 'Evaluation with id nope not found', extensions: { code: 'NOT_FOUND' } });
  });

  it('validates the mutation input with the REST rules and cancels through GraphQL', async () => {
    const invalid = await server.graphql(createMutation, {
      input: {
        appId: globalId('App', appId),
        variantIds: [],
        evaluatorConfigIds: [globalId('EvaluatorConfig', configId)],
        testsetId: globalId('Testset', testsetId),
        rateLimit: { ...rateLimit, batchSize: 0 },
      },
    });
    expect(invalid.errors[0].extensions.detail).toEqual([
      { loc: ['body', 'variant_ids'], msg: 'List should have at least 1 item', type: 'too_short' },
      { loc: ['body', 'rate_limit', 'batch_size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' },
    ]);
    const finished = (
      await server.graphql(`query($app: ID!) { evaluations(appId: $app) { edges { node { id status { value } } } } }`, { app: globalId('App', appId) })
    ).data.evaluations.edges[0].node;
    expect(finished.status.value).toBe('EVALUATION_FINISHED');
    const cancel = await server.graphql(`mutation($id: ID!) { cancelEvaluation(id: $id) { id } }`, { id: finished.id });
    expect(cancel.errors[0].extensions.code).toBe('CONFLICT');
  });
});
