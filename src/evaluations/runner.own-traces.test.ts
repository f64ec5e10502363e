// Assay's own calls (docs/observability.md#assays-own-calls): the traces the evaluation runners
// write when they call variants and evaluators carry the environment "assay-evaluation", and the
// trace and span searches and metrics of REST and GraphQL leave them out unless asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { type FakeEndpoint, startEndpoint } from '../../test/helpers/endpoints.js';
import { getScenarios, runEndpointEvaluation } from '../../test/helpers/evaluations.js';
import { generateSingleModelEvaluation } from '../../test/helpers/human-evaluations.js';

const server = useTestServer();
let endpoint: FakeEndpoint;
let evaluationApp: string;
let humanApp: string;
/** The traces of the automatic evaluation's two cases. */
let evaluationTraces: string[];

const rows = [
  { country: 'France', correct_answer: 'Paris' },
  { country: 'Peru', correct_answer: 'Lima' },
];

beforeAll(async () => {
  endpoint = await startEndpoint(() => ({ body: { message: 'Paris', cost: 0.00425 } }));
  // The app's own traces: one in production, one without an environment.
  for (const [trace, environment] of [
    ['app-prod', 'production'],
    ['app-plain', null],
  ] as const) {
    const response = await server.request('POST', '/observability/trace', {
      trace,
      spans: [{ id: `${trace}-root`, name: 'app call', start_time: '2026-11-22T10:00:00Z', end_time: '2026-11-22T10:00:01Z', environment }],
    });
    expect(response.status).toBe(200);
  }

  const evaluation = await runEndpointEvaluation(server, endpoint.url, rows);
  evaluationApp = evaluation.appId;
  const id = evaluation.id;
  evaluationTraces = (await getScenarios(server, id)).map((scenario) => scenario.trace_id).sort();

  humanApp = (await generateSingleModelEvaluation(server, endpoint.url, rows, ['country'])).appId;
});

afterAll(async () => {
  await endpoint?.close();
});

const traceIds = (body: any) => body.traces.map((trace: any) => trace.trace_id).sort();

describe('REST', () => {
  it('lists only the app traces by default', async () => {
    const response = await server.request('GET', '/observability/traces');
    expect(response.status).toBe(200);
    expect(traceIds(response.body)).toEqual(['app-plain', 'app-prod']);
    expect(traceIds((await server.request('GET', '/observability/traces?include_evaluations=false')).body)).toEqual(['app-plain', 'app-prod']);
    expect((await server.request('GET', `/observability/traces?app_id=${humanApp}`)).body.traces).toEqual([]);
    expect((await server.request('GET', '/observability/spans')).body.spans.map((span: any) => span.id).sort()).toEqual(['app-plain-root', 'app-prod-root']);
    const metrics = await server.request('GET', '/observability/metrics?of=traces');
    expect(metrics.body).toMatchObject({ count: 2, cost: null });
    expect((await server.request('GET', '/observability/metrics?of=spans')).body.count).toBe(2);
  });

  it('includes the evaluation traces when asked, or lists only them when the environment filter names theirs', async () => {
    const all = (await server.request('GET', '/observability/traces?include_evaluations=true')).body;
    expect(traceIds(all)).toHaveLength(2 + 2 + 2);
    expect(traceIds(all)).toEqual(expect.arrayContaining([...evaluationTraces, 'app-plain', 'app-prod']));
    const own = (await server.request('GET', '/observability/traces?environment=assay-evaluation')).body;
    expect(traceIds(own)).toHaveLength(4);
    expect(own.traces.every((trace: any) => trace.environment === 'assay-evaluation')).toBe(true);
    expect(traceIds((await server.request('GET', `/observability/traces?app_id=${evaluationApp}&include_evaluations=1`)).body)).toEqual(evaluationTraces);
    expect((await server.request('GET', `/observability/traces?app_id=${humanApp}&include_evaluations=yes`)).body.traces).toHaveLength(2);
    // Spans: the variant's calls and the evaluator's (none here: exact match calls no model).
    const spans = (await server.request('GET', '/observability/spans?environment=assay-evaluation')).body.spans;
    expect(spans).toHaveLength(4);
    const metrics = (await server.request('GET', '/observability/metrics?of=traces&include_evaluations=true')).body;
    // Four calls that reported 0.00425 each, summed exactly.
    expect(metrics).toMatchObject({ count: 6, cost: 0.017 });
  });

  it('still reads an evaluation trace by its id, marked as Assay’s', async () => {
    const tree = (await server.request('GET', `/observability/traces/${evaluationTraces[0]}`)).body;
    expect(tree).toMatchObject({ trace_id: evaluationTraces[0], environment: 'assay-evaluation', metadata: { cost: 0.00425 } });
  });

  it('refuses an include_evaluations that is not a boolean with a 422 naming it', async () => {
    for (const path of ['/observability/traces', '/observability/spans', '/observability/metrics']) {
      const response = await server.request('GET', `${path}?include_evaluations=maybe`);
      expect(response.status, path).toBe(422);
      expect(response.body).toEqual({
        detail: [{ loc: ['query', 'include_evaluations'], msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing' }],
      });
    }
  });
});

describe('GraphQL', () => {
  const query = `query($include: Boolean, $environment: String) {
    traces(first: 50, includeEvaluations: $include, environment: $environment) { edges { node { traceId environment } } }
    spans(first: 50, includeEvaluations: $include, environment: $environment) { edges { node { id } } }
    traceMetrics(includeEvaluations: $include, environment: $environment) { count cost }
    spanMetrics(includeEvaluations: $include, environment: $environment) { count }
  }`;
  const counts = (data: any) => [data.traces.edges.length, data.spans.edges.length, data.traceMetrics.count, data.spanMetrics.count];

  it('leaves the evaluation traces out of lists and metrics by default', async () => {
    for (const variables of [{}, { include: false }, { include: null }]) {
      const { data, errors } = await server.graphql(query, variables);
      expect(errors).toBeUndefined();
      expect(data.traces.edges.map((edge: any) => edge.node.traceId).sort()).toEqual(['app-plain', 'app-prod']);
      expect(counts(data)).toEqual([2, 2, 2, 2]);
      expect(data.traceMetrics.cost).toBeNull();
    }
  });

  it('includes them with includeEvaluations, or lists only them when environment names theirs', async () => {
    const all = await server.graphql(query, { include: true });
    expect(all.errors).toBeUndefined();
    expect(counts(all.data)).toEqual([6, 6, 6, 6]);
    expect(all.data.traceMetrics.cost).toBe(0.017);
    const own = await server.graphql(query, { environment: 'assay-evaluation' });
    expect(counts(own.data)).toEqual([4, 4, 4, 4]);
    expect(own.data.traces.edges.every((edge: any) => edge.node.environment === 'assay-evaluation')).toBe(true);
  });

  it('refuses an includeEvaluations that is not a boolean', async () => {
    const { data, errors } = await server.graphql('{ traces(includeEvaluations: "yes") { edges { node { traceId } } } }');
    expect(data).toBeUndefined();
    expect(errors[0].message).toMatch(/Boolean cannot represent a non boolean value/);
  });
});
