// The OpenAPI document (/openapi.json) and the reference page (/docs): the document is valid
// OpenAPI 3.1, lists every route the server serves, promises the 422 where input is validated, and
// real answers of a tour through the API match the documented status codes and bodies.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { validate as validateOpenApi, compileErrors } from '@readme/openapi-parser';
import { parse } from 'parse5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndpoint, type FakeEndpoint } from './helpers/endpoints.js';
import { waitForStatus } from './helpers/evaluations.js';
import { waitForHumanStatus } from './helpers/human-evaluations.js';
import { useTestServer } from './helpers/server.js';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/**
 * Routes the server serves that the REST reference leaves out, on purpose: GraphQL has its own
 * schema (schema.graphql, GraphiQL at GET /graphql), the health and metrics probes are for
 * operators and orchestrators, and /docs and /openapi.json are the reference itself. Any other
 * route must be described (docs/api.md says how).
 */
const NOT_IN_REFERENCE = [
  /^\/graphql(\/stream)?$/,
  /^\/healthz$/,
  /^\/readyz$/,
  /^\/metrics$/,
  /^\/docs(\/|$)/,
  /^\/openapi\.json$/,
  // The web UI's page and assets (docs/ui.md), not API.
  /^\/$/,
  /^\/login$/,
  /^\/set-password$/,
  /^\/p\/\*$/,
  /^\/assets\/\*$/,
];

type Json = any;
const server = useTestServer();
let endpoint: FakeEndpoint;
let doc: Json;
let ajv: Ajv2020;

beforeAll(async () => {
  endpoint = await startEndpoint(() => ({ body: { message: 'Paris', cost: 0.001, latency: 0.01 } }));
  const response = await server.request('GET', '/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  doc = response.body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
});
afterAll(async () => {
  await endpoint?.close();
});

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/** A response object, its `$ref` to components resolved. */
function resolveResponse(response: Json): Json {
  const ref = response?.$ref as string | undefined;
  return ref ? doc.components.responses[ref.split('/').pop()!] : response;
}

const compiled = new Map<unknown, ValidateFunction>();
/** A validator for a schema of the document, its `#/components/...` references resolvable. */
function validator(schema: Json): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile({ ...schema, components: doc.components });
    compiled.set(schema, validate);
  }
  return validate;
}

const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('the document', () => {
  it('is a valid OpenAPI 3.1 document, also served under /api', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect((await server.request('GET', '/api/openapi.json')).body).toEqual(doc);
    const result = await validateOpenApi(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    // The aliases are one operation each, said once.
    expect(doc.info.description).toContain('/api');
    expect(Object.keys(doc.paths).some((path) => path.startsWith('/api/'))).toBe(false);
  });

  it('describes every route the server serves, apart from the listed exclusions', () => {
    const documented = new Set(operations().map(({ method, path }) => `${method} ${path}`));
    const served = server.assay.routes
      .filter(({ method }) => METHODS.includes(method.toLowerCase()))
      .filter(({ url }) => !NOT_IN_REFERENCE.some((pattern) => pattern.test(url)))
      .map(({ method, url }) => `${method} ${toOpenApiPath(url)}`);
    expect(served.length).toBeGreaterThan(50);
    expect(served.filter((route) => !documented.has(route))).toEqual([]);
    // …and nothing that is not served.
    expect([...documented].filter((route) => !served.includes(route))).toEqual([]);
    expect(documented.has('POST /v1/traces')).toBe(true);
    expect(documented.has('POST /otlp/v1/traces')).toBe(true);
  });

  it('shares one 422 body and one error body, in FastAPI shape', () => {
    const unprocessable = doc.components.responses.UnprocessableEntity.content['application/json'].schema;
    expect(unprocessable).toEqual({ $ref: '#/components/schemas/HTTPValidationError' });
    expect(validator(unprocessable)({ detail: [{ loc: ['body', 'app_name'], msg: 'Field required', type: 'missing' }] })).toBe(true);
    expect(validator(unprocessable)({ detail: 'no' })).toBe(false);
    const notFound = doc.components.responses.NotFound.content['application/json'].schema;
    expect(validator(notFound)({ detail: 'App with id x not found' })).toBe(true);
  });

  it('promises the 422 on every operation that takes input, and each promise holds', async () => {
    for (const { method, path, op } of operations()) {
      // A body, a query, or a path parameter that is more than any string (an integer, an enum).
      const takesInput =
        Boolean(op.requestBody) ||
        (op.parameters ?? []).some((parameter: Json) => parameter.in === 'query' || (parameter.in === 'path' && Object.keys(parameter.schema).length > 1));
      if (op.tags[0] === 'otlp') {
        // OTLP answers google.rpc.Status, not FastAPI's 422 (an unreadable body is a 400).
        expect(op.responses['400']).toBeDefined();
        continue;
      }
      if (op.tags[0] === 'langfuse') {
        // Langfuse's API answers a fault in its own body with a 400 (docs/langfuse.md#errors).
        expect(op.responses['422'], `${method} ${path}`).toBeUndefined();
        expect(op.responses['400'], `${method} ${path}`).toBeDefined();
        const response = await server.request(method, path.replace(/\{[^}]+\}/g, 'x'), method === 'GET' ? undefined : '1', {
          'content-type': 'application/json',
        });
        expect(op.responses[String(response.status)], `${method} ${path} answered ${response.status}: ${response.text}`).toBeDefined();
        if (op.requestBody) expect(response.status, `${method} ${path}`).toBe(400);
        continue;
      }
      expect(Boolean(op.responses['422']), `${method} ${path}`).toBe(takesInput);
      if (op.responses['422']) expect(op.responses['422']).toEqual({ $ref: '#/components/responses/UnprocessableEntity' });
      // A body that is no object, and path parameters that are no ids: whatever validates input
      // says so with a 422, which must be promised; a route with a body must answer it.
      const url = path.replace(/\{[^}]+\}/g, 'x');
      const response = await server.request(method, url, method === 'GET' ? undefined : '1', { 'content-type': 'application/json' });
      // Whatever it answers (a 404 for the unknown ids, say) is documented.
      expect(op.responses[String(response.status)], `${method} ${path} answered ${response.status}: ${response.text}`).toBeDefined();
      if (response.status === 422) {
        expect(validator(resolveResponse(op.responses['422']).content['application/json'].schema)(response.body)).toBe(true);
      }
      // A config's settings are checked against its evaluator's template, so the config is read first.
      const readsFirst = `${method} ${path}` === 'PUT /evaluators/configs/{config_id}';
      if (op.requestBody) expect(response.status, `${method} ${path}`).toBe(readsFirst ? 404 : 422);
    }
  });

  it('gives request examples for the create operations, each valid against its body schema', () => {
    const creates = [
      '/apps',
      '/apps/{app_id}/variants',
      '/testsets',
      '/testsets/upload',
      '/evaluators/configs',
      '/evaluations',
      '/human-evaluations',
      '/observability/trace',
    ];
    for (const path of creates) {
      const content = doc.paths[path].post.requestBody.content;
      const [mediaType] = Object.values<Json>(content);
      const examples = Object.entries(mediaType.examples ?? {});
      expect(examples.length, path).toBeGreaterThan(0);
      for (const [name, example] of examples) {
        const validate = validator(mediaType.schema);
        expect(validate((example as Json).value), `${path} example ${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
    }
    expect(Object.keys(doc.paths['/testsets/upload'].post.requestBody.content)).toEqual(['multipart/form-data']);
    expect(Object.keys(doc.paths['/v1/traces'].post.requestBody.content).sort()).toEqual(['application/json', 'application/x-protobuf']);
  });
});

describe('real answers match the document', () => {
  const covered = new Set<string>();

  /** The documented operation a concrete request is for (literal segments win over parameters). */
  function operationFor(method: string, url: string): { key: string; op: Json } {
    const path = url.split('?')[0];
    const candidates = Object.keys(doc.paths)
      .filter((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path) && doc.paths[template][method.toLowerCase()])
      .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
    const template = candidates[0];
    if (!template) throw new Error(`${method} ${url} is not documented`);
    return { key: `${method} ${template}`, op: doc.paths[template][method.toLowerCase()] };
  }

  /** Sends the request, checks its status is documented for the operation and its body matches. */
  async function call(method: string, url: string, body?: unknown, expected = 200, headers: Record<string, string> = {}): Promise<Json> {
    const { key, op } = operationFor(method, url);
    const response = await server.request(method, url, body, headers);
    expect(response.status, `${method} ${url}: ${response.text}`).toBe(expected);
    const documented = resolveResponse(op.responses[String(response.status)]);
    expect(documented, `${key} answered ${response.status}, which it does not document`).toBeDefined();
    const schema = documented.content?.['application/json']?.schema;
    if (response.status === 204) expect(response.text).toBe('');
    else {
      expect(schema, `${key} ${response.status} has no JSON schema`).toBeDefined();
      const validate = validator(schema);
      expect(validate(response.body), `${key} ${response.status}: ${ajv.errorsText(validate.errors)}\n${response.text.slice(0, 2000)}`).toBe(true);
    }
    covered.add(key);
    return response.body;
  }

  it('through apps, test sets, evaluators, evaluations, human evaluations, traces and prices', async () => {
    // Apps and variants.
    const app = await call('POST', '/apps', { app_name: 'capitals' });
    await call('POST', '/apps', { app_name: 'capitals' }, 409);
    await call('POST', '/apps', { app_name: '' }, 422);
    await call('GET', '/apps?app_name=capitals');
    await call('GET', `/apps/${app.app_id}`);
    await call('GET', '/apps/unknown', undefined, 404);
    await call('PATCH', `/apps/${app.app_id}`, { app_name: 'capitals-2' });
    const variant = await call('POST', `/apps/${app.app_id}/variants`, { variant_name: 'v1', kind: 'endpoint', uri: endpoint.url });
    const prompt = await call('POST', `/apps/${app.app_id}/variants`, {
      variant_name: 'gpt',
      kind: 'prompt',
      parameters: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Capital of {country}?' }], temperature: 0 },
    });
    await call('GET', `/apps/${app.app_id}/variants`);
    await call('GET', `/variants/${variant.variant_id}`);
    await call('PUT', `/variants/${variant.variant_id}/parameters`, { parameters: { temperature: 0 }, uri: endpoint.url });
    await call('GET', `/variants/${variant.variant_id}/revisions`);
    await call('GET', `/variants/${variant.variant_id}/revisions/1`);
    await call('GET', `/variants/${variant.variant_id}/revisions/one`, undefined, 422);
    await call('DELETE', `/variants/${prompt.variant_id}`, undefined, 204);

    // Test sets.
    const rows = [
      { country: 'France', correct_answer: 'Paris' },
      { country: 'Peru', correct_answer: 'Lima' },
    ];
    const testset = await call('POST', '/testsets', { name: 'capitals', csvdata: rows, app_id: app.app_id });
    const form = new FormData();
    form.append('file', new Blob(['country,correct_answer\nChile,Santiago\n']), 'capitals.csv');
    form.append('testset_name', 'uploaded');
    const uploaded = await call('POST', '/testsets/upload', form);
    await call('GET', '/testsets');
    await call('GET', `/testsets/${testset.id}`);
    await call('PUT', `/testsets/${testset.id}`, { name: 'capitals', csvdata: rows });
    const added = await call('POST', `/testsets/${testset.id}/rows`, { rows: [{ country: 'Chile', correct_answer: 'Santiago' }] });
    const revised = await call('GET', `/testsets/${testset.id}/revisions/${added.number}`);
    await call('PATCH', `/testsets/${testset.id}/rows`, {
      rows: [{ row_id: revised.rows[2].id, data: { country: 'Chile', correct_answer: 'Santiago de Chile' } }],
    });
    await call('DELETE', `/testsets/${testset.id}/rows`, { row_ids: [revised.rows[2].id] }, 404);
    await call('DELETE', `/testsets/${testset.id}/rows`, { row_ids: [revised.rows[0].id] });
    await call('PATCH', `/testsets/${testset.id}/columns`, { rename: { correct_answer: 'capital' } });
    await call('PATCH', `/testsets/${testset.id}/columns`, { rename: { capital: 'correct_answer' } });
    await call('PATCH', `/testsets/${testset.id}/columns`, { remove: ['nope'] }, 422);
    await call('GET', `/testsets/${testset.id}/revisions`);
    await call('GET', `/testsets/${testset.id}/revisions/99`, undefined, 404);
    await call('DELETE', `/testsets/${uploaded.id}`, undefined, 204);
    await call('DELETE', '/testsets', { testset_ids: ['unknown'] }, 404);

    // Evaluators and configs.
    await call('GET', '/evaluators');
    await call('GET', '/evaluators/auto_exact_match');
    await call('GET', '/evaluators/nope', undefined, 404);
    const config = await call('POST', '/evaluators/configs', { app_id: app.app_id, name: 'exact', evaluator_key: 'auto_exact_match', settings_values: {} });
    await call('GET', `/evaluators/configs?app_id=${app.app_id}`);
    await call('GET', `/evaluators/configs/${config.id}`);
    await call('PUT', `/evaluators/configs/${config.id}`, { name: 'exact match' });

    // An automatic evaluation, run to its end.
    const [evaluation] = await call('POST', '/evaluations', {
      app_id: app.app_id,
      variant_ids: [variant.variant_id],
      evaluators_configs: [config.id],
      testset_id: testset.id,
      rate_limit: { batch_size: 10, max_retries: 0, retry_delay: 0, delay_between_batches: 0 },
    });
    await waitForStatus(server, evaluation.id);
    await call('GET', '/evaluations');
    await call('GET', `/evaluations/${evaluation.id}`);
    await call('GET', `/evaluations/${evaluation.id}/status`);
    await call('GET', `/evaluations/${evaluation.id}/results`);
    await call('GET', `/evaluations/${evaluation.id}/evaluator_cost`);
    const scenarios = await call('GET', `/evaluations/${evaluation.id}/evaluation_scenarios`);
    expect(scenarios).toHaveLength(2);
    await call('GET', `/evaluations/evaluation_scenarios/comparison-results?evaluations_ids=${evaluation.id}`);
    await call('POST', `/evaluations/${evaluation.id}/cancel`, undefined, 409);
    await call('DELETE', `/evaluators/configs/${config.id}`, undefined, 409);

    // A human evaluation: outputs generated, then judged.
    const human = await call('POST', '/human-evaluations', {
      app_id: app.app_id,
      variant_ids: [variant.variant_id],
      evaluation_type: 'single_model_test',
      inputs: ['country'],
      testset_id: testset.id,
    });
    await waitForHumanStatus(server, human.id, ['EVALUATION_FINISHED', 'EVALUATION_FINISHED_WITH_ERRORS']);
    await call('GET', '/human-evaluations');
    await call('GET', `/human-evaluations/${human.id}`);
    const humanScenarios = await call('GET', `/human-evaluations/${human.id}/evaluation_scenarios`);
    await call('PUT', `/human-evaluations/${human.id}/evaluation_scenario/${humanScenarios[0].id}/single_model_test`, { score: 80, judge: 'ana' });
    await call('PUT', `/human-evaluations/${human.id}/evaluation_scenario/${humanScenarios[0].id}/nope`, { score: 80 }, 422);
    await call('GET', `/human-evaluations/${human.id}/results`);
    await call('PUT', `/human-evaluations/${human.id}`, { status: 'EVALUATION_FINISHED' });
    await call('DELETE', `/human-evaluations/${human.id}`, undefined, 204);
    await call('DELETE', '/human-evaluations', { evaluations_ids: [human.id] }, 404);

    // Traces: the JSON ingest, OTLP/JSON, reads and searches.
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    // The document's own example, so it is known to work.
    await call('POST', '/observability/trace', doc.paths['/observability/trace'].post.requestBody.content['application/json'].examples.agent.value);
    await call(
      'POST',
      `/testsets/${testset.id}/rows/from-spans`,
      doc.paths['/testsets/{testset_id}/rows/from-spans'].post.requestBody.content['application/json'].examples.traces.value,
    );
    await call('POST', `/testsets/${testset.id}/rows/from-spans`, { trace_ids: [traceId], mapping: { country: 'input' } }, 422);
    await call('POST', '/v1/traces', {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'docs' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '5bf92f3577b34da6a3ce929d0e0e4736',
                  spanId: '10f067aa0ba902b7',
                  name: 'otlp',
                  kind: 1,
                  startTimeUnixNano: '1795000000000000000',
                  endTimeUnixNano: '1795000001000000000',
                },
              ],
            },
          ],
        },
      ],
    });
    await call('POST', '/otlp/v1/traces', '{', 400);
    // Langfuse's path (served under /api like every route, so documented as /public/…).
    await call('POST', '/public/otel/v1/traces', { resourceSpans: [] });
    // OTLP logs beside each: a record of the span above, and one naming no span (partial success).
    const logged = await call('POST', '/v1/logs', {
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                { traceId: '5bf92f3577b34da6a3ce929d0e0e4736', spanId: '10f067aa0ba902b7', timeUnixNano: '1795000000500000000', body: { stringValue: 'log' } },
                { timeUnixNano: '1795000000500000000', body: { stringValue: 'no span' } },
              ],
            },
          ],
        },
      ],
    });
    expect(logged.partialSuccess.rejectedLogRecords).toBe('1');
    await call('POST', '/otlp/v1/logs', '{', 400);
    await call('POST', '/public/otel/v1/logs', { resourceLogs: [] });
    await call('GET', `/observability/traces/${traceId}`);
    await call('GET', '/observability/traces/ffffffffffffffffffffffffffffffff', undefined, 404);
    await call('DELETE', '/observability/traces/ffffffffffffffffffffffffffffffff', undefined, 404);
    await call('DELETE', '/observability/users/nobody', undefined, 404);
    await call('GET', '/observability/spans/00f067aa0ba902b8?type=span');
    await call('GET', '/observability/traces?limit=1');
    await call('GET', '/observability/traces?limit=none', undefined, 422);
    await call('GET', '/observability/spans?spankind=llm');
    await call('GET', '/observability/metrics?of=spans');

    // Sessions: the traces sharing a session id.
    await call('POST', '/observability/trace', {
      trace: 'tour-turn',
      spans: [
        { id: 'turn', name: 'turn', session_id: 'tour-session', start_time: '2026-11-22T10:00:00Z', end_time: '2026-11-22T10:00:01Z', inputs: { q: 'hi' } },
      ],
    });
    await call('POST', '/scores', { session_id: 'tour-session', name: 'resolved', value: true });
    await call('GET', '/sessions?limit=1&search=tour');
    await call('GET', '/sessions?started_after=never', undefined, 422);
    await call('GET', '/sessions/tour-session?limit=10');
    await call('GET', '/sessions/unknown', undefined, 404);

    // Prices.
    const price = await call('POST', '/observability/prices', { model: 'my-model', input: 1, output: 2, effective_from: '2024-07-18' });
    await call('GET', '/observability/prices?source=user');
    await call('GET', '/observability/prices/resolve?model=my-model');
    await call('DELETE', `/observability/prices/${price.id}`, undefined, 204);

    // Scores and score configs.
    const scoreConfig = await call('POST', '/score-configs', { name: 'stars', data_type: 'NUMERIC', min_value: 1, max_value: 5 });
    await call('POST', '/score-configs', { name: 'tone', data_type: 'CATEGORICAL', categories: [{ label: 'kind', value: 1 }] });
    await call('POST', '/score-configs', { name: 'x', data_type: 'TEXT' }, 422);
    await call('GET', '/score-configs');
    await call('GET', `/score-configs/${scoreConfig.id}`);
    await call('GET', '/score-configs/unknown', undefined, 404);
    await call('PATCH', `/score-configs/${scoreConfig.id}`, { description: 'one to five' });
    const score = await call('POST', '/scores', { id: 'tour-score', trace_id: 'tour', config_id: scoreConfig.id, value: 4, metadata: { by: 'tour' } });
    await call('POST', '/scores', [
      { trace_id: 'tour', span_id: 'tour-span', name: 'helpful', value: true },
      { session_id: 'tour-session', name: 'note', data_type: 'TEXT', value: 'short' },
    ]);
    await call('POST', '/scores', { id: 'tour-score', session_id: 'elsewhere', name: 'stars', value: 4 }, 409);
    await call('POST', '/scores', { trace_id: 'tour', config_id: scoreConfig.id, value: 9 }, 422);
    await call('GET', '/scores?trace_id=tour&limit=1');
    await call('GET', `/scores/${score.id}`);
    await call('DELETE', `/scores/${score.id}`, undefined, 204);
    await call('GET', `/scores/${score.id}`, undefined, 404);

    // Online evaluation rules, their jobs, stats, previews and backfills.
    const rule = await call('POST', '/evaluation-rules', {
      name: 'tour rule',
      evaluator_config_id: config.id,
      filter: { spankind: ['LLM'] },
      sampling_rate: 0.5,
    });
    await call('POST', '/evaluation-rules', { name: 'tour rule', evaluator_config_id: config.id }, 409);
    await call('POST', '/evaluation-rules', { name: 'bad', evaluator_config_id: config.id, sampling_rate: 0 }, 422);
    await call('GET', '/evaluation-rules');
    await call('GET', `/evaluation-rules/${rule.id}`);
    await call('GET', '/evaluation-rules/unknown', undefined, 404);
    await call('PATCH', `/evaluation-rules/${rule.id}`, { delay_seconds: 10 });
    await call('GET', `/evaluation-rules/${rule.id}/jobs?status=DONE&limit=5`);
    await call('GET', `/evaluation-rules/${rule.id}/stats`);
    await call('POST', '/evaluation-rules/preview', { rule: { name: 'unsaved', evaluator_config_id: config.id }, trace_id: traceId });
    await call('POST', `/evaluation-rules/${rule.id}/preview`, { trace_id: traceId });
    const backfill = await call('POST', `/evaluation-rules/${rule.id}/backfill`, {
      started_after: '2024-01-01T00:00:00Z',
      started_before: '2024-01-02T00:00:00Z',
    });
    await call('GET', `/evaluation-rules/${rule.id}/backfills/${backfill.id}`);
    await call('POST', `/evaluation-rules/${rule.id}/backfills/${backfill.id}/cancel`);
    await call('DELETE', `/evaluation-rules/${rule.id}`, undefined, 204);

    // Projects and API keys (auth is off here: the caller acts in the default project).
    const projects = await call('GET', '/projects');
    const own = projects.find((project: Json) => project.name === 'default');
    const created = await call('POST', '/projects', { name: 'tour' });
    await call('POST', '/projects', { name: 'tour' }, 409);
    await call('POST', '/projects', { name: '' }, 422);
    const key = await call('POST', `/projects/${own.id}/api-keys`, { name: 'ci', scopes: ['read'] });
    await call('POST', `/projects/${created.id}/api-keys`, { name: 'ci', scopes: ['read'] }, 404);
    await call('GET', `/projects/${own.id}/api-keys`);
    await call('GET', `/projects/${created.id}/api-keys`, undefined, 404);
    await call('PATCH', `/projects/${own.id}`, { retention_days: 30 });
    await call('PATCH', `/projects/${own.id}`, { retention_days: 0 }, 422);
    await call('PATCH', `/projects/${created.id}`, { retention_days: 30 }, 404);
    await call('DELETE', `/api-keys/${key.id}`, undefined, 204);
    await call('DELETE', `/api-keys/${key.id}`, undefined, 404);
    await call('GET', `/projects/${own.id}/audit-events?limit=1`);
    await call('GET', `/projects/${created.id}/audit-events`, undefined, 404);

    // Members, password links and sessions (with auth off, signing in still works: docs/access.md#sessions).
    const member = await call('POST', `/projects/${own.id}/members`, { email: 'ana@example.com', role: 'viewer' });
    await call('POST', `/projects/${own.id}/members`, { email: 'ana@example.com', role: 'admin' }, 409);
    await call('GET', `/projects/${own.id}/members`);
    await call('PATCH', `/projects/${own.id}/members/${member.user_id}`, { role: 'member' });
    await call('PATCH', `/projects/${own.id}/members/unknown`, { role: 'viewer' }, 404);
    const link = await call('POST', `/users/${member.user_id}/password-link`);
    await call('POST', '/users/unknown/password-link', undefined, 404);
    const token = new URL(link.url).hash.slice('#token='.length);
    await call('POST', '/auth/password', { token, password: 'a long passphrase' }, 204);
    await call('POST', '/auth/password', { token, password: 'a long passphrase' }, 422);
    await call('POST', '/auth/login', { email: 'ana@example.com', password: 'not the passphrase' }, 401);
    await call('POST', '/auth/login', { email: 'ana@example.com', password: 'a long passphrase' });
    const signedIn = await server.request('POST', '/auth/login', { email: 'ana@example.com', password: 'a long passphrase' });
    const cookie = /^assay_session=[^;]+/.exec(signedIn.headers.get('set-cookie')!)![0];
    await call('GET', '/auth/me', undefined, 200, { cookie });
    await call('POST', '/auth/logout', undefined, 204, { cookie });
    await call('GET', '/auth/me', undefined, 401, { cookie });
    await call('DELETE', `/projects/${own.id}/members/${member.user_id}`, undefined, 204);
    await call('DELETE', `/projects/${own.id}/members/${member.user_id}`, undefined, 404);

    // Deletes last.
    await call('DELETE', '/evaluations', { evaluations_ids: [evaluation.id] }, 204);
    await call('DELETE', `/testsets/${testset.id}`, undefined, 204);
    await call('DELETE', `/apps/${app.app_id}`, undefined, 204);
  }, 30_000);

  it("through Langfuse's scores, score configs and sessions", async () => {
    await call('POST', '/observability/trace', {
      trace: 'langfuse-tour',
      spans: [{ id: 'root', name: 'chat', session_id: 'tour-session', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z' }],
    });
    const event = {
      id: 'event-1',
      type: 'score-create',
      timestamp: '2026-01-01T00:00:02Z',
      body: { id: 'tour-score', traceId: 'langfuse-tour', name: 'accuracy', value: 0.9 },
    };
    await call('POST', '/public/ingestion', { batch: [event, { id: 'event-2', type: 'trace-create', timestamp: '2026-01-01T00:00:02Z', body: {} }] }, 207);
    await call('POST', '/public/ingestion', { events: [] }, 400);
    const config = await call('POST', '/public/score-configs', { name: 'stars', dataType: 'NUMERIC', minValue: 1, maxValue: 5 });
    await call('POST', '/public/score-configs', { name: 'stars', dataType: 'LIST' }, 400);
    await call('GET', '/public/score-configs');
    await call('GET', `/public/score-configs/${config.id}`);
    await call('GET', '/public/score-configs/unknown', undefined, 404);
    await call('PATCH', `/public/score-configs/${config.id}`, { description: 'one to five' });
    const score = await call('POST', '/public/scores', { traceId: 'langfuse-tour', name: 'stars', value: 4, configId: config.id });
    await call('POST', '/public/scores', { traceId: 'langfuse-tour', name: 'stars', value: 9, configId: config.id }, 400);
    await call('GET', '/public/v2/scores?traceId=langfuse-tour');
    await call('GET', '/public/scores?limit=1');
    await call('GET', '/public/v3/scores?fields=details,subject,annotation');
    await call('GET', '/public/v3/scores?limit=1000', undefined, 400);
    await call('GET', `/public/v2/scores/${score.id}`);
    await call('GET', `/public/scores/${score.id}`);
    await call('DELETE', `/public/scores/${score.id}`);
    await call('DELETE', `/public/scores/${score.id}`, undefined, 404);
    await call('GET', '/public/sessions');
    await call('GET', '/public/sessions/tour-session');
    await call('GET', '/public/sessions/nobody', undefined, 404);
    // Assay's own reads of the same session.
    await call('GET', '/sessions');
    await call('GET', '/sessions/tour-session');

    // Annotation queues, Assay's and Langfuse's (docs/annotation-queues.md).
    const correct = await call('POST', '/score-configs', { name: 'tour-correct', data_type: 'BOOLEAN' });
    const queue = await call('POST', '/annotation-queues', { name: 'tour', target_type: 'trace', score_config_ids: [correct.id], annotators_per_item: 1 });
    await call('POST', '/annotation-queues', { name: 'tour', target_type: 'tweet', score_config_ids: [correct.id] }, 422);
    await call('GET', '/annotation-queues');
    await call('GET', `/annotation-queues/${queue.id}`);
    await call('PATCH', `/annotation-queues/${queue.id}`, { instructions: 'Is it right?' });
    await call('POST', `/annotation-queues/${queue.id}/items`, { filter: { name_contains: 'chat' }, limit: 1 });
    const { items } = await call('POST', `/annotation-queues/${queue.id}/items`, { items: [{ target_id: 'tour-a' }, { target_id: 'tour-b' }] });
    await call('GET', `/annotation-queues/${queue.id}/items?status=pending`);
    await call('GET', `/annotation-queues/${queue.id}/items/${items[0].id}`);
    const { item } = await call('POST', `/annotation-queues/${queue.id}/next`);
    await call('POST', `/annotation-queues/${queue.id}/items/${item.id}/release`);
    await call('POST', `/annotation-queues/${queue.id}/items/${item.id}/complete`, { scores: [{ config_id: correct.id, value: true }] });
    await call('POST', `/annotation-queues/${queue.id}/items/${item.id}/complete`, { scores: [] }, 409);
    await call('GET', `/annotation-queues/${queue.id}/progress`);
    await call('GET', `/annotation-queues/${queue.id}/agreement`);
    await call('POST', `/annotation-queues/${queue.id}/export`, { testset_name: 'tour export', mapping: { input: '$.input' }, preview: true });
    await call('POST', `/annotation-queues/${queue.id}/export`, { testset_name: 'tour export', mapping: {} }, 422);
    await call('DELETE', `/annotation-queues/${queue.id}/items/${items[1].id}`, undefined, 204);
    const langfuseQueue = await call('POST', '/public/annotation-queues', { name: 'tour-langfuse', scoreConfigIds: [correct.id] });
    await call('GET', '/public/annotation-queues');
    await call('GET', `/public/annotation-queues/${langfuseQueue.id}`);
    const langfuseItem = await call('POST', `/public/annotation-queues/${langfuseQueue.id}/items`, { objectId: 'tour-a', objectType: 'TRACE' });
    await call('POST', `/public/annotation-queues/${langfuseQueue.id}/items`, { objectId: 'tour-a', objectType: 'SESSION' }, 400);
    await call('GET', `/public/annotation-queues/${langfuseQueue.id}/items`);
    await call('GET', `/public/annotation-queues/${langfuseQueue.id}/items/${langfuseItem.id}`);
    await call('PATCH', `/public/annotation-queues/${langfuseQueue.id}/items/${langfuseItem.id}`, { status: 'COMPLETED' });
    await call('POST', `/public/annotation-queues/${langfuseQueue.id}/assignments`, { userId: 'nobody' }, 400);
    await call('DELETE', `/public/annotation-queues/${langfuseQueue.id}/assignments`, { userId: 'nobody' });
    await call('DELETE', `/public/annotation-queues/${langfuseQueue.id}/items/${langfuseItem.id}`);
    await call('DELETE', `/annotation-queues/${queue.id}`, undefined, 204);
    await call('GET', `/annotation-queues/${queue.id}`, undefined, 404);
  });

  it("through Langfuse's datasets over test sets", async () => {
    await call('POST', '/public/v2/datasets', { name: 'tour-dataset', description: 'the tour', metadata: { by: 'tour' } });
    await call('POST', '/public/v2/datasets', { description: 'no name' }, 400);
    await call('GET', '/public/v2/datasets?limit=2');
    await call('GET', '/public/v2/datasets/tour-dataset');
    await call('GET', '/public/v2/datasets/nope', undefined, 404);
    const item = await call('POST', '/public/dataset-items', {
      datasetName: 'tour-dataset',
      input: { question: 'Why?' },
      expectedOutput: 'Because.',
      sourceTraceId: 'tour-a',
    });
    await call('POST', '/public/dataset-items', { datasetName: 'tour-dataset', id: item.id, status: 'ARCHIVED' });
    await call('POST', '/public/dataset-items', { datasetName: 'tour-dataset', sourceObservationId: 'span' }, 400);
    await call('GET', '/public/datasets/tour-dataset');
    await call('GET', '/public/dataset-items?datasetName=tour-dataset&sourceTraceId=tour-a');
    await call('GET', `/public/dataset-items/${item.id}`);
    await call('DELETE', `/public/dataset-items/${item.id}`);
    await call('DELETE', `/public/dataset-items/${item.id}`, undefined, 404);
  });

  it("through runs recorded from code and Langfuse's dataset runs", async () => {
    const testset = await call('POST', '/testsets', { name: 'tour-runs', csvdata: [{ question: 'Why?', correct_answer: 'Because.' }] });
    const [row] = (await call('GET', `/testsets/${testset.id}/revisions/1`)).rows;
    const run = await call('POST', '/evaluations/external', { testset_id: testset.id, name: 'tour-run', metadata: { by: 'tour' } });
    await call('POST', '/evaluations/external', { testset_id: testset.id, name: 'tour-run' }, 409);
    await call('POST', `/evaluations/${run.id}/cases`, {
      cases: [{ testset_row_id: row.id, output: 'Because.', results: [{ name: 'tour-exact', value: true }] }],
    });
    await call('POST', `/evaluations/${run.id}/cases`, { cases: [{ output: 'x' }] }, 422);
    await call('POST', `/evaluations/${run.id}/finish`, {});
    await call('POST', `/evaluations/${run.id}/finish`, {}, 409);
    await call('POST', '/public/dataset-run-items', { runName: 'tour-lf-run', datasetItemId: row.id, traceId: 'tour-a' });
    await call('POST', '/public/dataset-run-items', { runName: 'tour-lf-run', datasetItemId: row.id }, 400);
    await call('GET', '/public/datasets/tour-runs/runs');
    await call('GET', '/public/datasets/tour-runs/runs/tour-lf-run');
    await call('GET', `/public/dataset-run-items?datasetId=${testset.id}&runName=tour-lf-run`);
    await call('GET', '/public/projects');
    await call('DELETE', '/public/datasets/tour-runs/runs/tour-lf-run');
    await call('DELETE', '/public/datasets/tour-runs/runs/tour-lf-run', undefined, 404);
  });

  it("through deployments and Langfuse's prompts", async () => {
    await call('POST', '/public/v2/prompts', { name: 'tour-prompt', prompt: 'Hi {{name}}', config: { model: 'm' }, labels: ['production'] });
    await call('POST', '/public/v2/prompts', { name: 'tour-prompt', prompt: 'Hi {{name}}!', config: { model: 'm' } });
    await call('POST', '/public/v2/prompts', { name: 'tour-prompt', type: 'chat', prompt: 'not a list' }, 400);
    await call('GET', '/public/v2/prompts/tour-prompt');
    await call('GET', '/public/v2/prompts/tour-prompt?version=9', undefined, 404);
    await call('PATCH', '/public/v2/prompts/tour-prompt/versions/2', { newLabels: ['staging'] });
    await call('GET', '/public/v2/prompts');
    const [app] = await call('GET', '/apps?app_name=tour-prompt');
    const base = `/apps/${app.app_id}/environments`;
    await call('GET', base);
    await call('POST', base, { name: 'qa' });
    await call('POST', base, { name: 'qa' }, 409);
    await call('GET', `${base}/qa`);
    const [variant] = await call('GET', `/apps/${app.app_id}/variants`);
    await call('POST', `${base}/qa/deploy`, { variant_id: variant.variant_id, revision: 1 });
    await call('POST', `${base}/qa/deploy`, { variant_id: variant.variant_id, revision: 9 }, 404);
    await call('GET', `${base}/qa/deployments`);
    const trace = { trace: 'tour-prompt-trace', spans: [{ id: 'gen', name: 'gen', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z' }] };
    await call('POST', '/observability/trace', { ...trace, spans: [{ ...trace.spans[0], variant_name: 'tour-prompt', revision: 1, environment: 'qa' }] });
    await call('GET', `/variants/${variant.variant_id}/revisions/1/traces?environment=qa&limit=5`);
    await call('GET', `/variants/${variant.variant_id}/revisions/1/metrics?environment=qa`);
    await call('GET', `/variants/${variant.variant_id}/revisions/9/metrics`, undefined, 404);
    await call('GET', `${base}/qa/config`);
    await call('GET', `${base}/development/config`, undefined, 404);
    await call('DELETE', `${base}/qa`, undefined, 204);
    await call('DELETE', `${base}/production`, undefined, 409);
  });

  it('covered every documented operation', () => {
    const all = operations().map(({ method, path }) => `${method} ${path}`);
    expect(all.filter((key) => !covered.has(key))).toEqual([]);
  });
});

describe('/docs', () => {
  /** Every URL the page refers to: src and href attributes, and url()/@import in inline styles. */
  function references(html: string): string[] {
    const found: string[] = [];
    const visit = (node: Json) => {
      for (const attr of node.attrs ?? []) if (['src', 'href', 'srcset', 'poster', 'data'].includes(attr.name)) found.push(attr.value);
      if (node.nodeName === 'style') {
        const text = (node.childNodes ?? []).map((child: Json) => child.value ?? '').join('');
        for (const match of text.matchAll(/url\(\s*['"]?([^'")]+)|@import\s+['"]([^'"]+)/g)) found.push(match[1] ?? match[2]);
      }
      for (const child of node.childNodes ?? []) visit(child);
      if (node.content) visit(node.content);
    };
    visit(parse(html));
    return found;
  }

  it.each(['/docs', '/docs/', '/api/docs'])('%s is a page whose every asset is same-origin and served', async (path) => {
    const response = await server.request('GET', path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const urls = references(response.text);
    expect(urls.length).toBeGreaterThanOrEqual(3);
    for (const reference of urls) {
      const url = new URL(reference, server.baseUrl + path);
      expect(url.origin, reference).toBe(server.baseUrl);
      const asset = await fetch(url);
      expect(asset.status, reference).toBe(200);
      if (url.pathname.endsWith('.css')) {
        const css = await asset.text();
        // Icons are data: URLs; nothing else may be fetched by the stylesheet.
        const external = [...css.matchAll(/url\(\s*['"]?([^'")]+)|@import\s+['"]([^'"]+)/g)].map((match) => match[1] ?? match[2]);
        expect(external.filter((target) => !target.startsWith('data:'))).toEqual([]);
      } else await asset.arrayBuffer();
    }
    const init = await (await fetch(`${server.baseUrl}/docs/init.js`)).text();
    expect(init).toContain('validatorUrl: null');
    expect(init).toContain('"/openapi.json"');
  });

  it('serves only the listed files', async () => {
    for (const path of ['/docs/package.json', '/docs/..%2Fpackage.json', '/docs/index.html']) {
      const response = await server.request('GET', path);
      expect(response.status, path).toBe(404);
      expect(response.body).toEqual({ detail: expect.any(String) });
    }
  });
});
