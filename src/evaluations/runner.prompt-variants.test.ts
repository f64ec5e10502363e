// Prompt variants run by Assay against an OpenAI-compatible Chat Completions API
// (docs/evaluations.md#what-a-variant-is-sent), played by a local fake: the exact request
// (placeholders filled, model, temperature, max_tokens), the key from lm_providers_keys or from the
// server's environment, the cost worked out by hand from the reported usage and the price table,
// JSON mode, and a provider refusal.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../shared/secrets.js';
import { useTestServer, onPostgres, startServer, type TestServer } from '../../test/helpers/server.js';
import { type FakeEndpoint, createGate, startFakeOpenAI } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';

const server = useTestServer();
let envServer: TestServer;
let openai: FakeEndpoint;

const rows = [
  { country: 'France', language: 'English', correct_answer: 'Paris' },
  { country: 'Peru', language: 'Spanish', correct_answer: 'Lima' },
];

const parameters = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Answer with the city only.' },
    { role: 'user', content: 'Capital of {country}, in {language}? Reply like {"city": "…"}; keep {unknown}.' },
  ],
  temperature: 0.2,
  max_tokens: 16,
};

/** The messages the provider must receive for a row: its columns filled in, other braces kept. */
function filledMessages(row: (typeof rows)[number]) {
  return [
    { role: 'system', content: 'Answer with the city only.' },
    { role: 'user', content: `Capital of ${row.country}, in ${row.language}? Reply like {"city": "…"}; keep {unknown}.` },
  ];
}

// Usage reported per country. Prices of gpt-4o-mini per 1M tokens: input 0.15, cached input 0.075, output 0.60.
// France: (30 × 0.15 + 2 × 0.60) / 1e6 = 5.7e-6.
// Peru, 10 of its 30 prompt tokens cached: (20 × 0.15 + 10 × 0.075 + 4 × 0.60) / 1e6 = 6.15e-6.
const usage: Record<string, Record<string, unknown>> = {
  France: { prompt_tokens: 30, completion_tokens: 2, total_tokens: 32 },
  Peru: { prompt_tokens: 30, completion_tokens: 4, total_tokens: 34, prompt_tokens_details: { cached_tokens: 10 } },
};
const costs = [5.7e-6, 6.15e-6];

beforeAll(async () => {
  openai = await startFakeOpenAI((body, request) => {
    if (request.headers.authorization === 'Bearer sk-bad') return { status: 401, content: 'bad key' };
    const country = rows.find((row) => (body.messages[1].content as string).includes(row.country))!.country;
    const city = country === 'France' ? 'Paris' : 'Lima';
    const content = body.response_format ? JSON.stringify({ city }) : city;
    return { content, model: `${body.model}-2024-07-18`, usage: usage[country] };
  });
  envServer = await startServer({ OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: openai.url });
});

afterAll(async () => {
  await envServer?.close();
  await openai?.close();
});

/** A prompt variant of a new app, a test set of `rows` and an exact-match config: the request that evaluates them. */
async function setup(target: TestServer, variantParameters: Record<string, unknown> = parameters) {
  const appId = await fixtures.createApp(target);
  const variant = await fixtures.createPromptVariant(target, appId, variantParameters, 'capital-prompt');
  const testset = await fixtures.createTestset(target, rows);
  const exact = await fixtures.createConfig(target, appId, 'auto_exact_match');
  return { app_id: appId, variant_ids: [variant.variant_id], evaluators_configs: [exact.id], testset_id: testset.id };
}

function callsWithKey(key: string) {
  return openai.requests.filter((request) => request.headers.authorization === `Bearer ${key}`);
}

describe('prompt variants', () => {
  it('sends the filled messages, model and sampling parameters with the key given in lm_providers_keys', async () => {
    const request = await setup(server);
    const { id } = await fixtures.startEvaluation(server, {
      ...request,
      rate_limit: { batch_size: 1 },
      lm_providers_keys: { OPENAI_API_KEY: 'sk-request', OPENAI_BASE_URL: openai.url },
    });
    expect(await fixtures.waitForStatus(server, id)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED', error: null },
      progress: { total: 2, done: 2, errors: 0 },
    });

    const calls = callsWithKey('sk-request');
    expect(calls).toHaveLength(2);
    for (const [index, call] of calls.entries()) {
      expect(call.method).toBe('POST');
      expect(call.path).toBe('/v1/chat/completions');
      expect(call.headers['content-type']).toMatch(/^application\/json/);
      expect(call.body).toEqual({ model: 'gpt-4o-mini', messages: filledMessages(rows[index]), temperature: 0.2, max_tokens: 16 });
    }

    const scenarios = await fixtures.getScenarios(server, id);
    expect(scenarios.map((s) => s.inputs)).toEqual(
      rows.map((row) => [
        { name: 'country', type: 'text', value: row.country },
        { name: 'language', type: 'text', value: row.language },
      ]),
    );
    expect(scenarios.map((s) => s.outputs[0].result)).toEqual([
      { type: 'text', value: 'Paris', error: null },
      { type: 'text', value: 'Lima', error: null },
    ]);
    scenarios.forEach((scenario, index) => {
      expect(scenario.outputs[0].cost).toBeCloseTo(costs[index], 15);
      expect(scenario.outputs[0].latency).toBeGreaterThan(0);
      expect(scenario.outputs[0].latency).toBeLessThan(5);
      expect(scenario.results).toEqual([{ evaluator_config: request.evaluators_configs[0], result: { type: 'bool', value: true, error: null } }]);
    });

    const evaluation = await fixtures.getEvaluation(server, id);
    // 5.7e-6 + 6.15e-6 = 1.185e-5; mean 5.925e-6.
    expect(evaluation.total_cost.value).toBeCloseTo(1.185e-5, 15);
    expect(evaluation.average_cost.value).toBeCloseTo(5.925e-6, 15);
    expect(evaluation.aggregated_results.map((a: any) => a.result)).toEqual([{ type: 'number', value: 1, error: null }]);

    // The invocation's trace is an LLM span with the request as sent, and the call's usage and cost.
    const [trace] = await fixtures.scenarioTraceIds(server, id);
    const span = (await server.request('GET', `/observability/traces/${trace.trace_id}`)).body;
    expect(span).toMatchObject({
      name: 'capital-prompt',
      spankind: 'LLM',
      status: 'OK',
      content: {
        inputs: { model: 'gpt-4o-mini', messages: filledMessages(rows[0]), temperature: 0.2, max_tokens: 16 },
        outputs: { output: 'Paris' },
      },
      config: parameters,
    });
    expect(span.metadata.usage).toEqual({ prompt_tokens: 30, completion_tokens: 2, total_tokens: 32 });
    expect(span.metadata.cost).toBeCloseTo(costs[0], 15);
  });

  it('parses the reply as JSON when the variant asks for a JSON response format', async () => {
    const request = await setup(server, { ...parameters, response_format: { type: 'json_object' } });
    const { id } = await fixtures.startEvaluation(server, {
      ...request,
      lm_providers_keys: { OPENAI_API_KEY: 'sk-json', OPENAI_BASE_URL: openai.url },
    });
    await fixtures.waitForStatus(server, id);
    const calls = callsWithKey('sk-json');
    expect(calls).toHaveLength(2);
    expect(calls[0].body.response_format).toEqual({ type: 'json_object' });
    const scenarios = await fixtures.getScenarios(server, id);
    expect(scenarios.map((s) => s.outputs[0].result)).toEqual([
      { type: 'json', value: { city: 'Paris' }, error: null },
      { type: 'json', value: { city: 'Lima' }, error: null },
    ]);
  });

  it('stores the provider refusal as the output, without retrying a 401', async () => {
    const request = await setup(server);
    const { id } = await fixtures.startEvaluation(server, {
      ...request,
      rate_limit: { max_retries: 2 },
      lm_providers_keys: { OPENAI_API_KEY: 'sk-bad', OPENAI_BASE_URL: openai.url },
    });
    expect(await fixtures.waitForStatus(server, id)).toEqual({
      status: { type: 'status', value: 'EVALUATION_FINISHED_WITH_ERRORS', error: null },
      progress: { total: 2, done: 2, errors: 2 },
    });
    expect(callsWithKey('sk-bad')).toHaveLength(2);
    const scenarios = await fixtures.getScenarios(server, id);
    expect(scenarios[0].outputs).toEqual([
      {
        result: { type: 'error', value: null, error: { message: 'OPENAI answered 401: {"error":{"message":"bad key"}}', stacktrace: null } },
        cost: null,
        latency: null,
      },
    ]);
    expect(scenarios[0].results[0].result.type).toBe('error');
  });

  it("uses the server's OPENAI_API_KEY and OPENAI_BASE_URL when the request carries no key; a request key wins", async () => {
    const request = await setup(envServer);
    const fromEnv = await fixtures.startEvaluation(envServer, request);
    expect((await fixtures.waitForStatus(envServer, fromEnv.id)).status.value).toBe('EVALUATION_FINISHED');
    const envCalls = callsWithKey('sk-env');
    expect(envCalls).toHaveLength(2);
    expect(envCalls.map((call) => call.body.messages)).toEqual(rows.map(filledMessages));

    // The key of the request wins; the base URL still comes from the environment.
    const fromRequest = await fixtures.startEvaluation(envServer, { ...request, lm_providers_keys: { OPENAI_API_KEY: 'sk-request-2' } });
    expect((await fixtures.waitForStatus(envServer, fromRequest.id)).status.value).toBe('EVALUATION_FINISHED');
    expect(callsWithKey('sk-request-2')).toHaveLength(2);
    expect(callsWithKey('sk-env')).toHaveLength(2);
    const scenarios = await fixtures.getScenarios(envServer, fromRequest.id);
    expect(scenarios.map((s) => s.outputs[0].result.value)).toEqual(['Paris', 'Lima']);
  });

  it('keeps the keys of a run sealed in the database while it runs, and calls the provider with them', async () => {
    const gate = createGate();
    const gated = await startFakeOpenAI(async () => {
      await gate.wait();
      return { content: 'Paris' };
    });
    try {
      const request = await setup(server);
      const key = 'sk-kept-sealed-4f1c9a';
      const { id } = await fixtures.startEvaluation(server, {
        ...request,
        lm_providers_keys: { OPENAI_API_KEY: key, OPENAI_BASE_URL: gated.url },
      });
      await gated.waitForRequests(2);
      const row = await server.assay.db.evaluation.findUniqueOrThrow({ where: { id } });
      expect(row.providerKeys).toMatch(/^sealed:v1:[A-Za-z0-9+/=]+$/);
      // Nowhere in the database's files, not even in a page written and replaced since (SQLite's
      // files are ours to read; PostgreSQL's are the server's).
      if (!onPostgres) for (const file of ['assay.db', 'assay.db-wal']) expect(readFileSync(join(server.dir, file)).includes(key)).toBe(false);
      gate.open();
      expect((await fixtures.waitForStatus(server, id)).status.value).toBe('EVALUATION_FINISHED');
      expect(gated.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${key}`, `Bearer ${key}`]);
      expect((await server.assay.db.evaluation.findUniqueOrThrow({ where: { id } })).providerKeys).toBeNull();
    } finally {
      gate.open();
      await gated.close();
    }
  });

  it('fails a resumed run whose keys were sealed under another secret key, saying so', async () => {
    const resuming = await startServer({ EVALUATION_LEASE_SECONDS: '1' });
    try {
      const request = await setup(resuming);
      const { id } = await fixtures.startEvaluation(resuming, {
        ...request,
        lm_providers_keys: { OPENAI_API_KEY: 'sk-other', OPENAI_BASE_URL: openai.url },
      });
      await fixtures.waitForStatus(resuming, id);
      // As if a process that died mid-run had sealed them under another key.
      const foreign = new SecretBox(randomBytes(32)).seal({ OPENAI_API_KEY: 'sk-other' });
      await resuming.assay.db.evaluation.update({
        where: { id },
        data: { status: 'EVALUATION_STARTED', providerKeys: foreign, leaseOwner: 'dead-process', leaseExpiresAt: new Date(Date.now() - 1000) },
      });
      const ended = await fixtures.waitForStatus(resuming, id);
      expect(ended.status.value).toBe('EVALUATION_FAILED');
      expect(ended.status.error?.message).toMatch(/^The provider keys given for this evaluation cannot be read: the server's secret key/);
    } finally {
      await resuming.close();
    }
  });
});
