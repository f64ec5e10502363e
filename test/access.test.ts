// Access with auth on (docs/access.md), over real HTTP and gRPC: two projects, each with a key of
// every scope and one of each object. Every registered route (walked from `routes`, so a route
// missing from the table below fails), every GraphQL root field (walked from the schema), the
// subscription stream, OTLP/HTTP and gRPC are tried with no key, a bad key, each scope and the
// other project's ids; the other project is never shown or changed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as grpcTypes from '@grpc/grpc-js';
import { getNamedType, isCompositeType, isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, type GraphQLInputType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startEndpoint, type FakeEndpoint } from './helpers/endpoints.js';
import { FAST, createApp, createConfig, createEndpointVariant, createTestset, startEvaluation, waitForStatus, type Requester } from './helpers/evaluations.js';
import { createHumanEvaluation, waitForHumanStatus } from './helpers/human-evaluations.js';
import { useTestServer, onPostgres, startServer, type TestResponse, type TestServer } from './helpers/server.js';
import { schema } from '../src/graphql/schema.js';
import { ExportLogsServiceRequest, ExportTraceServiceRequest, RetryInfo, RpcStatus } from '../src/observability/ingestion/otlp/messages.js';
import { requestContext, scopes, type Scope } from '../src/shared/context.js';
import { upsertScores } from '../src/scores/operations.js';
import { KeyHasher } from '../src/auth/keys/tokens.js';
import { webDist } from '../src/shared/http/web-ui.js';

const INIT_KEY = 'init-key-for-tests-0123456789abcdef';
type Project = 'A' | 'B';
type KeySet = Record<Scope | 'all', string> & { readId: string };

let grpcPort: number;
let endpoint: FakeEndpoint;
// The test endpoint is on loopback, which auth on refuses to call unless listed (docs/access.md#outbound-calls).
const server = useTestServer(async () => {
  grpcPort = await freePort();
  return { ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: INIT_KEY, OTLP_GRPC_PORT: String(grpcPort), ASSAY_OUTBOUND_ALLOW: '127.0.0.1' };
});
const keys = {} as Record<Project, KeySet>;
const fixtures = {} as Record<Project, Record<string, string>>;
const projectIds = {} as Record<Project, string>;
type Role = 'viewer' | 'member' | 'admin';
/** Session cookies of a user of each role in project A (docs/access.md#roles). */
const sessions = {} as Record<Role, string>;
const roleScopes: Record<Role, readonly Scope[]> = { viewer: ['read'], member: ['read', 'write', 'ingest'], admin: scopes };

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
/** A Requester acting with `key`, for the fixture helpers. */
const as = (key: string): Requester => ({ request: (method, path, body, headers = {}) => server.request(method, path, body, { ...bearer(key), ...headers }) });

async function ok(response: Promise<TestResponse>): Promise<any> {
  const answer = await response;
  if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${answer.text}`);
  return answer.body;
}

/** One object of every kind in a project, made with its all-scopes key. */
async function makeFixtures(project: Project): Promise<Record<string, string>> {
  const client = as(keys[project].all);
  const app = await createApp(client, `app-${project}`);
  const variant = await createEndpointVariant(client, app, endpoint.url);
  const testset = await createTestset(client, [{ country: 'France', correct_answer: 'Paris' }], `testset-${project}`);
  const config = await createConfig(client, app, 'auto_exact_match');
  const evaluation = await startEvaluation(client, { app_id: app, variant_ids: [variant.variant_id], evaluators_configs: [config.id], testset_id: testset.id });
  await waitForStatus(client, evaluation.id);
  const human = await createHumanEvaluation(client, {
    app_id: app,
    variant_ids: [variant.variant_id],
    evaluation_type: 'single_model_test',
    inputs: ['country'],
    testset_id: testset.id,
  });
  await waitForHumanStatus(client, human.id, ['EVALUATION_STARTED', 'EVALUATION_FINISHED', 'EVALUATION_FAILED']);
  const scenarios = await ok(client.request('GET', `/human-evaluations/${human.id}/evaluation_scenarios`));
  const trace = project === 'A' ? 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' : 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
  const span = project === 'A' ? 'aaaaaaaaaaaaaaaa' : 'bbbbbbbbbbbbbbbb';
  const session = `session-${span}`;
  await ok(
    client.request('POST', '/observability/trace', {
      trace,
      spans: [{ id: span, name: 'root', spankind: 'LLM', session_id: session, start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z' }],
    }),
  );
  const price = await ok(client.request('POST', '/observability/prices', { model: `model-${project}`, input: 1, output: 2 }));
  const member = await ok(client.request('POST', `/projects/${projectIds[project]}/members`, { email: `member-${project}@example.com`, role: 'viewer' }));
  const scoreConfig = await ok(client.request('POST', '/score-configs', { name: `quality-${project}`, data_type: 'NUMERIC', min_value: 0, max_value: 1 }));
  const score = await ok(client.request('POST', '/scores', { trace_id: trace, name: `quality-${project}`, value: 1, config_id: scoreConfig.id }));
  await ok(client.request('POST', `/apps/${app}/environments/production/deploy`, { variant_id: variant.variant_id }));
  const prompt = `prompt-${project}`;
  const promptKey = { authorization: `Basic ${Buffer.from(`pk:${keys[project].all}`).toString('base64')}` };
  await ok(
    server.request('POST', '/api/public/v2/prompts', { name: prompt, prompt: 'Hi {{name}}', config: { model: 'm' }, labels: ['production'] }, promptKey),
  );
  // A run recorded from code (docs/experiments.md), which Langfuse's routes name by test set and name.
  const run = await ok(client.request('POST', '/evaluations/external', { testset_id: testset.id, name: `run-${project}` }));
  const queue = await ok(client.request('POST', '/annotation-queues', { name: `queue-${project}`, target_type: 'trace', score_config_ids: [scoreConfig.id] }));
  const items = await ok(client.request('POST', `/annotation-queues/${queue.id}/items`, { target_id: trace }));
  const rule = await ok(client.request('POST', '/evaluation-rules', { name: `rule-${project}`, evaluator_config_id: config.id, enabled: false }));
  const backfill = await ok(
    client.request('POST', `/evaluation-rules/${rule.id}/backfill`, { started_after: '2025-01-01T00:00:00Z', started_before: '2025-01-02T00:00:00Z' }),
  );
  return {
    app_id: app,
    variant_id: variant.variant_id,
    testset_id: testset.id,
    testset_row_id: (await ok(client.request('GET', `/testsets/${testset.id}/revisions/1`))).rows[0].id,
    // Langfuse's datasets are the test sets by name, their items the cases by id (a first version's id is its case's).
    dataset_name: `testset-${project}`,
    run_name: run.name,
    config_id: config.id,
    evaluation_id: evaluation.id,
    human_evaluation_id: human.id,
    scenario_id: scenarios[0].id,
    trace_id: trace,
    span_id: span,
    session_id: session,
    price_id: price.id,
    api_key_id: keys[project].readId,
    user_id: member.user_id,
    score_id: score.id,
    score_config_id: scoreConfig.id,
    prompt_name: prompt,
    queue_id: queue.id,
    item_id: items.items[0].id,
    rule_id: rule.id,
    backfill_id: backfill.id,
  };
}

beforeAll(async () => {
  endpoint = await startEndpoint(() => ({ body: { message: 'Paris', cost: 0.001, latency: 0.01 } }));
  const [defaultProject] = await ok(server.request('GET', '/projects', undefined, bearer(INIT_KEY)));
  const created = await ok(server.request('POST', '/projects', { name: 'b' }, bearer(INIT_KEY)));
  Object.assign(projectIds, { A: defaultProject.id, B: created.id });
  const all: Record<Project, string> = { A: INIT_KEY, B: created.api_key.key };
  for (const project of ['A', 'B'] as const) {
    const set = { all: all[project] } as KeySet;
    for (const scope of scopes) {
      const key = await ok(server.request('POST', `/projects/${projectIds[project]}/api-keys`, { name: scope, scopes: [scope] }, bearer(all[project])));
      set[scope] = key.key;
      if (scope === 'read') set.readId = key.id;
    }
    keys[project] = set;
  }
  for (const project of ['A', 'B'] as const) fixtures[project] = { ...(await makeFixtures(project)), project_id: projectIds[project] };
  for (const role of ['viewer', 'member', 'admin'] as const) sessions[role] = await signedIn(role);
}, 60_000);

/** A user of `role` in project A, with a password set through a link, signed in: their cookie. */
async function signedIn(role: Role): Promise<string> {
  const email = `${role}@example.com`;
  const password = 'a password long enough';
  const added = await ok(server.request('POST', `/projects/${projectIds.A}/members`, { email, role }, bearer(keys.A.admin)));
  const link = await ok(server.request('POST', `/users/${added.user_id}/password-link`, undefined, bearer(keys.A.admin)));
  const token = new URL(link.url).hash.replace('#token=', '');
  expect((await server.request('POST', '/auth/password', { token, password })).status).toBe(204);
  const login = await server.request('POST', '/auth/login', { email, password });
  expect(login.status).toBe(200);
  return /^assay_session=[^;]+/.exec(login.headers.get('set-cookie')!)![0];
}

afterAll(async () => {
  await endpoint?.close();
});

type Access = Scope | 'public' | 'graphql';

/** Whether holding `scopes` grants `needed`: `write` includes `feedback` (docs/scores.md#feedback-keys). */
const grants = (scopes: readonly Scope[], needed: Access) => scopes.includes(needed as Scope) || (needed === 'feedback' && scopes.includes('write'));

/**
 * What every route needs. A route missing here fails the walk: a new route must say who may call it.
 * GraphQL routes check scopes per operation (tested below).
 */
const expected: Record<string, Access> = {
  'GET /openapi.json': 'public',
  // The web UI: its page at / and at every screen's URL, and its built assets (docs/ui.md).
  'GET /': 'public',
  'GET /p/*': 'public',
  'GET /login': 'public',
  'GET /set-password': 'public',
  'GET /assets/*': 'public',
  'GET /docs': 'public',
  'GET /docs/init.js': 'public',
  'GET /docs/:file': 'public',
  'GET /healthz': 'public',
  'GET /readyz': 'public',
  'GET /metrics': 'read',
  'GET /graphql': 'graphql',
  'POST /graphql': 'graphql',
  'OPTIONS /graphql': 'graphql',
  'GET /graphql/stream': 'graphql',
  'POST /graphql/stream': 'graphql',
  'PUT /graphql/stream': 'graphql',
  'DELETE /graphql/stream': 'graphql',
  'OPTIONS /graphql/stream': 'graphql',
  'POST /apps': 'write',
  'GET /apps': 'read',
  'GET /apps/:app_id': 'read',
  'PATCH /apps/:app_id': 'write',
  'DELETE /apps/:app_id': 'write',
  'POST /apps/:app_id/variants': 'write',
  'GET /apps/:app_id/variants': 'read',
  'GET /variants/:variant_id': 'read',
  'PUT /variants/:variant_id/parameters': 'write',
  'GET /variants/:variant_id/revisions': 'read',
  'GET /variants/:variant_id/revisions/:revision': 'read',
  'GET /variants/:variant_id/revisions/:revision/traces': 'read',
  'GET /variants/:variant_id/revisions/:revision/metrics': 'read',
  'DELETE /variants/:variant_id': 'write',
  'GET /apps/:app_id/environments': 'read',
  'POST /apps/:app_id/environments': 'write',
  'GET /apps/:app_id/environments/:environment_name': 'read',
  'DELETE /apps/:app_id/environments/:environment_name': 'write',
  'POST /apps/:app_id/environments/:environment_name/deploy': 'write',
  'GET /apps/:app_id/environments/:environment_name/deployments': 'read',
  'GET /apps/:app_id/environments/:environment_name/config': 'read',
  'POST /testsets': 'write',
  'POST /testsets/upload': 'write',
  'GET /testsets': 'read',
  'DELETE /testsets': 'write',
  'GET /testsets/:testset_id': 'read',
  'PUT /testsets/:testset_id': 'write',
  'DELETE /testsets/:testset_id': 'write',
  'POST /testsets/:testset_id/rows': 'write',
  'PATCH /testsets/:testset_id/rows': 'write',
  'DELETE /testsets/:testset_id/rows': 'write',
  'PATCH /testsets/:testset_id/columns': 'write',
  'POST /testsets/:testset_id/rows/from-spans': 'write',
  'GET /testsets/:testset_id/revisions': 'read',
  'GET /testsets/:testset_id/revisions/:number': 'read',
  'GET /evaluators': 'read',
  'POST /evaluators/configs': 'write',
  'GET /evaluators/configs': 'read',
  'GET /evaluators/configs/:config_id': 'read',
  'PUT /evaluators/configs/:config_id': 'write',
  'DELETE /evaluators/configs/:config_id': 'write',
  'GET /evaluators/:evaluator_key': 'read',
  'GET /observability/prices': 'read',
  'GET /observability/prices/resolve': 'read',
  'POST /observability/prices': 'write',
  'DELETE /observability/prices/:price_id': 'write',
  'GET /observability/traces': 'read',
  'GET /observability/spans': 'read',
  'GET /observability/metrics': 'read',
  'POST /observability/trace': 'ingest',
  'GET /observability/traces/:trace_id': 'read',
  'DELETE /observability/traces/:trace_id': 'write',
  'DELETE /observability/users/:user_id': 'write',
  'GET /observability/spans/:span_id': 'read',
  'GET /sessions': 'read',
  'GET /sessions/:session_id': 'read',
  'POST /evaluations': 'write',
  'GET /evaluations': 'read',
  'DELETE /evaluations': 'write',
  'GET /evaluations/evaluation_scenarios/comparison-results': 'read',
  'GET /evaluations/:evaluation_id': 'read',
  'GET /evaluations/:evaluation_id/status': 'read',
  'GET /evaluations/:evaluation_id/results': 'read',
  'GET /evaluations/:evaluation_id/evaluator_cost': 'read',
  'GET /evaluations/:evaluation_id/evaluation_scenarios': 'read',
  'POST /evaluations/:evaluation_id/cancel': 'write',
  'POST /evaluations/external': 'write',
  'POST /evaluations/:evaluation_id/cases': 'write',
  'POST /evaluations/:evaluation_id/finish': 'write',
  'POST /human-evaluations': 'write',
  'GET /human-evaluations': 'read',
  'DELETE /human-evaluations': 'write',
  'GET /human-evaluations/:evaluation_id': 'read',
  'PUT /human-evaluations/:evaluation_id': 'write',
  'DELETE /human-evaluations/:evaluation_id': 'write',
  'GET /human-evaluations/:evaluation_id/evaluation_scenarios': 'read',
  'PUT /human-evaluations/:evaluation_id/evaluation_scenario/:scenario_id/:evaluation_type': 'write',
  'GET /human-evaluations/:evaluation_id/results': 'read',
  'POST /projects': 'admin',
  'GET /projects': 'read',
  'PATCH /projects/:project_id': 'admin',
  'POST /projects/:project_id/api-keys': 'admin',
  'GET /projects/:project_id/api-keys': 'admin',
  'DELETE /api-keys/:api_key_id': 'admin',
  'POST /auth/login': 'public',
  'POST /auth/logout': 'public',
  'GET /auth/me': 'public',
  'POST /auth/password': 'public',
  'GET /projects/:project_id/members': 'admin',
  'POST /projects/:project_id/members': 'admin',
  'PATCH /projects/:project_id/members/:user_id': 'admin',
  'DELETE /projects/:project_id/members/:user_id': 'admin',
  'POST /users/:user_id/password-link': 'admin',
  'GET /projects/:project_id/audit-events': 'admin',
  'POST /scores': 'feedback',
  'GET /scores': 'read',
  'GET /scores/:score_id': 'read',
  'DELETE /scores/:score_id': 'write',
  'POST /score-configs': 'write',
  'GET /score-configs': 'read',
  'GET /score-configs/:score_config_id': 'read',
  'PATCH /score-configs/:score_config_id': 'write',
  'POST /annotation-queues': 'write',
  'GET /annotation-queues': 'read',
  'GET /annotation-queues/:queue_id': 'read',
  'PATCH /annotation-queues/:queue_id': 'write',
  'DELETE /annotation-queues/:queue_id': 'write',
  'POST /annotation-queues/:queue_id/items': 'write',
  'GET /annotation-queues/:queue_id/items': 'read',
  'GET /annotation-queues/:queue_id/items/:item_id': 'read',
  'DELETE /annotation-queues/:queue_id/items/:item_id': 'write',
  'POST /annotation-queues/:queue_id/next': 'write',
  'POST /annotation-queues/:queue_id/items/:item_id/release': 'write',
  'POST /annotation-queues/:queue_id/items/:item_id/complete': 'write',
  'GET /annotation-queues/:queue_id/progress': 'read',
  'GET /annotation-queues/:queue_id/agreement': 'read',
  'POST /annotation-queues/:queue_id/export': 'write',
  'POST /evaluation-rules': 'write',
  'GET /evaluation-rules': 'read',
  'POST /evaluation-rules/preview': 'write',
  'GET /evaluation-rules/:rule_id': 'read',
  'PATCH /evaluation-rules/:rule_id': 'write',
  'DELETE /evaluation-rules/:rule_id': 'write',
  'GET /evaluation-rules/:rule_id/jobs': 'read',
  'GET /evaluation-rules/:rule_id/stats': 'read',
  'POST /evaluation-rules/:rule_id/preview': 'write',
  'POST /evaluation-rules/:rule_id/backfill': 'write',
  'GET /evaluation-rules/:rule_id/backfills/:backfill_id': 'read',
  'POST /evaluation-rules/:rule_id/backfills/:backfill_id/cancel': 'write',
  'POST /v1/traces': 'ingest',
  'POST /otlp/v1/traces': 'ingest',
  'POST /public/otel/v1/traces': 'ingest',
  // Langfuse's public API (docs/langfuse.md): a feedback key may create scores, as a write key.
  'POST /public/ingestion': 'ingest',
  'POST /public/scores': 'feedback',
  'GET /public/scores': 'read',
  'GET /public/v2/scores': 'read',
  'GET /public/scores/:scoreId': 'read',
  'GET /public/v2/scores/:scoreId': 'read',
  'GET /public/v3/scores': 'read',
  'DELETE /public/scores/:scoreId': 'write',
  'POST /public/score-configs': 'write',
  'GET /public/score-configs': 'read',
  'GET /public/score-configs/:configId': 'read',
  'PATCH /public/score-configs/:configId': 'write',
  'GET /public/sessions': 'read',
  'GET /public/sessions/:sessionId': 'read',
  'GET /public/annotation-queues': 'read',
  'POST /public/annotation-queues': 'write',
  'GET /public/annotation-queues/:queueId': 'read',
  'GET /public/annotation-queues/:queueId/items': 'read',
  'POST /public/annotation-queues/:queueId/items': 'write',
  'GET /public/annotation-queues/:queueId/items/:itemId': 'read',
  'PATCH /public/annotation-queues/:queueId/items/:itemId': 'write',
  'DELETE /public/annotation-queues/:queueId/items/:itemId': 'write',
  'POST /public/annotation-queues/:queueId/assignments': 'write',
  'DELETE /public/annotation-queues/:queueId/assignments': 'write',
  'POST /v1/logs': 'ingest',
  'POST /otlp/v1/logs': 'ingest',
  'POST /public/otel/v1/logs': 'ingest',
  'GET /public/v2/prompts': 'read',
  'POST /public/v2/prompts': 'write',
  'GET /public/v2/prompts/:name': 'read',
  'PATCH /public/v2/prompts/:name/versions/:version': 'write',
  'GET /public/v2/datasets': 'read',
  'POST /public/v2/datasets': 'write',
  'GET /public/v2/datasets/:datasetName': 'read',
  'GET /public/datasets/:datasetName': 'read',
  'GET /public/dataset-items': 'read',
  'POST /public/dataset-items': 'write',
  'GET /public/dataset-items/:id': 'read',
  'DELETE /public/dataset-items/:id': 'write',
  'POST /public/dataset-run-items': 'write',
  'GET /public/dataset-run-items': 'read',
  'GET /public/datasets/:datasetName/runs': 'read',
  'GET /public/datasets/:datasetName/runs/:runName': 'read',
  'DELETE /public/datasets/:datasetName/runs/:runName': 'write',
  'GET /public/projects': 'read',
};

const isOtlp = (url: string) => url.endsWith('/v1/traces') || url.endsWith('/v1/logs');

/** Public routes that answer a request without a body or session on their own terms: its fault, not a key's absence. */
const publicAnswers: Record<string, number> = { 'POST /auth/login': 422, 'POST /auth/password': 422, 'GET /auth/me': 401 };

/** A path parameter's value in a project's fixtures (`evaluation_id` of /human-evaluations is the human one). */
function paramValue(url: string, name: string, ids: Record<string, string>): string {
  if (name === 'revision' || name === 'number') return '1';
  if (name === 'evaluator_key') return 'auto_exact_match';
  if (name === 'evaluation_type') return 'single_model_test';
  if (name === 'file') return 'swagger-ui.css';
  if (name === 'evaluation_id' && url.startsWith('/human-evaluations')) return ids.human_evaluation_id;
  // Langfuse's paths name their ids in its camelCase.
  if (name === 'scoreId') return ids.score_id;
  if (name === 'configId') return ids.score_config_id;
  if (name === 'sessionId') return ids.session_id;
  if (name === 'name') return ids.prompt_name;
  // Names every app has; the app's id decides whose it is.
  if (name === 'environment_name') return 'production';
  if (name === 'version') return '1';
  if (name === 'queueId') return ids.queue_id;
  if (name === 'itemId') return ids.item_id;
  if (name === 'datasetName') return ids.dataset_name;
  if (name === 'runName') return ids.run_name;
  if (name === 'id' && url.startsWith('/public/dataset-items')) return ids.testset_row_id;
  return ids[name];
}

const fill = (url: string, ids: Record<string, string>) => url.replace(/:([A-Za-z_]+)/g, (_match, name: string) => paramValue(url, name, ids));

/** The path of an asset the built web UI loads (the tests' global setup builds it). */
function builtAsset(): string {
  return /src="(\/assets\/[^"]+)"/.exec(readFileSync(join(webDist, 'index.html'), 'utf8'))![1];
}

/** Ids no project has, of the same form as real ones. */
function unknownIds(ids: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, id.slice(0, -4) + (id.endsWith('ffff') ? 'eeee' : 'ffff')]));
}

/** A valid body for a write, naming the objects of `ids`, so that only the ids can fail it. */
function bodyFor(route: string, ids: Record<string, string>): unknown {
  const bodies: Record<string, unknown> = {
    'POST /apps': { app_name: 'walk' },
    'PATCH /apps/:app_id': { app_name: 'renamed' },
    'POST /apps/:app_id/variants': { variant_name: 'walk', kind: 'endpoint', uri: endpoint.url },
    'PUT /variants/:variant_id/parameters': { parameters: { temperature: 1 } },
    'POST /testsets': { name: 'walk', csvdata: [{ country: 'x' }], app_id: ids.app_id },
    'PUT /testsets/:testset_id': { name: 'renamed', csvdata: [{ country: 'x' }] },
    'DELETE /testsets': { testset_ids: [ids.testset_id] },
    'POST /testsets/:testset_id/rows': { rows: [{ country: 'x' }] },
    'PATCH /testsets/:testset_id/rows': { rows: [{ row_id: ids.testset_row_id, data: { country: 'y' } }] },
    'DELETE /testsets/:testset_id/rows': { row_ids: [ids.testset_row_id] },
    'PATCH /testsets/:testset_id/columns': { rename: { country: 'land' } },
    'POST /testsets/:testset_id/rows/from-spans': { trace_ids: [ids.trace_id], mapping: { country: '$.input' } },
    'POST /evaluators/configs': { app_id: ids.app_id, name: 'walk', evaluator_key: 'auto_exact_match', settings_values: {} },
    'PUT /evaluators/configs/:config_id': { name: 'renamed' },
    'POST /observability/prices': { model: 'walk', input: 1, output: 1 },
    'POST /scores': { trace_id: ids.trace_id, name: 'walk', value: 1 },
    'POST /score-configs': { name: 'walk', data_type: 'BOOLEAN' },
    'PATCH /score-configs/:score_config_id': { description: 'walked' },
    'POST /annotation-queues': { name: 'walk', target_type: 'trace', score_config_ids: [ids.score_config_id] },
    'PATCH /annotation-queues/:queue_id': { instructions: 'walked' },
    'POST /annotation-queues/:queue_id/items': { target_id: 'walked-trace' },
    'POST /annotation-queues/:queue_id/items/:item_id/complete': { scores: [] },
    'POST /annotation-queues/:queue_id/export': { testset_id: ids.testset_id, mapping: { country: '$.input' }, preview: true },
    'POST /evaluation-rules': { name: 'walk', evaluator_config_id: ids.config_id, enabled: false },
    'PATCH /evaluation-rules/:rule_id': { delay_seconds: 5 },
    'POST /evaluation-rules/preview': { rule: { name: 'walk', evaluator_config_id: ids.config_id }, trace_id: ids.trace_id },
    'POST /evaluation-rules/:rule_id/preview': { trace_id: ids.trace_id },
    'POST /evaluation-rules/:rule_id/backfill': { started_after: '2025-01-01T00:00:00Z', started_before: '2025-01-02T00:00:00Z', limit: 10 },
    'POST /observability/trace': { trace: 'cccccccccccccccccccccccccccccccc', spans: [] },
    'POST /evaluations': {
      app_id: ids.app_id,
      variant_ids: [ids.variant_id],
      evaluators_configs: [ids.config_id],
      testset_id: ids.testset_id,
      rate_limit: FAST,
    },
    'DELETE /evaluations': { evaluations_ids: [ids.evaluation_id] },
    'POST /evaluations/external': { testset_id: ids.testset_id, name: 'walk' },
    'POST /evaluations/:evaluation_id/cases': { cases: [{ testset_row_id: ids.testset_row_id, output: 'x' }] },
    'POST /evaluations/:evaluation_id/finish': {},
    'POST /human-evaluations': {
      app_id: ids.app_id,
      variant_ids: [ids.variant_id],
      evaluation_type: 'single_model_test',
      inputs: ['country'],
      testset_id: ids.testset_id,
    },
    'PUT /human-evaluations/:evaluation_id': { status: 'EVALUATION_FINISHED' },
    'DELETE /human-evaluations': { evaluations_ids: [ids.human_evaluation_id] },
    'PUT /human-evaluations/:evaluation_id/evaluation_scenario/:scenario_id/:evaluation_type': { score: 50 },
    'POST /projects': { name: 'walk' },
    'PATCH /projects/:project_id': { retention_days: 30 },
    'POST /projects/:project_id/api-keys': { name: 'walk', scopes: ['read'] },
    'POST /projects/:project_id/members': { email: 'walk@example.com', role: 'viewer' },
    'PATCH /projects/:project_id/members/:user_id': { role: 'member' },
    'POST /public/ingestion': { batch: [] },
    'POST /public/scores': { traceId: ids.trace_id, name: 'walk', value: 1 },
    'POST /public/score-configs': { name: 'walk', dataType: 'NUMERIC' },
    'PATCH /public/score-configs/:configId': { description: 'walked' },
    'POST /apps/:app_id/environments': { name: 'walk' },
    'POST /apps/:app_id/environments/:environment_name/deploy': { variant_id: ids.variant_id },
    'POST /public/v2/prompts': { name: 'walk', prompt: 'x', config: { model: 'm' } },
    'PATCH /public/v2/prompts/:name/versions/:version': { newLabels: ['staging'] },
    'POST /public/annotation-queues': { name: 'walk', scoreConfigIds: [ids.score_config_id] },
    'POST /public/annotation-queues/:queueId/items': { objectId: 'walked-trace', objectType: 'TRACE' },
    'PATCH /public/annotation-queues/:queueId/items/:itemId': { status: 'COMPLETED' },
    'POST /public/annotation-queues/:queueId/assignments': { userId: ids.user_id },
    'DELETE /public/annotation-queues/:queueId/assignments': { userId: ids.user_id },
    'POST /public/v2/datasets': { name: 'walk' },
    'POST /public/dataset-items': { datasetName: ids.dataset_name, id: 'walked-item', input: 'walk' },
    'POST /public/dataset-run-items': { runName: 'walk', datasetItemId: ids.testset_row_id, traceId: ids.trace_id },
  };
  return bodies[route];
}

/** Writes that name another project's objects in their body rather than their path. */
const idsInBody = [
  'POST /testsets',
  'DELETE /testsets',
  'POST /evaluators/configs',
  'POST /evaluations',
  'DELETE /evaluations',
  'POST /evaluations/external',
  'POST /human-evaluations',
  'DELETE /human-evaluations',
  'POST /evaluation-rules',
  'POST /evaluation-rules/preview',
  'POST /public/dataset-items',
  'POST /public/dataset-run-items',
];
/** Routes with a path parameter that names nothing of a project. */
const notProjectScoped = ['GET /evaluators/:evaluator_key', 'GET /variants/:variant_id/revisions/:revision'];

function send(route: string, url: string, headers: Record<string, string>, ids: Record<string, string>): Promise<TestResponse> {
  const method = route.split(' ')[0];
  if (isOtlp(url)) return server.request(method, url, url.endsWith('/v1/logs') ? { resourceLogs: [] } : { resourceSpans: [] }, headers);
  if (url === '/testsets/upload') {
    const form = new FormData();
    form.append('testset_name', 'walk');
    form.append('file', new Blob(['country\nx\n'], { type: 'text/csv' }), 'walk.csv');
    return server.request(method, url, form, headers);
  }
  return server.request(method, url, bodyFor(route, ids), headers);
}

/** A refusal answered in the route's own shape: REST's `{detail}`, GraphQL's errors, OTLP's google.rpc.Status. */
function expectRefusal(response: TestResponse, route: string, status: 401 | 403 | 429): void {
  expect(response.status, `${route}: ${response.text}`).toBe(status);
  if (status === 401) expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="assay", Basic/);
  const url = route.split(' ')[1];
  if (url.startsWith('/graphql')) {
    const code = { 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 429: 'TOO_MANY_REQUESTS' }[status];
    expect(response.body.errors[0].extensions.code).toBe(code);
  } else if (isOtlp(url)) expect(response.body.code).toBe({ 401: 16, 403: 7, 429: 8 }[status]);
  else if (url.startsWith('/public/')) expect(typeof response.body.message).toBe('string');
  else expect(typeof response.body.detail).toBe('string');
}

describe('every registered route', () => {
  it('is in the table of what it needs', () => {
    const routes = server.assay.routes.map(({ method, url }) => `${method} ${url}`);
    expect(routes.filter((route) => !(route in expected))).toEqual([]);
  });

  it('refuses no key, a bad key in any form, and keys without its scope; serves public routes without a key', async () => {
    const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` });
    for (const { method, url } of server.assay.routes) {
      const route = `${method} ${url}`;
      const access = expected[route];
      const path = fill(url, fixtures.A);
      if (access === 'public') {
        // A wildcard route is tried at a path it serves: the UI's first built asset for /assets/*.
        const response = await server.request(method, url === '/assets/*' ? builtAsset() : path);
        expect(response.status, route).toBe(publicAnswers[route] ?? response.status);
        if (!(route in publicAnswers)) expect(response.status, route).toBeLessThan(400);
        continue;
      }
      for (const headers of [{}, bearer('assay_notakey'), { authorization: `ApiKey ${INIT_KEY}x` }, basic('wrong'), { authorization: 'Digest abc' }]) {
        expectRefusal(await send(route, path, headers, fixtures.A), route, 401);
      }
      if (access === 'graphql' || method === 'OPTIONS') continue;
      for (const scope of scopes.filter((other) => !grants([other], access))) {
        expectRefusal(await send(route, path, bearer(keys.A[scope]), fixtures.A), `${route} with ${scope}`, 403);
      }
    }
  }, 60_000);

  it("with a session, refuses what the user's role lacks the scope of, serves its reads, and refuses another project", async () => {
    for (const { method, url } of server.assay.routes) {
      const route = `${method} ${url}`;
      const access = expected[route];
      if (access === 'public' || access === 'graphql' || method === 'OPTIONS') continue;
      const path = fill(url, fixtures.A);
      expect((await send(route, path, { cookie: 'assay_session=forged' }, fixtures.A)).status, route).toBe(401);
      for (const role of ['viewer', 'member', 'admin'] as const) {
        const headers = { cookie: sessions[role] };
        if (!grants(roleScopes[role], access)) expectRefusal(await send(route, path, headers, fixtures.A), `${route} as ${role}`, 403);
        else if (method === 'GET') expect([401, 403], `${route} as ${role}`).not.toContain((await send(route, path, headers, fixtures.A)).status);
      }
    }
    // Project B is not theirs: 404 as a project that does not exist, whatever the role.
    for (const cookie of Object.values(sessions)) {
      const response = await server.request('GET', '/apps', undefined, { cookie, 'x-assay-project': projectIds.B });
      expect(response.status).toBe(404);
      expect(response.text.includes(fixtures.B.app_id)).toBe(false);
    }
  }, 60_000);

  it("answers another project's ids with 404, exactly as ids that do not exist, and changes nothing of it", async () => {
    const before = await projectState('B');
    const unknown = unknownIds(fixtures.B);
    const normalise = (text: string, ids: Record<string, string>) => Object.entries(ids).reduce((out, [name, id]) => out.replaceAll(id, `<${name}>`), text);
    const checked: string[] = [];
    for (const { method, url } of server.assay.routes) {
      const route = `${method} ${url}`;
      const access = expected[route];
      if (access === 'public' || access === 'graphql' || notProjectScoped.includes(route)) continue;
      if (!url.includes(':') && !idsInBody.includes(route)) continue;
      const key = bearer(keys.A[access]);
      const other = await send(route, fill(url, fixtures.B), key, fixtures.B);
      const missing = await send(route, fill(url, unknown), key, unknown);
      expect(other.status, `${route}: ${other.text}`).toBe(404);
      expect(normalise(other.text, fixtures.B), route).toBe(normalise(missing.text, unknown));
      checked.push(route);
    }
    expect(checked.length).toBeGreaterThan(30);
    expect(await projectState('B')).toEqual(before);
  }, 60_000);

  it("never lists another project's objects", async () => {
    for (const { method, url } of server.assay.routes) {
      const route = `${method} ${url}`;
      if (method !== 'GET' || url.includes(':') || expected[route] !== 'read' || url === '/metrics') continue;
      const response = await server.request('GET', url, undefined, bearer(keys.A.read));
      for (const [name, id] of Object.entries(fixtures.B)) expect(response.text.includes(id), `${route} shows B's ${name}`).toBe(false);
    }
  });
});

/** What project B holds, read with its own key: compared before and after A's attempts. */
async function projectState(project: Project) {
  const key = bearer(keys[project].all);
  const ids = fixtures[project];
  const paths = [
    '/apps',
    `/apps/${ids.app_id}/variants`,
    `/variants/${ids.variant_id}/revisions`,
    `/apps/${ids.app_id}/environments`,
    `/apps/${ids.app_id}/environments/production/deployments`,
    '/api/public/v2/prompts',
    `/api/public/v2/prompts/${ids.prompt_name}`,
    '/testsets',
    `/testsets/${ids.testset_id}`,
    `/testsets/${ids.testset_id}/revisions`,
    '/evaluators/configs',
    '/evaluations',
    '/human-evaluations',
    `/human-evaluations/${ids.human_evaluation_id}/evaluation_scenarios`,
    '/observability/prices?source=user',
    '/observability/traces',
    '/sessions',
    `/sessions/${ids.session_id}`,
    '/scores',
    '/score-configs',
    '/annotation-queues',
    `/annotation-queues/${ids.queue_id}/items`,
    '/api/public/v2/scores',
    '/api/public/score-configs',
    '/api/public/annotation-queues',
    `/api/public/annotation-queues/${ids.queue_id}/items`,
    '/api/public/v2/datasets',
    '/api/public/dataset-items',
    `/api/public/datasets/${ids.dataset_name}`,
    `/api/public/datasets/${ids.dataset_name}/runs`,
    '/evaluation-rules',
    `/projects/${ids.project_id}/api-keys`,
    `/projects/${ids.project_id}/members`,
    `/projects/${ids.project_id}/audit-events`,
    '/projects',
  ];
  const state: Record<string, unknown> = {};
  for (const path of paths) {
    const response = await server.request('GET', path, undefined, key);
    expect(response.status, path).toBe(200);
    // Keys' last use moves with every read of the state itself.
    state[path] = JSON.parse(response.text.replace(/"last_used_at":("[^"]*"|null)/g, '"last_used_at":null'));
  }
  return state;
}

/** An operation selecting `field` alone, with a made-up value of the right type for each required argument. */
function operationFor(kind: 'query' | 'mutation' | 'subscription', field: string): { query: string; variables: Record<string, unknown> } {
  const root = schema.getRootType(kind as never)!;
  const definition = root.getFields()[field];
  const valueOf = (type: GraphQLInputType): unknown => {
    if (isNonNullType(type)) return valueOf(type.ofType);
    if (isListType(type)) return [valueOf(type.ofType)];
    if (isEnumType(type)) return type.getValues()[0].name;
    if (isInputObjectType(type)) {
      return Object.fromEntries(
        Object.values(type.getFields())
          .filter((input) => isNonNullType(input.type))
          .map((input) => [input.name, valueOf(input.type)]),
      );
    }
    if (isScalarType(type))
      return ({ Int: 1, Float: 1, Boolean: false, JSON: {}, DateTime: '2026-01-01T00:00:00Z' } as Record<string, unknown>)[type.name] ?? 'x';
    return null;
  };
  const required = definition.args.filter((arg) => isNonNullType(arg.type));
  const variables = Object.fromEntries(required.map((arg) => [arg.name, valueOf(arg.type)]));
  const declared = required.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(', ');
  const args = required.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const selection = isCompositeType(getNamedType(definition.type)) ? ' { __typename }' : '';
  return { query: `${kind}${declared ? `(${declared})` : ''} { ${field}${args ? `(${args})` : ''}${selection} }`, variables };
}

/** What each root field needs: `read` for queries and subscriptions, `write` for mutations, but these. */
const fieldScopes: Record<string, Scope> = {
  apiKeys: 'admin',
  auditEvents: 'admin',
  createProject: 'admin',
  updateProject: 'admin',
  createApiKey: 'admin',
  revokeApiKey: 'admin',
  members: 'admin',
  addMember: 'admin',
  changeMemberRole: 'admin',
  removeMember: 'admin',
  issuePasswordLink: 'admin',
  ingestTrace: 'ingest',
  upsertScores: 'feedback',
  runPrompt: 'write',
};

async function graphqlAs(key: string | null, query: string, variables?: Record<string, unknown>): Promise<TestResponse> {
  return server.request('POST', '/graphql', { query, variables }, key ? bearer(key) : {});
}

/** A graphql-sse request in "distinct connections" mode: its status, type and first event (the stream is then dropped). */
async function streamAs(key: string | null, query: string, variables?: Record<string, unknown>) {
  const controller = new AbortController();
  const response = await fetch(`${server.baseUrl}/graphql/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(key ? bearer(key) : {}) },
    body: JSON.stringify({ query, variables }),
    signal: controller.signal,
  });
  let text = '';
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const reader = response.body!.getReader();
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
  } else text = await response.text();
  return { status: response.status, type: response.headers.get('content-type') ?? '', text };
}

describe('GraphQL', () => {
  it('checks the scope of every root field of the schema before running it', async () => {
    for (const kind of ['query', 'mutation', 'subscription'] as const) {
      for (const field of Object.keys(schema.getRootType(kind as never)!.getFields())) {
        const needed = fieldScopes[field] ?? (kind === 'mutation' ? 'write' : 'read');
        const { query, variables } = operationFor(kind, field);
        for (const scope of scopes.filter((other) => !grants([other], needed))) {
          const response = kind === 'subscription' ? await streamAs(keys.A[scope], query, variables) : await graphqlAs(keys.A[scope], query, variables);
          expect(response.status, `${field} with ${scope}`).toBe(403);
          const body = 'body' in response ? response.body : JSON.parse(response.text);
          expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
          expect(body.data ?? null).toBeNull();
        }
        if (kind === 'subscription') {
          const allowed = await streamAs(keys.A[needed], query, variables);
          expect(allowed.status, field).toBe(200);
        } else {
          const allowed = await graphqlAs(keys.A[needed], query, variables);
          const codes = ((allowed.body.errors ?? []) as any[]).map((error) => error.extensions?.code);
          expect(codes, `${field} with ${needed}: ${allowed.text}`).not.toContain('FORBIDDEN');
          expect(allowed.status, `${field}: ${allowed.text}`).not.toBe(403);
        }
      }
    }
  }, 60_000);

  it("checks a session's role against every root field's scope", async () => {
    for (const kind of ['query', 'mutation'] as const) {
      for (const field of Object.keys(schema.getRootType(kind as never)!.getFields())) {
        const needed = fieldScopes[field] ?? (kind === 'mutation' ? 'write' : 'read');
        const { query, variables } = operationFor(kind, field);
        for (const role of ['viewer', 'member', 'admin'] as const) {
          const response = await server.request('POST', '/graphql', { query, variables }, { cookie: sessions[role] });
          // Creating projects is an instance administrator's, not a project admin's (docs/access.md#roles).
          const allowed = grants(roleScopes[role], needed) && field !== 'createProject';
          if (allowed) expect(response.status, `${field} as ${role}: ${response.text}`).not.toBe(403);
          else expect(response.body.errors[0].extensions.code, `${field} as ${role}`).toBe('FORBIDDEN');
        }
      }
    }
  }, 60_000);

  it('answers 401 UNAUTHENTICATED without a valid key, on /graphql and /graphql/stream', async () => {
    for (const key of [null, 'assay_bogus']) {
      const response = await graphqlAs(key, '{ apps { edges { cursor } } }');
      expectRefusal(response, 'POST /graphql', 401);
      const stream = await streamAs(key, 'subscription { evaluationProgress(id: "x") { __typename } }');
      expect(stream.status).toBe(401);
      expect(JSON.parse(stream.text).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
  });

  it('a mixed operation needs every scope its fields need', async () => {
    const both = '{ apps { edges { cursor } } apiKeys { id } }';
    expect((await graphqlAs(keys.A.read, both)).status).toBe(403);
    expect((await graphqlAs(keys.A.admin, both)).status).toBe(403);
    const fragment = 'query { ...F } fragment F on Query { apiKeys { id } }';
    expect((await graphqlAs(keys.A.read, fragment)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await graphqlAs(keys.A.all, both)).body.errors).toBeUndefined();
  });

  it("answers another project's ids exactly as ids that do not exist", async () => {
    const b = fixtures.B;
    const unknown = unknownIds(b);
    const cases: [Scope, string, string][] = [
      ['read', 'query($id: ID!) { app(id: $id) { name } }', 'app_id'],
      ['read', 'query($id: ID!) { evaluation(id: $id) { status } }', 'evaluation_id'],
      ['read', 'query($id: ID!) { humanEvaluation(id: $id) { status } }', 'human_evaluation_id'],
      ['read', 'query($id: ID!) { evaluatorConfig(id: $id) { name } }', 'config_id'],
      ['read', 'query($id: ID!) { span(id: $id) { name } }', 'span_id'],
      ['read', 'query($id: String!) { session(sessionId: $id) { sessionId } }', 'session_id'],
      ['read', 'query($id: ID!) { node(id: $id) { ... on Session { traceCount } } }', 'session_global_id'],
      ['write', 'mutation($id: ID!) { deleteApp(id: $id) }', 'app_id'],
      ['write', 'mutation($id: ID!) { deleteTestset(id: $id) }', 'testset_id'],
      ['write', 'mutation($id: ID!) { deleteVariant(id: $id) }', 'variant_id'],
      ['write', 'mutation($id: ID!) { deleteEnvironment(appId: $id, name: "staging") }', 'app_id'],
      ['write', 'mutation($id: ID!) { cancelEvaluation(id: $id) { id } }', 'evaluation_id'],
      ['write', 'mutation($id: ID!) { deleteModelPrice(id: $id) }', 'price_id'],
      ['read', 'query($id: ID!) { node(id: $id) { ... on Score { value } } }', 'score_global_id'],
      ['write', 'mutation($id: ID!) { deleteScore(id: $id) }', 'score_global_id'],
      ['read', 'query($id: ID!) { node(id: $id) { ... on ScoreConfig { name } } }', 'score_config_global_id'],
      ['write', 'mutation($id: ID!) { updateScoreConfig(id: $id, input: { isArchived: true }) { name } }', 'score_config_global_id'],
      ['read', 'query($id: ID!) { node(id: $id) { ... on AnnotationQueue { name } } }', 'queue_global_id'],
      ['write', 'mutation($id: ID!) { nextAnnotationQueueItem(queueId: $id) { id } }', 'queue_global_id'],
      ['write', 'mutation($id: ID!) { deleteAnnotationQueue(id: $id) }', 'queue_global_id'],
      ['read', 'query($id: ID!) { node(id: $id) { ... on AnnotationQueueItem { status } } }', 'item_global_id'],
      ['write', 'mutation($id: ID!) { completeAnnotationQueueItem(id: $id, scores: []) { item { id } } }', 'item_global_id'],
      ['admin', 'mutation($id: ID!) { revokeApiKey(id: $id) }', 'api_key_global_id'],
      ['read', 'query($id: ID!) { node(id: $id) { ... on EvaluationRule { name stats { costUsd } } } }', 'rule_global_id'],
      ['write', 'mutation($id: ID!) { updateEvaluationRule(id: $id, input: { enabled: true }) { name } }', 'rule_global_id'],
      ['write', 'mutation($id: ID!) { previewEvaluationRule(id: $id, traceId: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") { matches } }', 'rule_global_id'],
      ['read', 'query($id: ID!) { node(id: $id) { ... on EvaluationRuleBackfill { status } } }', 'backfill_global_id'],
      ['write', 'mutation($id: ID!) { cancelEvaluationRuleBackfill(id: $id) { status } }', 'backfill_global_id'],
      ['write', 'mutation($id: ID!) { deleteEvaluationRule(id: $id) }', 'rule_global_id'],
    ];
    // Cases naming a global id: its type and the fixture holding the plain id.
    const globalIds: Record<string, [string, string]> = {
      api_key_global_id: ['ApiKey', 'api_key_id'],
      score_global_id: ['Score', 'score_id'],
      session_global_id: ['Session', 'session_id'],
      score_config_global_id: ['ScoreConfig', 'score_config_id'],
      queue_global_id: ['AnnotationQueue', 'queue_id'],
      item_global_id: ['AnnotationQueueItem', 'item_id'],
      rule_global_id: ['EvaluationRule', 'rule_id'],
      backfill_global_id: ['EvaluationRuleBackfill', 'backfill_id'],
    };
    const idOf = (name: string, ids: Record<string, string>) =>
      name in globalIds ? Buffer.from(`${globalIds[name][0]}:${ids[globalIds[name][1]]}`).toString('base64') : ids[name];
    const plainOf = (name: string, ids: Record<string, string>) => (name in globalIds ? ids[globalIds[name][1]] : ids[name]);
    const before = await projectState('B');
    for (const [scope, query, name] of cases) {
      const other = await graphqlAs(keys.A[scope], query, { id: idOf(name, b) });
      const missing = await graphqlAs(keys.A[scope], query, { id: idOf(name, unknown) });
      expect(other.status, query).toBe(missing.status);
      const normalised = (text: string, ids: Record<string, string>) => text.replaceAll(idOf(name, ids), '<id>').replaceAll(plainOf(name, ids), '<id>');
      expect(normalised(other.text, b), query).toBe(normalised(missing.text, unknown));
      expect(other.body.data?.app ?? other.body.data?.evaluation ?? other.body.data?.session ?? null).toBeNull();
    }
    const follow = 'subscription($id: ID!) { evaluationProgress(id: $id) { __typename } }';
    const other = await streamAs(keys.A.read, follow, { id: b.evaluation_id });
    const missing = await streamAs(keys.A.read, follow, { id: unknown.evaluation_id });
    expect(other.text.replaceAll(b.evaluation_id, '<id>')).toBe(missing.text.replaceAll(unknown.evaluation_id, '<id>'));
    expect(await projectState('B')).toEqual(before);
  });

  it('manages projects and keys with camelCase fields and global ids, never showing a secret again', async () => {
    const created = await graphqlAs(
      keys.A.admin,
      'mutation { createApiKey(input: { name: "gql", scopes: [READ, INGEST] }) { key apiKey { id name scopes prefix createdAt lastUsedAt } } }',
    );
    const { key, apiKey } = created.body.data.createApiKey;
    expect(apiKey).toMatchObject({ name: 'gql', scopes: ['READ', 'INGEST'], lastUsedAt: null });
    expect(key.startsWith(apiKey.prefix)).toBe(true);
    expect(Buffer.from(apiKey.id, 'base64').toString()).toMatch(/^ApiKey:/);
    expect((await graphqlAs(key, '{ projects { name } }')).body.data.projects).toEqual([{ name: 'default' }]);
    const listed = await graphqlAs(keys.A.admin, '{ apiKeys { id name prefix } }');
    expect(listed.text.includes(key)).toBe(false);
    expect(listed.body.data.apiKeys.map((one: { name: string }) => one.name)).toContain('gql');
    expect((await graphqlAs(keys.A.admin, 'mutation($id: ID!) { revokeApiKey(id: $id) }', { id: apiKey.id })).body.data.revokeApiKey).toBe(apiKey.id);
    expect((await graphqlAs(key, '{ projects { name } }')).status).toBe(401);
    const project = await graphqlAs(
      keys.A.admin,
      'mutation { createProject(input: { name: "gql-project" }) { project { id name } apiKey { key apiKey { scopes } } } }',
    );
    expect(project.body.data.createProject.apiKey.apiKey.scopes).toEqual(scopes.map((scope) => scope.toUpperCase()));
    const invalid = await graphqlAs(keys.A.admin, 'mutation { createApiKey(input: { name: " ", scopes: [] }) { key } }');
    expect(invalid.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('REST projects and keys', () => {
  it('creates a project with a first key of every scope; the key acts there only', async () => {
    const created = await ok(server.request('POST', '/projects', { name: 'rest-project' }, bearer(keys.A.admin)));
    expect(Object.keys(created).sort()).toEqual(['api_key', 'created_at', 'id', 'name', 'retention_days']);
    expect(Object.keys(created.api_key).sort()).toEqual(['id', 'key', 'name', 'scopes']);
    expect(created.api_key.scopes).toEqual(scopes);
    expect(await ok(server.request('GET', '/projects', undefined, bearer(created.api_key.key)))).toEqual([
      { id: created.id, name: 'rest-project', created_at: created.created_at, retention_days: null },
    ]);
    expect(await ok(server.request('GET', '/apps', undefined, bearer(created.api_key.key)))).toEqual([]);
    const taken = await server.request('POST', '/projects', { name: 'rest-project' }, bearer(keys.A.admin));
    expect(taken.status).toBe(409);
  });

  it('lists keys without their secret, with a prefix and their last use; revokes at once', async () => {
    const made = await ok(
      server.request('POST', `/projects/${fixtures.A.project_id}/api-keys`, { name: 'short-lived', scopes: ['write', 'read'] }, bearer(keys.A.admin)),
    );
    expect(Object.keys(made).sort()).toEqual(['created_at', 'id', 'key', 'name', 'scopes']);
    expect(made.scopes).toEqual(['read', 'write']);
    expect((await server.request('GET', '/apps', undefined, { authorization: `ApiKey ${made.key}` })).status).toBe(200);
    const listed = await server.request('GET', `/projects/${fixtures.A.project_id}/api-keys`, undefined, bearer(keys.A.admin));
    expect(listed.text.includes(made.key)).toBe(false);
    const row = listed.body.find((key: { id: string }) => key.id === made.id);
    expect(row).toMatchObject({ name: 'short-lived', scopes: ['read', 'write'], prefix: made.key.slice(0, 10) });
    expect(row.prefix).toMatch(/^assay_.{4}$/);
    // The last use is written in the background, never delaying the request: on PostgreSQL the
    // list may run on another pool connection before that write commits.
    const lastUse = async () => {
      const stored = (await server.request('GET', `/projects/${fixtures.A.project_id}/api-keys`, undefined, bearer(keys.A.admin))).body as {
        id: string;
        last_used_at: string | null;
      }[];
      return Date.parse(stored.find((key) => key.id === made.id)?.last_used_at ?? '');
    };
    await expect.poll(lastUse, { timeout: 5_000 }).toBeGreaterThan(Date.now() - 60_000);
    expect((await server.request('DELETE', `/api-keys/${made.id}`, undefined, bearer(keys.A.admin))).status).toBe(204);
    expectRefusal(await server.request('GET', '/apps', undefined, bearer(made.key)), 'GET /apps', 401);
    const invalid = await server.request('POST', `/projects/${fixtures.A.project_id}/api-keys`, { name: 'x', scopes: ['root'] }, bearer(keys.A.admin));
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0].loc).toEqual(['body', 'scopes', 0]);
  });

  it('keeps no key in clear in the database (SQLite: its file and WAL), only its keyed hash', async () => {
    // PostgreSQL's files are the server's: there, every stored key row as text.
    const files = onPostgres
      ? [Buffer.from(JSON.stringify(await server.assay.db.apiKey.findMany()))]
      : ['assay.db', 'assay.db-wal'].map((file) => readFileSync(join(server.dir, file)));
    const hasher = new KeyHasher(server.assay.services.secrets);
    for (const key of [INIT_KEY, ...Object.values(keys).flatMap((set) => scopes.map((scope) => set[scope])), keys.B.all]) {
      for (const file of files) expect(file.includes(key)).toBe(false);
      // The rows are there: their hash is, in one of the files.
      expect(files.some((file) => file.includes(hasher.hash(key)))).toBe(true);
    }
  });
});

describe('OTLP', () => {
  const body = (traceId: string) => ({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              { traceId, spanId: '1111111111111111', name: 'otlp', kind: 1, startTimeUnixNano: '1795000000000000000', endTimeUnixNano: '1795000001000000000' },
            ],
          },
        ],
      },
    ],
  });

  it("stores spans in the key's project over HTTP, with the key in any of its forms", async () => {
    const traceId = 'dddddddddddddddddddddddddddddddd';
    const basic = `Basic ${Buffer.from(`pk-lf-anything:${keys.A.ingest}`).toString('base64')}`;
    for (const authorization of [`Bearer ${keys.A.ingest}`, `ApiKey ${keys.A.ingest}`, basic]) {
      expect((await server.request('POST', '/api/public/otel/v1/traces', body(traceId), { authorization })).status).toBe(200);
    }
    expect((await server.request('GET', `/observability/traces/${traceId}`, undefined, bearer(keys.A.read))).status).toBe(200);
    expect((await server.request('GET', `/observability/traces/${traceId}`, undefined, bearer(keys.B.read))).status).toBe(404);
  });

  it('gRPC: UNAUTHENTICATED without a valid key, PERMISSION_DENIED without ingest, stored in the key project with it', async () => {
    const { grpc, call, close } = await grpcClient(grpcPort);
    const traceId = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
    const spans = body(traceId).resourceSpans[0].scopeSpans[0].spans.map((span) => ({
      ...span,
      traceId: Buffer.from(span.traceId, 'hex'),
      spanId: Buffer.from(span.spanId, 'hex'),
    }));
    const message = Buffer.from(
      ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject({ resourceSpans: [{ scopeSpans: [{ spans }] }] })).finish(),
    );
    try {
      expect((await call(message)).error?.code).toBe(grpc.status.UNAUTHENTICATED);
      expect((await call(message, 'Bearer assay_nope')).error?.code).toBe(grpc.status.UNAUTHENTICATED);
      expect((await call(message, `Bearer ${keys.A.read}`)).error?.code).toBe(grpc.status.PERMISSION_DENIED);
      expect((await call(message, `Bearer ${keys.A.write}`)).error?.code).toBe(grpc.status.PERMISSION_DENIED);
      expect((await call(message, `ApiKey ${keys.A.ingest}`)).error).toBeNull();
    } finally {
      close();
    }
    expect((await server.request('GET', `/observability/traces/${traceId}`, undefined, bearer(keys.A.read))).status).toBe(200);
    expect((await server.request('GET', `/observability/traces/${traceId}`, undefined, bearer(keys.B.read))).status).toBe(404);
  });

  it("gRPC logs: the same keys and scopes; the records join the span of the key's project only", async () => {
    const { grpc, call, close } = await grpcClient(grpcPort, 'logs');
    const traceId = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
    const record = {
      traceId: Buffer.from(traceId, 'hex'),
      spanId: Buffer.from('1111111111111111', 'hex'),
      timeUnixNano: 1795000000500000000,
      body: { kvlistValue: { values: [{ key: 'content', value: { stringValue: 'Hello?' } }] } },
      attributes: [{ key: 'event.name', value: { stringValue: 'gen_ai.user.message' } }],
    };
    const message = Buffer.from(
      ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject({ resourceLogs: [{ scopeLogs: [{ logRecords: [record] }] }] })).finish(),
    );
    try {
      expect((await call(message)).error?.code).toBe(grpc.status.UNAUTHENTICATED);
      expect((await call(message, `Bearer ${keys.A.read}`)).error?.code).toBe(grpc.status.PERMISSION_DENIED);
      expect((await call(message, `Bearer ${keys.B.ingest}`)).error).toBeNull();
      expect((await call(message, `Bearer ${keys.A.ingest}`)).error).toBeNull();
    } finally {
      close();
    }
    const tree = (await server.request('GET', `/observability/traces/${traceId}`, undefined, bearer(keys.A.read))).body;
    expect(tree.content.inputs).toEqual({ messages: [{ role: 'user', content: 'Hello?' }] });
    // Project B's copy waits for a span of its own: it never reaches A's.
    expect(tree.content.internals.log_records.count).toBe(1);
  });
});

describe('scores in the trace list', () => {
  it("filter, columns and summaries see only the key's project's scores, even on the same trace id", async () => {
    const traceId = 'abababababababababababababababab';
    const span = {
      traceId,
      spanId: '2222222222222222',
      name: 'scored',
      kind: 1,
      startTimeUnixNano: '1795000000000000000',
      endTimeUnixNano: '1795000001000000000',
    };
    const stored = await server.request('POST', '/v1/traces', { resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }, bearer(keys.A.ingest));
    expect(stored.status).toBe(200);
    await upsertScores(requestContext(server.assay.services, projectIds.A), [{ trace_id: traceId, name: 'mine', value: 1 }]);
    await upsertScores(requestContext(server.assay.services, projectIds.B), [{ trace_id: traceId, name: 'theirs', value: 1 }]);
    const list = async (name: string) => {
      const scores = encodeURIComponent(JSON.stringify([{ name, present: true }]));
      const response = await server.request('GET', `/observability/traces?scores=${scores}&score_names=mine,theirs`, undefined, bearer(keys.A.read));
      expect(response.status).toBe(200);
      return response.body.traces.map((trace: { trace_id: string; scores: { name: string }[] }) => [trace.trace_id, trace.scores.map((score) => score.name)]);
    };
    expect(await list('mine')).toEqual([[traceId, ['mine']]]);
    expect(await list('theirs')).toEqual([]);
    const summary = await graphqlAs(keys.A.read, '{ scoreSummary(names: ["mine", "theirs"]) { name count } }');
    expect(summary.body.data.scoreSummary).toEqual([{ name: 'mine', count: 1 }]);
    // B's score names a trace id B has no trace of: nothing of A's shows through it.
    const other = await graphqlAs(
      keys.B.read,
      '{ scoreSummary(names: ["mine", "theirs"]) { name } traces(scores: [{name: "theirs", present: true}]) { edges { node { traceId } } } }',
    );
    expect(other.body.data).toEqual({ scoreSummary: [], traces: { edges: [] } });
  });
});

/** A raw OTLP/gRPC client: bytes in, the error or answer out, with an `authorization` metadata when given. */
async function grpcClient(port: number, signal: 'trace' | 'logs' = 'trace') {
  const grpc = await import('@grpc/grpc-js');
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = (body: Buffer, authorization?: string) =>
    new Promise<{ error: grpcTypes.ServiceError | null; response?: Buffer }>((resolve) => {
      const metadata = new grpc.Metadata();
      if (authorization) metadata.set('authorization', authorization);
      client.makeUnaryRequest(
        signal === 'logs' ? '/opentelemetry.proto.collector.logs.v1.LogsService/Export' : '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        (value: Buffer) => value,
        (value: Buffer) => value,
        body,
        metadata,
        (error, response) => resolve({ error, response }),
      );
    });
  return { grpc, call, close: () => client.close() };
}

describe('rate limits', () => {
  let limited: TestServer;
  let limitedGrpc: number;

  beforeAll(async () => {
    limitedGrpc = await freePort();
    limited = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: INIT_KEY, ASSAY_RATE_LIMIT_PER_MINUTE: '5', OTLP_GRPC_PORT: String(limitedGrpc) });
  });
  afterAll(() => limited?.close());

  const otlp = (spans: number) => ({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: Array.from({ length: spans }, (_, index) => ({
              traceId: 'ffffffffffffffffffffffffffffff00',
              spanId: `00000000000000${String(index).padStart(2, '0')}`,
              name: 'limited',
              startTimeUnixNano: '1795000000000000000',
              endTimeUnixNano: '1795000001000000000',
            })),
          },
        ],
      },
    ],
  });

  it('answers 429 with Retry-After beyond the limit, per key, counting ingested spans', async () => {
    const project = await ok(limited.request('POST', '/projects', { name: 'limited' }, bearer(INIT_KEY)));
    const key = project.api_key.key;
    const other = await ok(limited.request('POST', `/projects/${project.id}/api-keys`, { name: 'other', scopes: ['read'] }, bearer(key)));
    const ingest = await ok(limited.request('POST', `/projects/${project.id}/api-keys`, { name: 'ingest', scopes: ['ingest'] }, bearer(key)));
    for (let i = 0; i < 3; i++) expect((await limited.request('GET', '/apps', undefined, bearer(key))).status).toBe(200);
    const refused = await limited.request('GET', '/apps', undefined, bearer(key));
    expectRefusal(refused, 'GET /apps', 429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expectRefusal(await limited.request('POST', '/graphql', { query: '{ apps { edges { cursor } } }' }, bearer(key)), 'POST /graphql', 429);
    // Another key has its own minute.
    expect((await limited.request('GET', '/apps', undefined, bearer(other.key))).status).toBe(200);
    // Health is not counted.
    expect((await limited.request('GET', '/healthz')).status).toBe(200);

    // Ingest counts spans: 3 pass, 3 more do not (5 a minute), as OTLP/HTTP's 429 with Retry-After.
    expect((await limited.request('POST', '/v1/traces', otlp(3), bearer(ingest.key))).status).toBe(200);
    const over = await limited.request('POST', '/v1/traces', otlp(3), bearer(ingest.key));
    expectRefusal(over, 'POST /v1/traces', 429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);

    // gRPC: RESOURCE_EXHAUSTED carrying RetryInfo, which OTLP exporters wait on before retrying.
    const message = Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject({ resourceSpans: [] })).finish());
    const { grpc, call, close } = await grpcClient(limitedGrpc);
    try {
      const { error } = await call(message, `Bearer ${ingest.key}`);
      expect(error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      const details = error!.metadata.get('grpc-status-details-bin')[0] as Buffer;
      const status = RpcStatus.decode(details) as unknown as { code: number; details: { type_url: string; value: Uint8Array }[] };
      expect(status.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(status.details[0].type_url).toBe('type.googleapis.com/google.rpc.RetryInfo');
      const retry = RetryInfo.decode(status.details[0].value) as unknown as { retry_delay: { seconds: number | { toNumber(): number } } };
      expect(Number(retry.retry_delay.seconds)).toBeGreaterThan(0);
    } finally {
      close();
    }
  });
});

describe('modes and the first key', () => {
  it('refuses to start with auth on and no key, saying how to make one; starts with ASSAY_INIT_API_KEY', async () => {
    await expect(startServer({ ASSAY_AUTH: 'on' })).rejects.toThrow(/npm run assay -- keys create --project default/);
    await expect(startServer({ HOST: '0.0.0.0' })).rejects.toThrow(/ASSAY_INIT_API_KEY/);
    const open = await startServer({ HOST: '0.0.0.0', ASSAY_INIT_API_KEY: INIT_KEY });
    try {
      expect(open.assay.authEnabled).toBe(true);
      expect((await open.request('GET', '/apps')).status).toBe(401);
      expect((await open.request('GET', '/apps', undefined, bearer(INIT_KEY))).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('serves without keys on loopback by default, and with ASSAY_AUTH=off anywhere', async () => {
    for (const env of [{}, { HOST: '0.0.0.0', ASSAY_AUTH: 'off' }] as Record<string, string>[]) {
      const open = await startServer(env);
      try {
        expect(open.assay.authEnabled).toBe(false);
        expect((await open.request('GET', '/apps')).status).toBe(200);
        // Keys are not read at all: an unknown one does not refuse the request.
        expect((await open.request('GET', '/apps', undefined, bearer('assay_unknown'))).status).toBe(200);
      } finally {
        await open.close();
      }
    }
  });
});
