// POST /evaluations (docs/contract.md 4.3, docs/evaluations.md): every 422 with its exact
// loc/type/msg, the 404s that name the missing thing, the provider-key check of prompt variants,
// and the contract array answered at once on success.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { startEndpoint, startFakeOpenAI, type FakeEndpoint } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';

const server = useTestServer();
const app = fixtures.useApp(server, 'validation');
let endpoint: FakeEndpoint;
let openai: FakeEndpoint;
let otherAppId: string;
let variantIds: string[];
let otherVariantId: string;
let promptVariantId: string;
let mistralVariantId: string;
let testset: { id: string; name: string };
let configId: string;
let codeConfigId: string;

beforeAll(async () => {
  endpoint = await startEndpoint(() => ({ body: 'ok' }));
  openai = await startFakeOpenAI(() => ({ content: 'ok', usage: { prompt_tokens: 1, completion_tokens: 1 } }));
  otherAppId = await fixtures.createApp(server, 'other');
  variantIds = [
    (await fixtures.createEndpointVariant(server, app.id, endpoint.url, { name: 'first' })).variant_id,
    (await fixtures.createEndpointVariant(server, app.id, endpoint.url, { name: 'second' })).variant_id,
  ];
  otherVariantId = (await fixtures.createEndpointVariant(server, otherAppId, endpoint.url, { name: 'foreign' })).variant_id;
  promptVariantId = (
    await fixtures.createPromptVariant(server, app.id, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Capital of {country}?' }] }, 'prompted')
  ).variant_id;
  mistralVariantId = (
    await fixtures.createPromptVariant(server, app.id, { model: 'mistral/mistral-small', messages: [{ role: 'user', content: '{country}' }] }, 'mistral')
  ).variant_id;
  testset = await fixtures.createTestset(server, [{ country: 'France', correct_answer: 'ok' }], 'one row');
  configId = (await fixtures.createConfig(server, app.id, 'auto_exact_match', {}, 'exact')).id;
  codeConfigId = (
    await fixtures.createConfig(server, app.id, 'auto_custom_code_run', { code: 'function evaluate() { return 1 }', runtime: 'javascript' }, 'code')
  ).id;
});

afterAll(async () => {
  await endpoint?.close();
  await openai?.close();
});

function validBody(): Record<string, any> {
  return {
    app_id: app.id,
    variant_ids: [variantIds[0]],
    evaluators_configs: [configId],
    testset_id: testset.id,
    rate_limit: { ...fixtures.FAST },
  };
}

async function evaluationsOfApp(): Promise<number> {
  return (await server.request('GET', `/evaluations?app_id=${app.id}`)).body.length;
}

/** Posts and expects 422 with exactly `detail`; checks nothing was created. */
async function expect422(body: unknown, detail: unknown[]): Promise<void> {
  const before = await evaluationsOfApp();
  const response = await server.request('POST', '/evaluations', body);
  expect(response.status, response.text).toBe(422);
  expect(response.body).toEqual({ detail });
  expect(await evaluationsOfApp()).toBe(before);
}

const missing = (...path: (string | number)[]) => ({ loc: ['body', ...path], msg: 'Field required', type: 'missing' });

describe('POST /evaluations validation (422)', () => {
  it('lists every missing required field', async () => {
    await expect422({}, [missing('app_id'), missing('variant_ids'), missing('evaluators_configs'), missing('testset_id'), missing('rate_limit')]);
    await expect422({ ...validBody(), rate_limit: {} }, [
      missing('rate_limit', 'batch_size'),
      missing('rate_limit', 'max_retries'),
      missing('rate_limit', 'retry_delay'),
      missing('rate_limit', 'delay_between_batches'),
    ]);
  });

  const bounds: [field: string, value: number, type: string, msg: string][] = [
    ['batch_size', 0, 'greater_than_equal', 'Input should be greater than or equal to 1'],
    ['batch_size', 1001, 'less_than_equal', 'Input should be less than or equal to 1000'],
    ['max_retries', -1, 'greater_than_equal', 'Input should be greater than or equal to 0'],
    ['max_retries', 21, 'less_than_equal', 'Input should be less than or equal to 20'],
    ['retry_delay', -1, 'greater_than_equal', 'Input should be greater than or equal to 0'],
    ['retry_delay', 3601, 'less_than_equal', 'Input should be less than or equal to 3600'],
    ['delay_between_batches', -1, 'greater_than_equal', 'Input should be greater than or equal to 0'],
    ['delay_between_batches', 3601, 'less_than_equal', 'Input should be less than or equal to 3600'],
  ];
  it.each(bounds)('rejects rate_limit.%s = %d (%s)', async (field, value, type, msg) => {
    const body = validBody();
    body.rate_limit[field] = value;
    await expect422(body, [{ loc: ['body', 'rate_limit', field], msg, type }]);
  });

  it('accepts the bounds themselves', async () => {
    for (const rate_limit of [
      { batch_size: 1, max_retries: 0, retry_delay: 0, delay_between_batches: 0 },
      { batch_size: 1000, max_retries: 20, retry_delay: 3600, delay_between_batches: 3600 },
    ]) {
      const response = await server.request('POST', '/evaluations', { ...validBody(), rate_limit });
      expect(response.status, response.text).toBe(200);
      // The second one would wait an hour between batches; it has a single batch and ends at once.
      await fixtures.waitForStatus(server, response.body[0].id);
    }
  });

  it("reads rate limits as pydantic's lax mode does: whole numbers, numeric strings and booleans pass; fractions do not", async () => {
    await expect422({ ...validBody(), rate_limit: { batch_size: 1.5, max_retries: ' 2 ', retry_delay: 0.5, delay_between_batches: true } }, [
      { loc: ['body', 'rate_limit', 'batch_size'], msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float' },
      { loc: ['body', 'rate_limit', 'retry_delay'], msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float' },
    ]);
    await expect422({ ...validBody(), rate_limit: { batch_size: 'abc', max_retries: [], retry_delay: 1e22, delay_between_batches: '5.0' } }, [
      { loc: ['body', 'rate_limit', 'batch_size'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
      { loc: ['body', 'rate_limit', 'max_retries'], msg: 'Input should be a valid integer', type: 'int_type' },
      { loc: ['body', 'rate_limit', 'retry_delay'], msg: 'Unable to parse input string as an integer, exceeded maximum size', type: 'int_parsing_size' },
    ]);
  });

  it('rejects values of the wrong type, with the array index in loc', async () => {
    await expect422({ ...validBody(), variant_ids: [variantIds[0], 123] }, [
      { loc: ['body', 'variant_ids', 1], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
    await expect422({ ...validBody(), variant_ids: [123] }, [{ loc: ['body', 'variant_ids', 0], msg: 'Input should be a valid string', type: 'string_type' }]);
    await expect422({ ...validBody(), variant_ids: variantIds[0] }, [{ loc: ['body', 'variant_ids'], msg: 'Input should be a valid list', type: 'list_type' }]);
    const notModel = { msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' };
    await expect422({ ...validBody(), rate_limit: 'fast' }, [{ loc: ['body', 'rate_limit'], ...notModel }]);
    await expect422({ ...validBody(), testset_id: 7 }, [{ loc: ['body', 'testset_id'], msg: 'Input should be a valid string', type: 'string_type' }]);
    await expect422([validBody()], [{ loc: ['body'], ...notModel }]);
  });

  it('rejects empty lists and empty ids', async () => {
    await expect422({ ...validBody(), variant_ids: [], evaluators_configs: [] }, [
      { loc: ['body', 'variant_ids'], msg: 'List should have at least 1 item', type: 'too_short' },
      { loc: ['body', 'evaluators_configs'], msg: 'List should have at least 1 item', type: 'too_short' },
    ]);
    await expect422({ ...validBody(), app_id: '' }, [{ loc: ['body', 'app_id'], msg: 'String should have at least 1 character', type: 'string_too_short' }]);
  });

  it('rejects lm_providers_keys with a bad key name or a non-string value', async () => {
    const response = await server.request('POST', '/evaluations', { ...validBody(), lm_providers_keys: { openai: 'sk-1', OPENAI_API_KEY: 5 } });
    expect(response.status).toBe(422);
    expect(response.body.detail.map(({ loc, type }: any) => ({ loc, type }))).toEqual([
      { loc: ['body', 'lm_providers_keys', 'openai', '[key]'], type: 'string_pattern_mismatch' },
      { loc: ['body', 'lm_providers_keys', 'OPENAI_API_KEY'], type: 'string_type' },
    ]);
    await expect422({ ...validBody(), lm_providers_keys: ['sk-1'] }, [
      { loc: ['body', 'lm_providers_keys'], msg: 'Input should be a valid dictionary', type: 'dict_type' },
    ]);
  });

  it('explains which key names lm_providers_keys takes', async () => {
    const response = await server.request('POST', '/evaluations', { ...validBody(), lm_providers_keys: { openai: 'sk-1' } });
    expect(response.body.detail).toEqual([
      {
        loc: ['body', 'lm_providers_keys', 'openai', '[key]'],
        msg: 'Keys are <PROVIDER>_API_KEY or <PROVIDER>_BASE_URL, e.g. OPENAI_API_KEY',
        type: 'string_pattern_mismatch',
      },
    ]);
  });

  it('lists several faults of one request together', async () => {
    await expect422(
      {
        app_id: 5,
        variant_ids: [],
        testset_id: testset.id,
        rate_limit: { batch_size: 0, max_retries: 21, retry_delay: -1, delay_between_batches: 3601 },
        correct_answer_column: 3,
      },
      [
        { loc: ['body', 'app_id'], msg: 'Input should be a valid string', type: 'string_type' },
        { loc: ['body', 'variant_ids'], msg: 'List should have at least 1 item', type: 'too_short' },
        missing('evaluators_configs'),
        { loc: ['body', 'rate_limit', 'batch_size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' },
        { loc: ['body', 'rate_limit', 'max_retries'], msg: 'Input should be less than or equal to 20', type: 'less_than_equal' },
        { loc: ['body', 'rate_limit', 'retry_delay'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' },
        { loc: ['body', 'rate_limit', 'delay_between_batches'], msg: 'Input should be less than or equal to 3600', type: 'less_than_equal' },
        { loc: ['body', 'correct_answer_column'], msg: 'Input should be a valid string', type: 'string_type' },
      ],
    );
  });

  it('answers json_invalid for a body that is not JSON', async () => {
    const response = await server.request('POST', '/evaluations', '{"app_id": ');
    expect(response.status).toBe(422);
    expect(response.body.detail).toHaveLength(1);
    expect(response.body.detail[0]).toMatchObject({ msg: 'JSON decode error', type: 'json_invalid' });
    expect(response.body.detail[0].loc[0]).toBe('body');
  });

  it('accepts a custom code evaluator, which needs no provider key', async () => {
    const response = await server.request('POST', '/evaluations', { ...validBody(), evaluators_configs: [configId, codeConfigId] });
    expect(response.status, response.text).toBe(200);
    expect((await fixtures.waitForStatus(server, response.body[0].id)).status.value).toBe('EVALUATION_FINISHED');
  });

  it("refuses an AI critique whose {column} placeholders are not columns of the test set, at the config's index", async () => {
    const fine = await fixtures.createConfig(server, app.id, 'auto_ai_critique', {
      prompt_template: [{ role: 'user', content: 'Country {country}, answer {prediction}, expected {ground_truth}, all {inputs}' }],
    });
    const missing = await fixtures.createConfig(
      server,
      app.id,
      'auto_ai_critique',
      {
        prompt_template: [
          { role: 'system', content: 'Judge.' },
          { role: 'user', content: '{prediction} for {question} in {language}' },
        ],
      },
      'critique-missing',
    );
    // Its own provider, so the other tests' count of provider calls stays theirs.
    const judge = await startFakeOpenAI(() => ({ content: '7' }));
    const keys = { OPENAI_API_KEY: 'sk-1', OPENAI_BASE_URL: judge.url };
    await expect422({ ...validBody(), evaluators_configs: [fine.id, configId, missing.id], lm_providers_keys: keys }, [
      {
        loc: ['body', 'evaluators_configs', 2],
        msg:
          'The prompt of evaluator config critique-missing uses {question}, {language}, but test set one row has no column "question", "language" ' +
          '(columns: country, correct_answer; the evaluator fills {prediction}, {variant_output}, {ground_truth}, {correct_answer}, {inputs})',
        type: 'value_error',
      },
    ]);
    const response = await server.request('POST', '/evaluations', { ...validBody(), evaluators_configs: [fine.id], lm_providers_keys: keys });
    expect(response.status, response.text).toBe(200);
    expect((await fixtures.waitForStatus(server, response.body[0].id)).status.value).toBe('EVALUATION_FINISHED');
    expect(judge.requests[0].body.messages).toEqual([{ role: 'user', content: 'Country France, answer ok, expected ok, all {"country":"France"}' }]);
    await judge.close();
  });
});

describe('POST /evaluations: provider keys of evaluators', () => {
  it("answers 422 at lm_providers_keys when an evaluator's model has no key, naming its provider once", async () => {
    const critique = await fixtures.createConfig(server, app.id, 'auto_ai_critique', {});
    const semantic = await fixtures.createConfig(server, app.id, 'auto_semantic_similarity', {});
    const rag = await fixtures.createConfig(server, app.id, 'rag_faithfulness', { model: 'mistral/mistral-small' });
    const body = { ...validBody(), evaluators_configs: [configId, critique.id, semantic.id] };
    await expect422(body, [
      {
        loc: ['body', 'lm_providers_keys'],
        msg: "No provider key for OPENAI_API_KEY: give it in lm_providers_keys or set it in the server's environment",
        type: 'value_error',
      },
    ]);
    // The judge's model names its provider: an OpenAI key does not serve a Mistral judge.
    await expect422({ ...body, evaluators_configs: [rag.id], lm_providers_keys: { OPENAI_API_KEY: 'sk-1' } }, [
      {
        loc: ['body', 'lm_providers_keys'],
        msg: "No provider key for MISTRAL_API_KEY: give it in lm_providers_keys or set it in the server's environment",
        type: 'value_error',
      },
    ]);
    // One check for variants and evaluators: both providers are named.
    await expect422({ ...body, variant_ids: [mistralVariantId] }, [
      {
        loc: ['body', 'lm_providers_keys'],
        msg: "No provider key for MISTRAL_API_KEY, OPENAI_API_KEY: give it in lm_providers_keys or set it in the server's environment",
        type: 'value_error',
      },
    ]);
    expect(openai.requests).toHaveLength(0);
  });
});

describe('POST /evaluations: provider keys of prompt variants', () => {
  it('answers 422 at lm_providers_keys when neither the request nor the server has a key', async () => {
    await expect422({ ...validBody(), variant_ids: [variantIds[0], promptVariantId] }, [
      {
        loc: ['body', 'lm_providers_keys'],
        msg: "No provider key for OPENAI_API_KEY: give it in lm_providers_keys or set it in the server's environment",
        type: 'value_error',
      },
    ]);
    // A key of another provider does not count; the provider comes from the model's prefix.
    await expect422({ ...validBody(), variant_ids: [mistralVariantId], lm_providers_keys: { OPENAI_API_KEY: 'sk-1' } }, [
      {
        loc: ['body', 'lm_providers_keys'],
        msg: "No provider key for MISTRAL_API_KEY: give it in lm_providers_keys or set it in the server's environment",
        type: 'value_error',
      },
    ]);
    expect(openai.requests).toHaveLength(0);
  });

  it('accepts the prompt variant once the request carries the key', async () => {
    const response = await server.request('POST', '/evaluations', {
      ...validBody(),
      variant_ids: [promptVariantId],
      lm_providers_keys: { OPENAI_API_KEY: 'sk-1', OPENAI_BASE_URL: openai.url },
    });
    expect(response.status, response.text).toBe(200);
    expect((await fixtures.waitForStatus(server, response.body[0].id)).status.value).toBe('EVALUATION_FINISHED');
  });
});

describe('POST /evaluations: unknown things (404)', () => {
  const cases: [string, () => Record<string, unknown>, () => string][] = [
    ['an unknown app', () => ({ ...validBody(), app_id: 'no-such-app' }), () => 'App with id no-such-app not found'],
    ['a variant of another app', () => ({ ...validBody(), variant_ids: [variantIds[0], otherVariantId] }), () => `Variant with id ${otherVariantId} not found`],
    ['an unknown variant', () => ({ ...validBody(), variant_ids: ['no-such-variant'] }), () => 'Variant with id no-such-variant not found'],
    ['an unknown test set', () => ({ ...validBody(), testset_id: 'no-such-testset' }), () => 'Testset with id no-such-testset not found'],
    [
      'an unknown evaluator config',
      () => ({ ...validBody(), evaluators_configs: [configId, 'no-such-config'] }),
      () => 'EvaluatorConfig with id no-such-config not found',
    ],
  ];
  it.each(cases)('answers 404 naming %s and creates nothing', async (_what, body, detail) => {
    const before = await evaluationsOfApp();
    const response = await server.request('POST', '/evaluations', body());
    expect(response.status, response.text).toBe(404);
    expect(response.body).toEqual({ detail: detail() });
    expect(await evaluationsOfApp()).toBe(before);
  });
});

describe('POST /evaluations: the answer (docs/contract.md 4.3 → array of 2.4)', () => {
  it('creates one evaluation per variant, in request order, initialized, pinned to the current revision', async () => {
    // The second variant is at revision 2 when the evaluation is created.
    const updated = await server.request('PUT', `/variants/${variantIds[1]}/parameters`, { parameters: { temperature: 0.3 } });
    expect(updated.status, updated.text).toBe(200);
    const revisions = (await server.request('GET', `/variants/${variantIds[1]}/revisions`)).body;
    const revisionsOfFirst = (await server.request('GET', `/variants/${variantIds[0]}/revisions`)).body;
    const projectId = (await server.request('GET', `/variants/${variantIds[0]}`)).body.project_id;
    expect(typeof projectId).toBe('string');

    const ordered = [variantIds[1], variantIds[0]];
    const before = Date.now();
    const response = await server.request('POST', '/evaluations', { ...validBody(), variant_ids: ordered });
    expect(response.status, response.text).toBe(200);
    const created = response.body;
    expect(Array.isArray(created)).toBe(true);
    expect(created).toHaveLength(2);

    const expected = [
      { variant: variantIds[1], name: 'second', revisionId: revisions[1].id, revision: '2' },
      { variant: variantIds[0], name: 'first', revisionId: revisionsOfFirst[0].id, revision: '1' },
    ];
    expect(revisions.map((r: any) => r.revision)).toEqual([1, 2]);
    created.forEach((evaluation: any, index: number) => {
      expect(Object.keys(evaluation).sort()).toEqual(fixtures.EVALUATION_FIELDS);
      expect(evaluation).toEqual({
        id: expect.any(String),
        app_id: app.id,
        project_id: projectId,
        variant_ids: [expected[index].variant],
        variant_names: [expected[index].name],
        variant_revision_ids: [expected[index].revisionId],
        revisions: [expected[index].revision],
        testset_id: testset.id,
        testset_name: 'one row',
        status: { type: 'status', value: 'EVALUATION_INITIALIZED', error: null },
        aggregated_results: [],
        average_cost: null,
        total_cost: null,
        average_latency: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      for (const field of ['created_at', 'updated_at']) {
        const text = evaluation[field];
        expect(new Date(text).toISOString()).toBe(text);
        expect(Date.parse(text)).toBeGreaterThanOrEqual(before - 1000);
      }
    });
    expect(created[0].id).not.toBe(created[1].id);

    // Both are readable and run to the end in the background.
    for (const evaluation of created) {
      expect((await fixtures.waitForStatus(server, evaluation.id)).status.value).toBe('EVALUATION_FINISHED');
      expect((await server.request('GET', `/evaluations/${evaluation.id}`)).body.revisions).toEqual(evaluation.revisions);
    }
    // The pinned revision's parameters were sent.
    const sent = endpoint.requests.filter((request) => request.body?.parameters?.temperature === 0.3);
    expect(sent).toHaveLength(1);
  });
});
