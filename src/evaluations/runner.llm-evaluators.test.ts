// The model-judged and code evaluators end to end over HTTP, against a local OpenAI-compatible
// server that answers scripted replies and embeddings and records what it was sent: the judge's
// exact messages, parsed scores, error results for bad replies, a retried 429, the judge's cost
// kept apart from the app's (EVALUATOR spans in each case's trace, summed per evaluation), RAG
// paths into the output and the trace, prompt templates refused at config time, and custom code
// whose escape attempts each end in an error result while the service keeps serving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { type FakeEndpoint, startEndpoint, startFakeOpenAI } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';
import { CONTEXT_RELEVANCY_PROMPT, FAITHFULNESS_PROMPT } from '../evaluators/scorers/rag.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();
let openai: FakeEndpoint;
let variantEndpoint: FakeEndpoint;
let ragEndpoint: FakeEndpoint;
let appId: string;
let keys: Record<string, string>;

const capitals: Record<string, string> = { France: 'Paris', Peru: 'Cusco', Chile: 'Santiago' };
const rows = [
  { country: 'France', correct_answer: 'Paris' },
  { country: 'Peru', correct_answer: 'Lima' },
  { country: 'Chile', correct_answer: 'Santiago' },
];
const vectors: Record<string, number[]> = { Paris: [1, 0, 0], Lima: [0, 1, 0], Cusco: [0, 0.6, 0.8], Santiago: [1, 1, 0] };
let peruCalls = 0;

beforeAll(async () => {
  openai = await startFakeOpenAI(
    (body) => {
      const last: string = body.messages.at(-1).content;
      const usage = { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 };
      if (body.messages[0].content === FAITHFULNESS_PROMPT) return { content: '{"score": 0.5, "reason": "one claim of two"}', usage };
      if (body.messages[0].content === CONTEXT_RELEVANCY_PROMPT) return { content: '```json\n{"score": 1}\n```', usage };
      if (last.includes('Paris')) return { content: 'The answer is right.\nScore: 9', usage };
      if (last.includes('Cusco')) {
        peruCalls += 1;
        if (peruCalls === 1) return { status: 429, content: 'rate limited', headers: { 'retry-after': '0' } };
        return { content: '{"score": 2}', usage };
      }
      return { content: 'Looks fine to me', usage };
    },
    (body) => ({ vectors: (body.input as string[]).map((text) => vectors[text] ?? [0, 0, 1]), usage: { prompt_tokens: 4, total_tokens: 4 } }),
  );
  variantEndpoint = await startEndpoint((request) => ({ body: { message: capitals[request.body.inputs.country], cost: 0.001 } }));
  ragEndpoint = await startEndpoint(() => ({
    body: { answer: 'Paris, on the Seine', contexts: ['Paris is the capital of France.', { content: 'The Seine flows through Paris.' }] },
  }));
  appId = await fixtures.createApp(server);
  keys = { OPENAI_API_KEY: 'sk-judge', OPENAI_BASE_URL: openai.url };
});

afterAll(async () => {
  await openai?.close();
  await variantEndpoint?.close();
  await ragEndpoint?.close();
});

const critiquePrompt = [
  { role: 'system', content: 'Rate the answer from 0 to 10. Reply like {{"score": n}}.' },
  { role: 'user', content: 'Country: {country}\nAnswer: {prediction}\nExpected: {correct_answer}' },
];

describe('auto_ai_critique and auto_semantic_similarity', () => {
  it('sends the exact judge messages, parses scores, quotes a reply without one, retries a 429, and keeps the judge cost apart', async () => {
    const variant = await fixtures.createEndpointVariant(server, appId, variantEndpoint.url, { name: 'capitals-v1' });
    const testset = await fixtures.createTestset(server, rows);
    const critique = await fixtures.createConfig(server, appId, 'auto_ai_critique', { prompt_template: critiquePrompt }, 'judge');
    const semantic = await fixtures.createConfig(server, appId, 'auto_semantic_similarity', {}, 'semantic');
    const { id } = await fixtures.startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [critique.id, semantic.id],
      testset_id: testset.id,
      rate_limit: { batch_size: 3, max_retries: 2, retry_delay: 0 },
      lm_providers_keys: keys,
    });
    expect(await fixtures.waitForStatus(server, id)).toMatchObject({
      status: { value: 'EVALUATION_FINISHED_WITH_ERRORS' },
      progress: { total: 3, done: 3, errors: 1 },
    });

    // The judge got each case's messages, filled, at temperature 0; Peru's twice (429, then 200).
    const chats = openai.requests.filter((request) => request.path === '/v1/chat/completions');
    const sent = (country: string) => ({
      model: 'gpt-4o-mini',
      temperature: 0,
      messages: [
        { role: 'system', content: 'Rate the answer from 0 to 10. Reply like {"score": n}.' },
        { role: 'user', content: `Country: ${country}\nAnswer: ${capitals[country]}\nExpected: ${rows.find((r) => r.country === country)!.correct_answer}` },
      ],
    });
    expect(chats.map((request) => request.body).sort((a, b) => a.messages[1].content.localeCompare(b.messages[1].content))).toEqual([
      sent('Chile'),
      sent('France'),
      sent('Peru'),
      sent('Peru'),
    ]);
    expect(chats.every((request) => request.headers.authorization === 'Bearer sk-judge')).toBe(true);
    const embeddings = openai.requests.filter((request) => request.path === '/v1/embeddings').map((request) => request.body);
    expect(embeddings).toHaveLength(3);
    expect(embeddings).toContainEqual({ model: 'text-embedding-3-small', input: ['Cusco', 'Lima'] });

    const scenarios = await fixtures.getScenarios(server, id);
    expect(scenarios.map((s) => s.results.map((r: any) => r.result))).toEqual([
      [
        { type: 'number', value: 9, error: null },
        { type: 'number', value: 1, error: null },
      ],
      [
        { type: 'number', value: 2, error: null },
        { type: 'number', value: expect.closeTo(0.6, 12), error: null },
      ],
      [
        { type: 'error', value: null, error: { message: 'The judge\'s reply has no score: "Looks fine to me"', stacktrace: null } },
        { type: 'number', value: expect.closeTo(1, 12), error: null },
      ],
    ]);
    // The scenarios' cost is the app's alone.
    expect(scenarios.map((s) => s.outputs[0].cost)).toEqual([0.001, 0.001, 0.001]);
    const evaluation = await fixtures.getEvaluation(server, id);
    expect(evaluation.total_cost.value).toBeCloseTo(0.003, 12);
    expect(evaluation).not.toHaveProperty('evaluator_cost');
    expect(evaluation.aggregated_results.map((a: any) => [a.evaluator_config.name, a.result.value])).toEqual([
      ['judge', 5.5],
      ['semantic', expect.closeTo(2.6 / 3, 12)],
    ]);

    // Judge: 3 answered calls × (100 × 0.15 + 5 × 0.60) / 1e6 = 5.4e-5; embeddings: 3 × 4 × 0.02 / 1e6 = 2.4e-7.
    const cost = (await server.request('GET', `/evaluations/${id}/evaluator_cost`)).body;
    expect(cost).toEqual({
      evaluation_id: id,
      total_cost: expect.closeTo(5.424e-5, 15),
      calls: 6,
      evaluators: [
        { evaluator_config_id: critique.id, cost: expect.closeTo(5.4e-5, 15), calls: 3 },
        { evaluator_config_id: semantic.id, cost: expect.closeTo(2.4e-7, 15), calls: 3 },
      ],
    });
    const graphql = await server.graphql(
      'query($id: ID!) { evaluation(id: $id) { totalCost { value } evaluatorCost { totalCost calls evaluators { evaluatorConfigId cost calls } } } }',
      { id: globalId('Evaluation', id) },
    );
    expect(graphql.errors).toBeUndefined();
    expect(graphql.data.evaluation.evaluatorCost).toEqual({
      totalCost: cost.total_cost,
      calls: 6,
      evaluators: cost.evaluators.map(({ evaluator_config_id, ...rest }: any) => ({
        evaluatorConfigId: globalId('EvaluatorConfig', evaluator_config_id),
        ...rest,
      })),
    });

    // Each judge call is an EVALUATOR span under the case's span, in the same trace.
    const traces = await fixtures.scenarioTraceIds(server, id);
    const peru = (await server.request('GET', `/observability/traces/${traces[1].trace_id}`)).body;
    expect(peru).toMatchObject({ name: 'capitals-v1', spankind: 'CHAIN', metadata: { cost: 0.001 } });
    const judgeSpan = peru.children.find((child: any) => child.name === 'judge');
    expect(judgeSpan).toMatchObject({
      spankind: 'EVALUATOR',
      status: 'OK',
      parent_span_id: peru.id,
      trace_id: traces[1].trace_id,
      content: { inputs: sent('Peru'), outputs: { output: '{"score": 2}' } },
      metadata: { usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 } },
    });
    expect(judgeSpan.metadata.cost).toBeCloseTo(1.8e-5, 15);
    expect(peru.children.find((child: any) => child.name === 'semantic')).toMatchObject({
      spankind: 'EVALUATOR',
      content: { inputs: { model: 'text-embedding-3-small', input: ['Cusco', 'Lima'] }, outputs: { output: { dimensions: 3 } } },
    });
  });

  it('refuses a template with a bad placeholder when the config is created or updated, naming it at its message', async () => {
    const bad = [
      { role: 'system', content: 'Judge.' },
      { role: 'user', content: 'Reply {"score": 8} for {prediction}' },
    ];
    const created = await server.request('POST', '/evaluators/configs', {
      app_id: appId,
      name: 'bad-judge',
      evaluator_key: 'auto_ai_critique',
      settings_values: { prompt_template: bad },
    });
    const detail = {
      loc: ['body', 'settings_values', 'prompt_template', 1, 'content'],
      msg:
        'Invalid placeholder {"score": 8}: a placeholder is {name} (a test set column, or one of {prediction}, {variant_output}, ' +
        '{ground_truth}, {correct_answer}, {inputs}); write {{ and }} for literal braces, e.g. {{"score": 8}}',
      type: 'value_error',
    };
    expect(created.status).toBe(422);
    expect(created.body).toEqual({ detail: [detail] });

    const config = await fixtures.createConfig(server, appId, 'auto_ai_critique', {});
    const updated = await server.request('PUT', `/evaluators/configs/${config.id}`, {
      settings_values: { prompt_template: [{ role: 'user', content: 'Rate {prediction' }] },
    });
    expect(updated.status).toBe(422);
    expect(updated.body.detail).toEqual([
      {
        loc: ['body', 'settings_values', 'prompt_template', 0, 'content'],
        msg: 'Unclosed "{" at character 5 ("{prediction"): close the placeholder with "}", or write "{{" for a literal brace',
        type: 'value_error',
      },
    ]);
  });
});

describe('rag_faithfulness and rag_context_relevancy', () => {
  it('reads question, answer and contexts by path (test case, output, trace) and names a path that resolves to nothing', async () => {
    const variant = await fixtures.createEndpointVariant(server, appId, ragEndpoint.url, { name: 'rag-v1' });
    const testset = await fixtures.createTestset(server, [{ question: 'What is the capital of France?' }]);
    const faithfulness = await fixtures.createConfig(server, appId, 'rag_faithfulness', {
      answer_key: 'output.answer',
      contexts_key: 'trace.rag-v1.outputs.output.contexts',
    });
    const relevancy = await fixtures.createConfig(server, appId, 'rag_context_relevancy', {
      question_key: 'testcase.question',
      contexts_key: 'output.contexts',
    });
    const broken = await fixtures.createConfig(server, appId, 'rag_faithfulness', { contexts_key: 'trace.retriever.outputs.documents' });
    const before = openai.requests.length;
    const { id } = await fixtures.startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [faithfulness.id, relevancy.id, broken.id],
      testset_id: testset.id,
      lm_providers_keys: keys,
    });
    expect((await fixtures.waitForStatus(server, id)).status.value).toBe('EVALUATION_FINISHED_WITH_ERRORS');
    const [scenario] = await fixtures.getScenarios(server, id);
    expect(scenario.results.map((r: any) => r.result)).toEqual([
      { type: 'number', value: 0.5, error: null },
      { type: 'number', value: 1, error: null },
      {
        type: 'error',
        value: null,
        error: {
          message: 'The contexts_key path "trace.retriever.outputs.documents" resolves to nothing: the trace has no span named "retriever" (spans: rag-v1)',
          stacktrace: null,
        },
      },
    ]);
    const calls = openai.requests.slice(before).map((request) => request.body.messages);
    const contexts = 'Contexts:\n[1] Paris is the capital of France.\n\n[2] The Seine flows through Paris.';
    expect(calls).toHaveLength(2);
    expect(calls).toContainEqual([
      { role: 'system', content: FAITHFULNESS_PROMPT },
      { role: 'user', content: `Question:\nWhat is the capital of France?\n\n${contexts}\n\nAnswer:\nParis, on the Seine` },
    ]);
    expect(calls).toContainEqual([
      { role: 'system', content: CONTEXT_RELEVANCY_PROMPT },
      { role: 'user', content: `Question:\nWhat is the capital of France?\n\n${contexts}` },
    ]);
  });
});

describe('auto_custom_code_run', () => {
  it('scores with the sandboxed code; escape attempts are error results and the service keeps serving', async () => {
    const variant = await fixtures.createEndpointVariant(server, appId, variantEndpoint.url);
    const testset = await fixtures.createTestset(server, rows.slice(0, 2));
    const fn = (body: string) => `function evaluate(app_params, inputs, output, correct_answer) { ${body} }`;
    const codes = {
      exact: fn('return output === correct_answer ? 1 : 0'),
      file: fn('return require("fs").readFileSync("/etc/passwd").length'),
      env: fn('return process.env.OPENAI_API_KEY.length'),
      loop: fn('while (true) {}'),
      memory: fn('const all = []; for (;;) all.push([all.length, "x" + all.length])'),
    };
    const configs: Record<string, string> = {};
    for (const [name, code] of Object.entries(codes))
      configs[name] = (await fixtures.createConfig(server, appId, 'auto_custom_code_run', { code, runtime: 'javascript' })).id;
    const { id } = await fixtures.startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: Object.values(configs),
      testset_id: testset.id,
      rate_limit: { batch_size: 2 },
    });
    // The service answers while the sandbox works.
    const started = Date.now();
    expect((await server.request('GET', '/evaluators')).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await fixtures.waitForStatus(server, id, undefined, 20_000)).status.value).toBe('EVALUATION_FINISHED_WITH_ERRORS');
    const scenarios = await fixtures.getScenarios(server, id);
    const messages = (index: number) => scenarios.map((s) => s.results[index].result.error?.message ?? s.results[index].result.value);
    expect(messages(0)).toEqual([1, 0]);
    expect(new Set(messages(1))).toEqual(new Set(["The code threw ReferenceError: 'require' is not defined (line 1)"]));
    expect(new Set(messages(2))).toEqual(new Set(["The code threw ReferenceError: 'process' is not defined (line 1)"]));
    expect(new Set(messages(3))).toEqual(new Set(['The code ran longer than 2 s and was stopped']));
    expect(new Set(messages(4))).toEqual(new Set(['The code used more than 16 MB of memory and was stopped']));
    expect((await server.request('GET', `/evaluations/${id}`)).status).toBe(200);
  });
});
