// OpenInference (Arize) instrumentations pointed at Assay as docs/instrumentation.md says, each with
// its real package against an OpenAI-compatible API on loopback: the `openai` client's
// (@arizeai/openinference-instrumentation-openai: chat, streamed chat, a tool call and its
// answer, an embedding, a failed call, under a session and user), LangChain's (ChatOpenAI and
// OpenAIEmbeddings) and the OpenAI Agents SDK's (an agent running a tool). Read back through REST,
// GraphQL and the UI's span details (docs/instrumentation.md#openinference).
import { setSession, setUser } from '@arizeai/openinference-core';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { OpenAIAgentsInstrumentation } from '@arizeai/openinference-instrumentation-openai-agents';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import * as agents from '@openai/agents';
import { context } from '@opentelemetry/api';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../helpers/server.js';
import type { FakeEndpoint } from '../helpers/endpoints.js';
import { ofKind, ownSums, spanDetails, traceView, type TraceView } from './helpers/assay-views.js';
import { chatUsage, failingModel, failureMessage, startOpenAICompatible, streamGreeting, weatherAnswer, weatherTools } from './helpers/openai-compatible.js';
import { clientSdk, traceIdsOf, type ClientSdk } from './helpers/otel-sdk.js';

let server: TestServer;
let api: FakeEndpoint;
let sdk: ClientSdk;

/** The traces of one instrumentation's spans named `name`, once stored, each with its number of spans. */
async function viewsOf(scope: string, name: RegExp, spans: number[]): Promise<TraceView[]> {
  const ids = traceIdsOf(
    sdk.spans().filter((span) => span.instrumentationScope.name.includes(scope)),
    name,
  );
  expect(ids).toHaveLength(spans.length);
  return Promise.all(ids.map((id, i) => traceView(server, id, spans[i])));
}

beforeAll(async () => {
  server = await startServer({ OTLP_GRPC_PORT: '0' });
  api = await startOpenAICompatible();
  sdk = clientSdk(`${server.baseUrl}/v1/traces`, { serviceName: 'openinference-app' });

  // The `openai` client's instrumentation, the calls under a session and a user.
  const openaiInstrumentation = new OpenAIInstrumentation();
  openaiInstrumentation.setTracerProvider(sdk.provider);
  openaiInstrumentation.manuallyInstrument(OpenAI);
  const openai = new OpenAI({ baseURL: api.url, apiKey: 'test-key' });
  await context.with(setUser(setSession(context.active(), { sessionId: 'chat-42' }), { userId: 'ada' }), async () => {
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there' }] });
    await streamGreeting(openai);
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You answer weather questions.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is the weather ' },
          { type: 'text', text: 'in Paris?' },
        ],
      },
    ];
    const first = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: weatherTools });
    const call = first.choices[0].message.tool_calls![0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [...messages, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"celsius":21}' }],
      tools: weatherTools,
    });
    await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'a sunny day', encoding_format: 'float' });
    await expect(openai.chat.completions.create({ model: failingModel, messages: [{ role: 'user', content: 'Fail' }] })).rejects.toThrow();
    // An agent of the app's own (as openinference-core's helpers make) that reports its calls' usage again.
    const usage = { 'llm.token_count.prompt': 40, 'llm.token_count.completion': 16, 'llm.token_count.total': 56 };
    await sdk.provider.getTracer('app').startActiveSpan('planner', { attributes: { 'openinference.span.kind': 'AGENT', ...usage } }, async (agent) => {
      await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Plan step 1' }] });
      await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Plan step 2' }] });
      agent.end();
    });
  });
  // One instrumentation at a time: LangChain and the Agents SDK call `openai` too, and an app
  // instrumenting both would see each call twice (docs/instrumentation.md#openinference).
  openaiInstrumentation.disable();

  const langchain = new LangChainInstrumentation({ tracerProvider: sdk.provider });
  langchain.manuallyInstrument(CallbackManagerModule);
  const model = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: 'test-key', configuration: { baseURL: api.url } });
  await model.invoke('Hello from LangChain');
  const weather = langchainTool(({ city }: { city: string }) => JSON.stringify({ city, celsius: 21 }), {
    name: 'get_weather',
    description: 'The weather in a city',
    schema: z.object({ city: z.string() }),
  });
  const asked = await model.bindTools([weather]).invoke('What is the weather in Paris?');
  await weather.invoke(asked.tool_calls![0]);
  await new OpenAIEmbeddings({ model: 'text-embedding-3-small', apiKey: 'test-key', configuration: { baseURL: api.url } }).embedQuery('a sunny day');
  await expect(
    new ChatOpenAI({ model: failingModel, apiKey: 'test-key', configuration: { baseURL: api.url }, maxRetries: 0 }).invoke('Fail'),
  ).rejects.toThrow();
  langchain.disable();

  const agentsInstrumentation = new OpenAIAgentsInstrumentation({ tracerProvider: sdk.provider });
  agentsInstrumentation.manuallyInstrument(agents);
  agents.setDefaultOpenAIClient(new OpenAI({ baseURL: api.url, apiKey: 'test-key' }));
  agents.setOpenAIAPI('chat_completions');
  // The Agents SDK turns its tracing off when NODE_ENV is "test", as vitest sets it.
  agents.setTracingDisabled(false);
  const agent = new agents.Agent({
    name: 'Weather agent',
    instructions: 'You answer weather questions.',
    model: 'gpt-4o-mini',
    tools: [
      agents.tool({
        name: 'get_weather',
        description: 'The weather in a city',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => JSON.stringify({ city, forecast: 'sunny', celsius: 21 }),
      }),
    ],
  });
  const result = await agents.run(agent, 'What is the weather in Paris?');
  expect(result.finalOutput).toBe(weatherAnswer);
  await agents.getGlobalTraceProvider().forceFlush();
  await sdk.flush();
});

afterAll(async () => {
  await sdk?.shutdown();
  await api?.close();
  await server?.close();
});

const cost = (prompt: number, completion: number) => (prompt * 0.15 + completion * 0.6) / 1e6; // gpt-4o-mini

describe('OpenInference: the openai client', () => {
  let calls: TraceView[];
  beforeAll(async () => {
    // One trace per call: chat, stream, tool call, its answer, embedding; then the planner's two.
    calls = await viewsOf('instrumentation-openai', /^OpenAI (Chat Completions|Embeddings)$/, [1, 1, 1, 1, 1, 3]);
  });

  it('shows each call with its kind, model, tokens, cost, session and user', () => {
    const [chat, streamed, , , embedding] = calls.map((view) => view.spans[0]);
    expect(chat).toMatchObject({ spankind: 'LLM', model: 'gpt-4o-mini', session_id: 'chat-42', user_id: 'ada', metadata: { usage: chatUsage } });
    expect(chat.metadata.cost).toBeCloseTo(cost(chatUsage.prompt_tokens, chatUsage.completion_tokens), 12);
    expect(calls[0].graphql).toMatchObject({ sessionId: 'chat-42', userId: 'ada' });
    // OpenInference 4.2 reads no usage from a stream: the call is shown, its tokens are not known.
    expect(streamed).toMatchObject({ spankind: 'LLM', model: 'gpt-4o-mini', metadata: { usage: { total_tokens: null } } });
    expect(embedding).toMatchObject({ spankind: 'EMBEDDING', model: 'text-embedding-3-small', content: { inputs: { texts: ['a sunny day'] } } });
  });

  it('shows the conversation, message contents as text, the tool call and its result', async () => {
    const chat = await spanDetails(server, calls[0].traceId, calls[0].spans[0].id);
    expect(chat.inputs?.messages).toEqual([{ role: 'user', text: 'Hello there', toolCalls: [], toolCallId: null, rest: null }]);
    expect(chat.outputs?.messages).toEqual([{ role: 'assistant', text: 'You said: Hello there', toolCalls: [], toolCallId: null, rest: null }]);
    const streamed = await spanDetails(server, calls[1].traceId, calls[1].spans[0].id);
    expect(streamed.outputs?.messages).toEqual([{ role: 'assistant', text: 'You said: Stream me a greeting', toolCalls: [], toolCallId: null, rest: null }]);
    // `message.contents.{j}.message_content.*`: the two text parts read as one text.
    const call = await spanDetails(server, calls[2].traceId, calls[2].spans[0].id);
    expect(call.inputs?.messages[1]).toEqual({ role: 'user', text: 'What is the weather in Paris?', toolCalls: [], toolCallId: null, rest: null });
    expect(call.span.content.outputs.messages[0].tool_calls).toEqual([
      { id: 'call_weather_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
    // The UI draws it as a call, and the tool message as the answer to it.
    expect(call.outputs?.messages[0].toolCalls).toEqual([{ id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(call.span.content.internals.tools[0].json_schema).toMatchObject({ function: { name: 'get_weather' } });
    const answer = await spanDetails(server, calls[3].traceId, calls[3].spans[0].id);
    expect(answer.inputs?.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(answer.inputs?.messages[3]).toMatchObject({ role: 'tool', text: '{"celsius":21}', toolCallId: 'call_weather_1' });
    expect(answer.outputs?.messages[0].text).toBe(weatherAnswer);
  });

  it("counts each model call once: an agent's usage that repeats its calls' is kept apart", async () => {
    const planner = calls[5];
    expect(planner.spans[0]).toMatchObject({ name: 'planner', spankind: 'AGENT' });
    const agent = await spanDetails(server, planner.traceId, planner.spans[0].id);
    expect(agent.span.content.internals.usage_of_descendants).toEqual({ prompt_tokens: 40, completion_tokens: 16, total_tokens: 56 });
    expect(planner.graphql.tokens).toEqual({ promptTokens: 40, completionTokens: 16, totalTokens: 56 });
    expect(planner.graphql.cost).toBeCloseTo(2 * cost(chatUsage.prompt_tokens, chatUsage.completion_tokens), 12);
  });

  it('sends no span for a failed call (OpenInference 4.2 with openai 7: the rejection is not watched)', () => {
    expect(api.requests.filter((request) => request.body?.model === failingModel).length).toBeGreaterThanOrEqual(1);
    expect(sdk.spans().filter((span) => span.name.startsWith('OpenAI') && span.attributes['llm.model_name'] === failingModel)).toEqual([]);
  });
});

describe('OpenInference: LangChain', () => {
  let views_: TraceView[];
  beforeAll(async () => {
    // invoke, the tool-calling invoke, the tool, the failed invoke.
    views_ = await viewsOf('langchain', /^(ChatOpenAI|get_weather)$/, [1, 1, 1, 1]);
  });

  it('shows ChatOpenAI calls with model, tokens, cost and conversation; the tool call; the tool', async () => {
    const [chat, call, tool, failed] = views_.map((view) => view.spans[0]);
    expect(chat).toMatchObject({ spankind: 'LLM', model: 'gpt-4o-mini', metadata: { usage: chatUsage } });
    expect(chat.metadata.cost).toBeCloseTo(cost(chatUsage.prompt_tokens, chatUsage.completion_tokens), 12);
    const details = await spanDetails(server, views_[0].traceId, chat.id);
    expect(details.inputs?.messages).toEqual([{ role: 'user', text: 'Hello from LangChain', toolCalls: [], toolCallId: null, rest: null }]);
    expect(details.outputs?.messages).toMatchObject([{ role: 'assistant', text: 'You said: Hello from LangChain' }]);
    // LangChain's instrumentation sends the call's function, not its id.
    expect(call.content.outputs.messages[0].tool_calls).toEqual([{ function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    expect(tool).toMatchObject({ spankind: 'TOOL', name: 'get_weather' });
    expect(tool.content.outputs).toBeTruthy();
    expect(failed).toMatchObject({ spankind: 'LLM', model: failingModel, status: 'ERROR', status_message: expect.stringContaining(failureMessage) });
    expect(views_[3].graphql.errorCount).toBe(1);
  });
});

describe('OpenInference: the OpenAI Agents SDK', () => {
  let view: TraceView;
  beforeAll(async () => {
    [view] = await viewsOf('openai-agents', /^Agent workflow$/, [8]);
  });

  it('shows the agent run: the agent, its model calls with their conversation, the tool with its arguments and result', async () => {
    expect(view.spans[0]).toMatchObject({ name: 'Agent workflow', spankind: 'AGENT', content: { outputs: { output: weatherAnswer } } });
    expect(ofKind(view, 'AGENT').map((span) => span.name)).toEqual(['Agent workflow', 'Weather agent']);
    const [call, answer] = ofKind(view, 'LLM');
    expect(call).toMatchObject({ model: 'gpt-4o-mini', metadata: { usage: chatUsage } });
    expect(call.content.outputs.messages[0].tool_calls[0]).toMatchObject({ id: 'call_weather_1', function: { name: 'get_weather' } });
    const [tool] = ofKind(view, 'TOOL');
    expect(tool).toMatchObject({
      name: 'get_weather',
      content: { inputs: { city: 'Paris' }, outputs: { city: 'Paris', forecast: 'sunny', celsius: 21 } },
    });
    const details = await spanDetails(server, view.traceId, answer.id);
    expect(details.inputs?.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(details.outputs?.messages[0].text).toBe(weatherAnswer);
  });

  it("counts each model call once in the trace's totals", () => {
    const own = ownSums(view.spans.slice(1));
    expect(own.total).toBe(2 * chatUsage.total_tokens);
    expect(view.graphql.tokens).toEqual({ promptTokens: own.prompt, completionTokens: own.completion, totalTokens: own.total });
    expect(view.graphql.cost).toBeCloseTo(2 * cost(chatUsage.prompt_tokens, chatUsage.completion_tokens), 12);
  });
});
