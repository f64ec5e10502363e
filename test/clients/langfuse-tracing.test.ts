// The Langfuse JS/TS SDK v5 (@langfuse/tracing, @langfuse/otel's span processor, @langfuse/openai)
// pointed at Assay's Langfuse OTLP path, against an OpenAI-compatible API on loopback: chat,
// streamed chat, an agent with a tool, an embedding, a failed call, a generation with a reported
// cost; and the attributes Langfuse's Python SDK sends, alike. Read back through REST, GraphQL and
// the UI's span details (docs/instrumentation.md#langfuse).
import { observeOpenAI } from '@langfuse/openai';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import { startActiveObservation, startObservation } from '@langfuse/tracing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { expectToolLoop, spanDetails, viewsByRoot, type TraceView } from './helpers/assay-views.js';
import { failingModel, failureMessage, weatherAnswer, weatherQuestion, weatherResult } from './helpers/openai-compatible.js';
import { startClientTest, type ClientTestBed } from './helpers/otel-sdk.js';

let bed: ClientTestBed;
let server: TestServer;
const views: Record<string, TraceView> = {};

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  },
];

beforeAll(async () => {
  // The set-up of docs/instrumentation.md: Langfuse's span processor with Assay as its base URL.
  let langfuse!: LangfuseSpanProcessor;
  bed = await startClientTest((baseUrl) => {
    langfuse = new LangfuseSpanProcessor({
      publicKey: 'pk-lf-test',
      secretKey: 'sk-lf-test',
      baseUrl,
      environment: 'staging',
      release: 'v1.2.3',
      exportMode: 'immediate',
    });
    return { url: baseUrl, serviceName: 'langfuse-app', processors: [langfuse], exportToAssay: false };
  });
  ({ server } = bed);
  const { api, sdk } = bed;
  const openai = observeOpenAI(new OpenAI({ baseURL: api.url, apiKey: 'test-key' }), { sessionId: 'lf-session', userId: 'lf-user', traceName: 'support' });

  await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there' }] });
  const stream = await openai.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Stream me a greeting' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const chunk of stream) void chunk;
  await startActiveObservation(
    'weather-agent',
    async (agent) => {
      const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
        { role: 'system', content: weatherQuestion.system },
        { role: 'user', content: weatherQuestion.prompt },
      ];
      agent.update({ input: messages });
      const first = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, tools });
      const call = first.choices[0].message.tool_calls![0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
      const weather = startObservation('get_weather', { input: JSON.parse(call.function.arguments) as object }, { asType: 'tool' });
      const result = weatherResult;
      weather.update({ output: result }).end();
      const second = await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [...messages, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) }],
        tools,
      });
      expect(second.choices[0].message.content).toBe(weatherAnswer);
      // An agent that reports its calls' usage again, as agent frameworks do.
      agent.update({ output: second.choices[0].message, metadata: { steps: 2 } });
      agent.otelSpan.setAttribute('langfuse.observation.usage_details', JSON.stringify({ input: 40, output: 16, total: 56 }));
    },
    { asType: 'agent' },
  );
  await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'a sunny day' });
  await expect(openai.chat.completions.create({ model: failingModel, messages: [{ role: 'user', content: 'Fail' }] })).rejects.toThrow();
  startObservation(
    'manual-call',
    {
      model: 'house-model',
      input: [{ role: 'user', content: 'Summarise' }],
      output: { role: 'assistant', content: 'Done.' },
      usageDetails: { input: 5, output: 3 },
      costDetails: { input: 0.25, output: 0.5 },
      modelParameters: { temperature: 0.1 },
      level: 'WARNING',
      statusMessage: 'slow answer',
      metadata: { team: 'search' },
    },
    { asType: 'generation' },
  ).end();
  // What Langfuse's Python SDK sends: the same keys, values as JSON text, metadata flattened.
  const python = sdk.provider.getTracer('langfuse-sdk', '3.8.0').startSpan('python-generation', {
    attributes: {
      'langfuse.observation.type': 'generation',
      'langfuse.observation.model.name': 'gpt-4o-mini',
      'langfuse.observation.model.parameters': '{"temperature": 0.3}',
      'langfuse.observation.usage_details': '{"input": 11, "output": 7, "total": 18}',
      'langfuse.observation.cost_details': '{"total": 0.0042}',
      'langfuse.observation.input': '[{"role": "user", "content": "Bonjour"}]',
      'langfuse.observation.output': '{"role": "assistant", "content": "Salut"}',
      'langfuse.observation.level': 'ERROR',
      'langfuse.observation.status_message': 'rate limited upstream',
      'langfuse.observation.metadata.request_id': 'req-9',
      'langfuse.trace.name': 'python-trace',
      'langfuse.trace.tags': ['py'],
      'langfuse.trace.metadata.tenant': 'acme',
      'langfuse.session.id': 'py-session',
      'langfuse.user.id': 'py-user',
      'langfuse.environment': 'production',
      'langfuse.release': 'r-42',
      'langfuse.version': '7',
    },
  });
  python.end();
  await sdk.flush();
  await langfuse.forceFlush();

  Object.assign(views, await viewsByRoot(server, sdk.spans(), ['chat', 'stream', 'agent', 'embedding', 'failed', 'manual', 'python']));
});

afterAll(() => bed?.close());

describe('Langfuse SDK v5 through /api/public/otel', () => {
  it('shows a chat generation: kind, model, tokens, priced cost, conversation, session, user, environment and release', async () => {
    const view = views.chat;
    const [call] = view.spans;
    expect(call).toMatchObject({ spankind: 'LLM', model: 'gpt-4o-mini', session_id: 'lf-session', user_id: 'lf-user', environment: 'staging' });
    expect(call.metadata.usage).toEqual({ prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 });
    expect(call.metadata.cost).toBeGreaterThan(0);
    const details = await spanDetails(server, view.traceId, call.id);
    expect(details.span).toMatchObject({ costSource: 'computed', sessionId: 'lf-session', userId: 'lf-user' });
    expect(details.inputs?.messages).toMatchObject([{ role: 'user', text: 'Hello there', rest: null }]);
    expect(details.outputs?.messages).toMatchObject([{ role: 'assistant', text: 'You said: Hello there', rest: null }]);
    expect(details.span.content.internals).toMatchObject({ release: 'v1.2.3' });
    expect(view.graphql).toMatchObject({ tokens: { promptTokens: 20, completionTokens: 8, totalTokens: 28 }, sessionId: 'lf-session', userId: 'lf-user' });
  });

  it('shows a streamed generation: the streamed text as the assistant message, and its usage', async () => {
    const view = views.stream;
    const details = await spanDetails(server, view.traceId, view.spans[0].id);
    expect(details.outputs?.messages).toMatchObject([{ role: 'assistant', text: 'You said: Stream me a greeting', rest: null }]);
    expect(details.span.metadata.usage).toEqual({ promptTokens: 20, completionTokens: 8, totalTokens: 28 });
    expect(details.span.config).toMatchObject({ stream: true });
  });

  it('shows an agent with a tool: both generations, the tool with its arguments and result, the agent counted once', async () => {
    const view = views.agent;
    expect(view.spans[0]).toMatchObject({ name: 'weather-agent', spankind: 'AGENT' });
    await expectToolLoop(server, view, 'get_weather', ['system', 'user', 'assistant', 'tool']);
    const agent = await spanDetails(server, view.traceId, view.spans[0].id);
    expect(agent.span.content.internals.metadata).toEqual({ steps: '2' });
    expect(agent.outputs?.messages[0].text).toBe(weatherAnswer);
  });

  it('shows an embedding call: model and the embedded text (@langfuse/openai sends no usage for embeddings)', async () => {
    const view = views.embedding;
    const details = await spanDetails(server, view.traceId, view.spans[0].id);
    expect(details.span).toMatchObject({ model: 'text-embedding-3-small', spanKind: 'LLM' });
    expect(details.inputs?.messages).toMatchObject([{ role: 'user', text: 'a sunny day', rest: null }]);
    expect(details.span.metadata.usage.totalTokens).toBeNull();
  });

  it('shows a failed generation: its ERROR level as the error status, the status message', async () => {
    const view = views.failed;
    expect(view.graphql.errorCount).toBe(1);
    const details = await spanDetails(server, view.traceId, view.spans[0].id);
    expect(details.span).toMatchObject({ status: 'ERROR', statusMessage: `Error: 400 ${failureMessage}`, model: failingModel });
    expect(details.span.content.internals.level).toBe('ERROR');
  });

  it('keeps a reported cost (cost_details summed), the model parameters, level, status message and metadata', async () => {
    const details = await spanDetails(server, views.manual.traceId, views.manual.spans[0].id);
    expect(details.span).toMatchObject({
      spanKind: 'LLM',
      model: 'house-model',
      costSource: 'reported',
      status: 'UNSET',
      statusMessage: 'slow answer',
      metadata: { cost: 0.75, usage: { promptTokens: 5, completionTokens: 3, totalTokens: 8 } },
      config: { model: 'house-model', temperature: 0.1 },
    });
    expect(details.span.content.internals).toMatchObject({ level: 'WARNING', metadata: { team: 'search' } });
    expect(details.outputs?.messages).toMatchObject([{ role: 'assistant', text: 'Done.', rest: null }]);
  });

  it('reads what the Python SDK sends alike: JSON-text values, flattened metadata, compat session and user keys, version', async () => {
    const view = views.python;
    const details = await spanDetails(server, view.traceId, view.spans[0].id);
    expect(details.span).toMatchObject({
      spanKind: 'LLM',
      model: 'gpt-4o-mini',
      sessionId: 'py-session',
      userId: 'py-user',
      status: 'ERROR',
      statusMessage: 'rate limited upstream',
      costSource: 'reported',
      metadata: { cost: 0.0042, usage: { promptTokens: 11, completionTokens: 7, totalTokens: 18 } },
      config: { model: 'gpt-4o-mini', temperature: 0.3 },
    });
    expect(details.span.content.internals).toMatchObject({ metadata: { request_id: 'req-9', tenant: 'acme' }, tags: ['py'], version: '7' });
    expect(details.inputs?.messages).toMatchObject([{ role: 'user', text: 'Bonjour', rest: null }]);
    expect(details.outputs?.messages).toMatchObject([{ role: 'assistant', text: 'Salut', rest: null }]);
    expect(view.graphql).toMatchObject({ cost: 0.0042, sessionId: 'py-session', userId: 'py-user', errorCount: 1 });
  });
});
