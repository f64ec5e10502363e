// Fixtures for tests of human evaluations: create one through REST and wait until its outputs are
// generated (its status leaves INITIALIZED/STARTED).
import { TERMINAL_STATUSES, createApp, createEndpointVariant, createTestset, pollUntil, type Requester } from './evaluations.js';

export interface HumanEvaluationRequest {
  app_id: string;
  variant_ids: string[];
  evaluation_type: 'human_a_b_testing' | 'single_model_test';
  inputs: string[];
  testset_id: string;
  status?: string;
}

/** POST /human-evaluations; the created HumanEvaluation (docs/contract.md 2.6). */
export async function createHumanEvaluation(server: Requester, body: HumanEvaluationRequest): Promise<any> {
  const response = await server.request('POST', '/human-evaluations', body);
  if (response.status !== 200) throw new Error(`POST /human-evaluations answered ${response.status}: ${response.text}`);
  return response.body;
}

/** Polls GET /human-evaluations/{id} until its status is one of `statuses` (default: any end state). */
export async function waitForHumanStatus(
  server: Requester,
  evaluationId: string,
  statuses: readonly string[] = TERMINAL_STATUSES,
  timeoutMs = 10_000,
): Promise<any> {
  return pollUntil<any>(
    server,
    `/human-evaluations/${evaluationId}`,
    (body) => statuses.includes(body.status),
    `human evaluation ${evaluationId} did not reach ${statuses.join('|')}`,
    timeoutMs,
  );
}

/** PUT /human-evaluations/{id}/evaluation_scenario/{scenario_id}/{type} expecting 200; the scenario (2.7). */
export async function judge(server: Requester, evaluationId: string, scenarioId: string, type: string, body: Record<string, unknown>): Promise<any> {
  const response = await server.request('PUT', `/human-evaluations/${evaluationId}/evaluation_scenario/${scenarioId}/${type}`, body);
  if (response.status !== 200) throw new Error(`judging ${scenarioId} answered ${response.status}: ${response.text}`);
  return response.body;
}

/**
 * A single-model human evaluation of an endpoint app over `rows` (the variant sent `inputs`),
 * waited for until its outputs are generated; its app id and the HumanEvaluation (2.6).
 */
export async function generateSingleModelEvaluation(
  server: Requester,
  endpointUrl: string,
  rows: Record<string, unknown>[],
  inputs: string[],
): Promise<{ appId: string; evaluation: any }> {
  const appId = await createApp(server);
  const variant = await createEndpointVariant(server, appId, endpointUrl);
  const testset = await createTestset(server, rows);
  const created = await createHumanEvaluation(server, {
    app_id: appId,
    variant_ids: [variant.variant_id],
    evaluation_type: 'single_model_test',
    inputs,
    testset_id: testset.id,
  });
  return { appId, evaluation: await waitForHumanStatus(server, created.id) };
}
