// Fixtures for tests of automatic evaluations: apps, variants, test sets and evaluator configs made
// through the REST API, an evaluation started with a default rate limit, and a status poller.
import { beforeAll, expect } from 'vitest';
import type { TestServer } from './server.js';
import { globalId } from '../../src/shared/graphql/ids.js';

export const TERMINAL_STATUSES = [
  'EVALUATION_FINISHED',
  'EVALUATION_FINISHED_WITH_ERRORS',
  'EVALUATION_FAILED',
  'EVALUATION_AGGREGATION_FAILED',
  'EVALUATION_CANCELLED',
] as const;

/** The fields of an Evaluation answer (docs/contract.md), sorted. */
export const EVALUATION_FIELDS = [
  'aggregated_results',
  'app_id',
  'average_cost',
  'average_latency',
  'created_at',
  'id',
  'project_id',
  'revisions',
  'status',
  'testset_id',
  'testset_name',
  'total_cost',
  'updated_at',
  'variant_ids',
  'variant_names',
  'variant_revision_ids',
].sort();

export interface RateLimitBody {
  batch_size: number;
  max_retries: number;
  retry_delay: number;
  delay_between_batches: number;
}

export const FAST: RateLimitBody = { batch_size: 10, max_retries: 0, retry_delay: 0, delay_between_batches: 0 };

/** Something that answers REST requests the way TestServer does (a child process too). */
export interface Requester {
  request: TestServer['request'];
}

async function ok(server: Requester, method: string, path: string, body?: unknown): Promise<any> {
  const response = await server.request(method, path, body);
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${response.text}`);
  return response.body;
}

let counter = 0;
/** A name unique within the test run. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export async function createApp(server: Requester, name = uniqueName('app')): Promise<string> {
  return (await ok(server, 'POST', '/apps', { app_name: name })).app_id;
}

/** An app made before the file's tests (after `useTestServer`'s start): its id is `.id` from then on. */
export function useApp(server: Requester, name?: string): { id: string } {
  const app = { id: '' };
  beforeAll(async () => {
    app.id = await createApp(server, name);
  });
  return app;
}

export interface CreatedVariant {
  variant_id: string;
  variant_name: string;
  revision: number;
}

export async function createEndpointVariant(
  server: Requester,
  appId: string,
  uri: string,
  options: { name?: string; parameters?: Record<string, unknown> } = {},
): Promise<CreatedVariant> {
  return ok(server, 'POST', `/apps/${appId}/variants`, {
    variant_name: options.name ?? uniqueName('endpoint'),
    kind: 'endpoint',
    uri,
    parameters: options.parameters ?? {},
  });
}

/** The parameters of a prompt variant that asks for a capital in one word. */
export const promptParameters = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You answer in one word.' },
    { role: 'user', content: 'Capital of {country}?' },
  ],
  temperature: 0.2,
};

export async function createPromptVariant(
  server: Requester,
  appId: string,
  parameters: Record<string, unknown>,
  name = uniqueName('prompt'),
): Promise<CreatedVariant> {
  return ok(server, 'POST', `/apps/${appId}/variants`, { variant_name: name, kind: 'prompt', parameters });
}

export async function createTestset(server: Requester, rows: Record<string, unknown>[], name = uniqueName('testset')): Promise<{ id: string; name: string }> {
  const created = await ok(server, 'POST', '/testsets', { name, csvdata: rows });
  return { id: created.id, name };
}

/** Three rows of a test set: a country and its capital. */
export const CAPITALS = [
  { country: 'France', correct_answer: 'Paris' },
  { country: 'Japan', correct_answer: 'Tokyo' },
  { country: 'Peru', correct_answer: 'Lima' },
];

/** POST /testsets with `body` as it is; the answer ({id, name, created_at}). */
export async function createTestsetFrom(server: Requester, body: Record<string, unknown>): Promise<{ id: string; name: string; created_at: string }> {
  return ok(server, 'POST', '/testsets', body);
}

export async function createConfig(
  server: Requester,
  appId: string,
  evaluatorKey: string,
  settings: Record<string, unknown> = {},
  name = uniqueName(evaluatorKey),
): Promise<{ id: string; name: string; evaluator_key: string; settings_values: Record<string, unknown> }> {
  return ok(server, 'POST', '/evaluators/configs', { app_id: appId, name, evaluator_key: evaluatorKey, settings_values: settings });
}

/** POST /evaluators/configs with `body` as it is; the config answered. */
export async function createConfigFrom(server: Requester, body: Record<string, unknown>): Promise<any> {
  return ok(server, 'POST', '/evaluators/configs', body);
}

export interface EvaluationRequest {
  app_id: string;
  variant_ids: string[];
  evaluators_configs: string[];
  testset_id: string;
  rate_limit?: Partial<RateLimitBody>;
  lm_providers_keys?: Record<string, string> | null;
  correct_answer_column?: string | null;
}

/** POST /evaluations (rate limit defaults to FAST); the created evaluations. */
export async function startEvaluations(server: Requester, request: EvaluationRequest): Promise<any[]> {
  return ok(server, 'POST', '/evaluations', { ...request, rate_limit: { ...FAST, ...request.rate_limit } });
}

export async function startEvaluation(server: Requester, request: EvaluationRequest): Promise<any> {
  const created = await startEvaluations(server, request);
  expect(created).toHaveLength(1);
  return created[0];
}

export interface StatusBody {
  status: { type: string; value: string; error: { message: string; stacktrace: string | null } | null };
  progress: { total: number; done: number; errors: number };
}

/**
 * Polls GET `path` (which must answer 200) every 25 ms until `reached` holds for its body, and
 * answers that body; fails after `timeoutMs` saying `what` was not reached and the last body.
 */
export async function pollUntil<Body>(server: Requester, path: string, reached: (body: Body) => boolean, what: string, timeoutMs = 10_000): Promise<Body> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await server.request('GET', path);
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${response.text}`);
    if (reached(response.body as Body)) return response.body as Body;
    if (Date.now() > deadline) throw new Error(`${what} in ${timeoutMs} ms; last: ${response.text}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Polls GET /evaluations/{id}/status until its value is one of `statuses` (default: any end state)
 * and answers that body; fails naming the last status seen after `timeoutMs`.
 */
export async function waitForStatus(
  server: Requester,
  evaluationId: string,
  statuses: readonly string[] = TERMINAL_STATUSES,
  timeoutMs = 10_000,
): Promise<StatusBody> {
  return pollUntil<StatusBody>(
    server,
    `/evaluations/${evaluationId}/status`,
    (body) => statuses.includes(body.status.value),
    `evaluation ${evaluationId} did not reach ${statuses.join('|')}`,
    timeoutMs,
  );
}

/**
 * An evaluation of an endpoint app over `rows`, scored by exact match and run to a finished state;
 * its app id and evaluation id.
 */
export async function runEndpointEvaluation(server: Requester, url: string, rows: Record<string, unknown>[]): Promise<{ appId: string; id: string }> {
  const { appId, evaluation } = await startEndpointEvaluation(server, url, rows);
  expect((await waitForStatus(server, evaluation.id)).status.value).toMatch(/^EVALUATION_FINISHED/);
  return { appId, id: evaluation.id };
}

/**
 * An evaluation of an endpoint variant at `url` over `rows`, scored by exact match, started: what it
 * was made of. The variant belongs to `options.appId`, else to a new app.
 */
export async function startEndpointEvaluation(
  server: Requester,
  url: string,
  rows: Record<string, unknown>[],
  options: { appId?: string; rate_limit?: Partial<RateLimitBody> } = {},
) {
  const appId = options.appId ?? (await createApp(server));
  const variant = await createEndpointVariant(server, appId, url);
  const testset = await createTestset(server, rows);
  const config = await createConfig(server, appId, 'auto_exact_match');
  const evaluation = await startEvaluation(server, {
    app_id: appId,
    variant_ids: [variant.variant_id],
    evaluators_configs: [config.id],
    testset_id: testset.id,
    rate_limit: options.rate_limit,
  });
  return { appId, variant, testset, config, evaluation };
}

/** Polls the status until `done` reaches `count` (or the run ends). */
export async function waitForDone(server: Requester, evaluationId: string, count: number, timeoutMs = 10_000): Promise<StatusBody> {
  return pollUntil<StatusBody>(
    server,
    `/evaluations/${evaluationId}/status`,
    (body) => body.progress.done >= count || (TERMINAL_STATUSES as readonly string[]).includes(body.status.value),
    `evaluation ${evaluationId} did not store ${count} cases`,
    timeoutMs,
  );
}

export async function getScenarios(server: Requester, evaluationId: string): Promise<any[]> {
  return ok(server, 'GET', `/evaluations/${evaluationId}/evaluation_scenarios`);
}

/** Runs an evaluation of one test case to its end (EVALUATION_FINISHED) and answers its first evaluator's result. */
export async function firstCaseResult(server: Requester, request: EvaluationRequest): Promise<unknown> {
  const evaluation = await startEvaluation(server, request);
  expect((await waitForStatus(server, evaluation.id)).status.value).toBe('EVALUATION_FINISHED');
  const [scenario] = await getScenarios(server, evaluation.id);
  return scenario.results[0].result;
}

export async function getEvaluation(server: Requester, evaluationId: string): Promise<any> {
  return ok(server, 'GET', `/evaluations/${evaluationId}`);
}

/** The scenarios' trace ids in test set order, read through GraphQL (REST's 2.3 shape has no trace id). */
export async function scenarioTraceIds(server: TestServer, evaluationId: string): Promise<{ position: number; trace_id: string | null }[]> {
  const response = await server.graphql(`query($id: ID!) { evaluation(id: $id) { scenarios(first: 100) { edges { node { position traceId } } } } }`, {
    id: globalId('Evaluation', evaluationId),
  });
  if (response.errors) throw new Error(JSON.stringify(response.errors));
  return response.data.evaluation.scenarios.edges.map(({ node }: any) => ({ position: node.position, trace_id: node.traceId }));
}
