// The human evaluation routes (docs/contract.md, docs/human-evaluations.md): every 422 and 404,
// each with its exact body, and lists and deletes. Evaluations here are created with a final status so no output is
// generated: the scenarios' outputs are filled through the PUT, as a client that runs the variants
// itself would.
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, createEndpointVariant, createPromptVariant, createTestset } from '../../test/helpers/evaluations.js';
import { createHumanEvaluation } from '../../test/helpers/human-evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';

const server = useTestServer();
let appId: string;
let otherAppId: string;
let variantA: string;
let variantB: string;
let foreignVariant: string;
let promptVariant: string;
let testsetId: string;
let abId: string;
let singleId: string;
let abScenario: string;
let singleScenario: string;

const missing = (...loc: (string | number)[]) => ({ loc: ['body', ...loc], msg: 'Field required', type: 'missing' });

beforeAll(async () => {
  appId = await createApp(server, 'checks');
  otherAppId = await createApp(server, 'elsewhere');
  variantA = (await createEndpointVariant(server, appId, 'http://127.0.0.1:9/a', { name: 'a' })).variant_id;
  variantB = (await createEndpointVariant(server, appId, 'http://127.0.0.1:9/b', { name: 'b' })).variant_id;
  foreignVariant = (await createEndpointVariant(server, otherAppId, 'http://127.0.0.1:9/c')).variant_id;
  promptVariant = (await createPromptVariant(server, appId, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: '{country}' }] }, 'prompted'))
    .variant_id;
  testsetId = (await createTestset(server, [{ country: 'France', correct_answer: 'Paris' }, { country: 'Peru' }], 'capitals')).id;
  const base = { app_id: appId, inputs: ['country'], testset_id: testsetId, status: 'EVALUATION_FINISHED' };
  abId = (await createHumanEvaluation(server, { ...base, variant_ids: [variantA, variantB], evaluation_type: 'human_a_b_testing' })).id;
  singleId = (await createHumanEvaluation(server, { ...base, variant_ids: [variantA], evaluation_type: 'single_model_test' })).id;
  abScenario = (await server.request('GET', `/human-evaluations/${abId}/evaluation_scenarios`)).body[0].id;
  singleScenario = (await server.request('GET', `/human-evaluations/${singleId}/evaluation_scenarios`)).body[0].id;
});

function validBody(): Record<string, unknown> {
  return { app_id: appId, variant_ids: [variantA, variantB], evaluation_type: 'human_a_b_testing', inputs: ['country'], testset_id: testsetId };
}

async function expectStatus(method: string, path: string, body: unknown, status: number, expected: unknown): Promise<void> {
  const response = await server.request(method, path, body);
  expect(response.status, response.text).toBe(status);
  expect(response.body).toEqual(expected);
}

async function countEvaluations(): Promise<number> {
  return server.assay.db.humanEvaluation.count();
}

describe('POST /human-evaluations', () => {
  it('lists every missing field', async () => {
    const before = await countEvaluations();
    await expectStatus('POST', '/human-evaluations', {}, 422, {
      detail: [missing('app_id'), missing('variant_ids'), missing('evaluation_type'), missing('inputs'), missing('testset_id')],
    });
    expect(await countEvaluations()).toBe(before);
  });

  it('names each wrongly typed field with its pydantic type word', async () => {
    await expectStatus(
      'POST',
      '/human-evaluations',
      { app_id: 7, variant_ids: 'a', evaluation_type: 'ab', inputs: [1], testset_id: null, status: 'DONE' },
      422,
      {
        detail: [
          { loc: ['body', 'app_id'], msg: 'Input should be a valid string', type: 'string_type' },
          { loc: ['body', 'variant_ids'], msg: 'Input should be a valid list', type: 'list_type' },
          { loc: ['body', 'evaluation_type'], msg: "Input should be 'human_a_b_testing' or 'single_model_test'", type: 'enum' },
          { loc: ['body', 'inputs', 0], msg: 'Input should be a valid string', type: 'string_type' },
          { loc: ['body', 'testset_id'], msg: 'Input should be a valid string', type: 'string_type' },
          {
            loc: ['body', 'status'],
            msg: "Input should be 'EVALUATION_INITIALIZED', 'EVALUATION_STARTED', 'EVALUATION_FINISHED', 'EVALUATION_FINISHED_WITH_ERRORS', 'EVALUATION_FAILED', 'EVALUATION_AGGREGATION_FAILED' or 'EVALUATION_CANCELLED'",
            type: 'enum',
          },
        ],
      },
    );
    await expectStatus('POST', '/human-evaluations', [validBody()], 422, {
      detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }],
    });
    await expectStatus('POST', '/human-evaluations', '{"app_id": ', 422, { detail: [{ loc: ['body', 11], msg: 'JSON decode error', type: 'json_invalid' }] });
    await expectStatus('POST', '/human-evaluations', { ...validBody(), inputs: [], app_id: '' }, 422, {
      detail: [
        { loc: ['body', 'app_id'], msg: 'String should have at least 1 character', type: 'string_too_short' },
        { loc: ['body', 'inputs'], msg: 'List should have at least 1 item', type: 'too_short' },
      ],
    });
  });

  it('wants two different variants for an A/B test and one for a single model test', async () => {
    await expectStatus('POST', '/human-evaluations', { ...validBody(), variant_ids: [variantA] }, 422, {
      detail: [{ loc: ['body', 'variant_ids'], msg: 'human_a_b_testing takes exactly 2 variants, got 1', type: 'value_error' }],
    });
    await expectStatus('POST', '/human-evaluations', { ...validBody(), variant_ids: [] }, 422, {
      detail: [{ loc: ['body', 'variant_ids'], msg: 'human_a_b_testing takes exactly 2 variants, got 0', type: 'value_error' }],
    });
    await expectStatus('POST', '/human-evaluations', { ...validBody(), evaluation_type: 'single_model_test' }, 422, {
      detail: [{ loc: ['body', 'variant_ids'], msg: 'single_model_test takes exactly one variant, got 2', type: 'value_error' }],
    });
    // Also listed beside other faults, and a column named twice.
    await expectStatus(
      'POST',
      '/human-evaluations',
      { ...validBody(), variant_ids: [variantA, variantA], inputs: ['country', 'country'], testset_id: 3 },
      422,
      {
        detail: [
          { loc: ['body', 'testset_id'], msg: 'Input should be a valid string', type: 'string_type' },
          { loc: ['body', 'variant_ids', 1], msg: 'An A/B test compares two different variants', type: 'value_error' },
          { loc: ['body', 'inputs', 1], msg: 'The column country is listed twice', type: 'value_error' },
        ],
      },
    );
  });

  it('names each input column the test set lacks', async () => {
    const before = await countEvaluations();
    await expectStatus('POST', '/human-evaluations', { ...validBody(), inputs: ['colour', 'country', 'size'] }, 422, {
      detail: [
        { loc: ['body', 'inputs', 0], msg: 'The test set capitals has no column colour', type: 'value_error' },
        { loc: ['body', 'inputs', 2], msg: 'The test set capitals has no column size', type: 'value_error' },
      ],
    });
    expect(await countEvaluations()).toBe(before);
  });

  it('wants a provider key for a prompt variant it has to run', async () => {
    await expectStatus('POST', '/human-evaluations', { ...validBody(), variant_ids: [variantA, promptVariant] }, 422, {
      detail: [{ loc: ['body', 'variant_ids', 1], msg: "The prompt variant prompted needs OPENAI_API_KEY in the server's environment", type: 'value_error' }],
    });
    // Not when the client fills the outputs itself.
    const created = await server.request('POST', '/human-evaluations', {
      ...validBody(),
      variant_ids: [variantA, promptVariant],
      status: 'EVALUATION_FINISHED',
    });
    expect(created.status).toBe(200);
  });

  it('answers 404 for an unknown app, a variant of another app, and an unknown test set', async () => {
    const before = await countEvaluations();
    await expectStatus('POST', '/human-evaluations', { ...validBody(), app_id: 'nope' }, 404, { detail: 'App with id nope not found' });
    await expectStatus('POST', '/human-evaluations', { ...validBody(), variant_ids: [variantA, foreignVariant] }, 404, {
      detail: `Variant with id ${foreignVariant} not found`,
    });
    await expectStatus('POST', '/human-evaluations', { ...validBody(), testset_id: 'nope' }, 404, { detail: 'Testset with id nope not found' });
    expect(await countEvaluations()).toBe(before);
  });
});

describe('reads, status and delete', () => {
  it('answers 404 for an unknown evaluation on every route that names one', async () => {
    const notFound = { detail: 'HumanEvaluation with id nope not found' };
    await expectStatus('GET', '/human-evaluations/nope', undefined, 404, notFound);
    await expectStatus('GET', '/human-evaluations/nope/evaluation_scenarios', undefined, 404, notFound);
    await expectStatus('GET', '/human-evaluations/nope/results', undefined, 404, notFound);
    await expectStatus('PUT', '/human-evaluations/nope', { status: 'EVALUATION_FINISHED' }, 404, notFound);
    await expectStatus('DELETE', '/human-evaluations/nope', undefined, 404, notFound);
    await expectStatus('PUT', `/human-evaluations/nope/evaluation_scenario/${abScenario}/human_a_b_testing`, { vote: '1' }, 404, notFound);
    // Served under /api and with a trailing slash too.
    await expectStatus('GET', '/api/human-evaluations/nope/', undefined, 404, notFound);
  });

  it('answers 422 for a list filter that is empty', async () => {
    await expectStatus('GET', '/human-evaluations?app_id=', undefined, 422, {
      detail: [{ loc: ['query', 'app_id'], msg: 'String should have at least 1 character', type: 'string_too_short' }],
    });
  });

  it('answers 422 for a status that is missing or not an evaluation status', async () => {
    await expectStatus('PUT', `/human-evaluations/${abId}`, {}, 422, { detail: [missing('status')] });
    await expectStatus('PUT', `/human-evaluations/${abId}`, undefined, 422, { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
    const response = await server.request('PUT', `/human-evaluations/${abId}`, { status: 'finished' });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      { loc: ['body', 'status'], msg: expect.stringMatching(/^Input should be 'EVALUATION_INITIALIZED', /), type: 'enum' },
    ]);
    expect((await server.request('GET', `/human-evaluations/${abId}`)).body.status).toBe('EVALUATION_FINISHED');
  });

  it('answers 422 for a delete without ids, and 404 (deleting nothing) when one id is unknown', async () => {
    await expectStatus('DELETE', '/human-evaluations', {}, 422, { detail: [missing('evaluations_ids')] });
    await expectStatus('DELETE', '/human-evaluations', { evaluations_ids: [] }, 422, {
      detail: [{ loc: ['body', 'evaluations_ids'], msg: 'List should have at least 1 item', type: 'too_short' }],
    });
    await expectStatus('DELETE', '/human-evaluations', { evaluations_ids: [singleId, 'nope'] }, 404, { detail: 'HumanEvaluation with id nope not found' });
    expect((await server.request('GET', `/human-evaluations/${singleId}`)).status).toBe(200);
  });

  it('lists human evaluations by app, and deletes them by list or by id', async () => {
    const testset = await createTestset(server, [{ question: 'gone' }]);
    const body = {
      app_id: appId,
      variant_ids: [variantA],
      evaluation_type: 'single_model_test' as const,
      inputs: ['question'],
      testset_id: testset.id,
      status: 'EVALUATION_FINISHED',
    };
    const one = await createHumanEvaluation(server, body);
    const two = await createHumanEvaluation(server, body);
    const three = await createHumanEvaluation(server, body);
    const listed = await server.request('GET', `/human-evaluations?app_id=${appId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((e: any) => e.id)).toEqual(expect.arrayContaining([one.id, two.id, three.id]));
    expect((await server.request('GET', '/human-evaluations?app_id=another-app')).body).toEqual([]);

    const deleted = await server.request('DELETE', '/human-evaluations', { evaluations_ids: [one.id, two.id] });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const byId = await server.request('DELETE', `/human-evaluations/${three.id}`);
    expect(byId.status).toBe(204);
    for (const id of [one.id, two.id, three.id]) {
      expect((await server.request('GET', `/human-evaluations/${id}`)).status).toBe(404);
    }
    // Scenarios went with them.
    expect(await server.assay.db.humanEvaluationScenario.count({ where: { humanEvaluationId: { in: [one.id, two.id, three.id] } } })).toBe(0);
  });
});

describe('PUT /human-evaluations/{id}/evaluation_scenario/{scenario_id}/{evaluation_type}', () => {
  const put = (evaluationId: string, scenarioId: string, type: string, body: unknown) =>
    server.request('PUT', `/human-evaluations/${evaluationId}/evaluation_scenario/${scenarioId}/${type}`, body);

  it('answers 404 for an unknown scenario, or one of another evaluation', async () => {
    await expectStatus('PUT', `/human-evaluations/${abId}/evaluation_scenario/nope/human_a_b_testing`, { vote: '1' }, 404, {
      detail: 'HumanEvaluationScenario with id nope not found',
    });
    await expectStatus('PUT', `/human-evaluations/${abId}/evaluation_scenario/${singleScenario}/human_a_b_testing`, { vote: '1' }, 404, {
      detail: `HumanEvaluationScenario with id ${singleScenario} not found`,
    });
  });

  it('lists faults of the path and of the body together', async () => {
    const response = await put(abId, abScenario, 'ab', { vote: 5, score: 'abc', is_pinned: 'maybe', note: 3, judge: '', correct_answer: [], outputs: [{}] });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [
        { loc: ['path', 'evaluation_type'], msg: "Input should be 'human_a_b_testing' or 'single_model_test'", type: 'enum' },
        { loc: ['body', 'vote'], msg: 'Input should be a valid string', type: 'string_type' },
        { loc: ['body', 'score'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
        { loc: ['body', 'correct_answer'], msg: 'Input should be a valid string', type: 'string_type' },
        missing('outputs', 0, 'variant_id'),
        missing('outputs', 0, 'variant_output'),
        { loc: ['body', 'is_pinned'], msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing' },
        { loc: ['body', 'note'], msg: 'Input should be a valid string', type: 'string_type' },
        { loc: ['body', 'judge'], msg: 'String should have at least 1 character', type: 'string_too_short' },
      ],
    });
    await expectStatus('PUT', `/human-evaluations/${abId}/evaluation_scenario/${abScenario}/human_a_b_testing`, '"vote"', 422, {
      detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }],
    });
  });

  it('keeps a score within 0–100 and an integer', async () => {
    for (const [score, fault] of [
      [101, { msg: 'Input should be less than or equal to 100', type: 'less_than_equal' }],
      ['-1', { msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' }],
      [12.5, { msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float' }],
      ['twelve', { msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' }],
      [[12], { msg: 'Input should be a valid integer', type: 'int_type' }],
    ] as const) {
      await expectStatus('PUT', `/human-evaluations/${singleId}/evaluation_scenario/${singleScenario}/single_model_test`, { score }, 422, {
        detail: [{ loc: ['body', 'score'], ...fault }],
      });
    }
  });

  it('answers 422 for a path type, vote or score that does not fit the evaluation', async () => {
    await expectStatus('PUT', `/human-evaluations/${abId}/evaluation_scenario/${abScenario}/single_model_test`, { vote: '1' }, 422, {
      detail: [{ loc: ['path', 'evaluation_type'], msg: 'This evaluation is of type human_a_b_testing, not single_model_test', type: 'value_error' }],
    });
    await expectStatus('PUT', `/human-evaluations/${abId}/evaluation_scenario/${abScenario}/human_a_b_testing`, { vote: 'the left one', score: 50 }, 422, {
      detail: [
        {
          loc: ['body', 'vote'],
          msg: `Input should be a variant id of this evaluation ('${variantA}' or '${variantB}'), '1' (both good) or '0' (both bad)`,
          type: 'value_error',
        },
        { loc: ['body', 'score'], msg: 'A human_a_b_testing scenario is judged with a vote, not a score', type: 'value_error' },
      ],
    });
    await expectStatus('PUT', `/human-evaluations/${singleId}/evaluation_scenario/${singleScenario}/single_model_test`, { vote: variantA }, 422, {
      detail: [{ loc: ['body', 'vote'], msg: 'A single_model_test scenario is judged with a score, not a vote', type: 'value_error' }],
    });
    await expectStatus(
      'PUT',
      `/human-evaluations/${singleId}/evaluation_scenario/${singleScenario}/single_model_test`,
      {
        outputs: [
          { variant_id: variantA, variant_output: 'ok' },
          { variant_id: variantB, variant_output: 'not in this one' },
        ],
      },
      422,
      { detail: [{ loc: ['body', 'outputs', 1, 'variant_id'], msg: `${variantB} is not a variant of this evaluation`, type: 'value_error' }] },
    );
    // Nothing was stored by any of these.
    const [scenario] = (await server.request('GET', `/human-evaluations/${abId}/evaluation_scenarios`)).body;
    expect(scenario).toMatchObject({ vote: null, score: null, outputs: [] });
    expect(await server.assay.db.humanJudgement.count()).toBe(0);
  });

  it('fills outputs given by the client, merged by variant, and withdraws a vote with null', async () => {
    const url = `/human-evaluations/${abId}/evaluation_scenario/${abScenario}/human_a_b_testing`;
    await expectStatus('PUT', url, { outputs: [{ variant_id: variantB, variant_output: 'Lyon' }] }, 200, {
      id: abScenario,
      evaluation_id: abId,
      inputs: [{ input_name: 'country', input_value: 'France' }],
      outputs: [{ variant_id: variantB, variant_output: 'Lyon' }],
      vote: null,
      score: null,
      correct_answer: 'Paris',
      is_pinned: false,
      note: '',
    });
    const both = await server.request('PUT', url, { outputs: [{ variant_id: variantA, variant_output: 'Paris' }], vote: variantA });
    expect(both.body).toMatchObject({
      outputs: [
        { variant_id: variantA, variant_output: 'Paris' },
        { variant_id: variantB, variant_output: 'Lyon' },
      ],
      vote: variantA,
    });
    const withdrawn = await server.request('PUT', url, { vote: null });
    expect(withdrawn.body.vote).toBeNull();
    expect(await server.assay.db.humanJudgement.findMany({ select: { judge: true, vote: true } })).toEqual([{ judge: 'anonymous', vote: null }]);
  });
});
