// OpenLLMetry (@traceloop/node-server-sdk) pointed at Assay as docs/instrumentation.md says, with
// the real `openai` client against an OpenAI-compatible API on loopback: a workflow (with the
// user and session as association properties) holding a chat, a streamed chat, an agent with a
// tool, an embedding and a failed call; read back through REST, GraphQL and the UI's span details
// (docs/instrumentation.md#openllmetry).
import * as traceloop from '@traceloop/node-server-sdk';
import { trace } from '@opentelemetry/api';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import type { FakeEndpoint } from '../helpers/endpoints.js';
import { ofKind, ownSums, spanDetails, traceView, type TraceView } from './helpers/assay-views.js';
import { chatUsage, failingModel, startOpenAICompatible, streamGreeting, weatherAnswer, weatherTools } from './helpers/openai-compatible.js';

let server: TestServer;
let api: FakeEndpoint;
let view: TraceView;

beforeAll(async () => {
  server = await startServer({ OTLP_GRPC_PORT: '0' });
  api = await startOpenAICompatible();
  // The set-up of docs/instrumentation.md: Assay as the base URL, an ingest key as the API key.
  traceloop.initialize({
    appName: 'openllmetry-app',
    baseUrl: server.baseUrl,
    apiKey: 'assay-ingest-key',
    traceloopSyncEnabled: false,
    silenceInitializationMessage: true,
    // Its types name openai's CommonJS declarations; this file imports the ES module's: the same class.
    instrumentModules: { openAI: OpenAI as never },
  });
  const openai = new OpenAI({ baseURL: api.url, apiKey: 'test-key' });

  await traceloop.withWorkflow({ name: 'support', associationProperties: { user_id: 'ada', session_id: 'chat-42' } }, async () => {
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there' }] });
    await streamGreeting(openai);
    await traceloop.withAgent({ name: 'weather-agent' }, async () => {
      const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
        { role: 'system', content: 'You answer weather questions.' },
        { role: 'user', content: 'What is the weather in Paris?' },
      ];
      const first = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: weatherTools });
      const call = first.choices[0].message.tool_calls![0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
      const result = await traceloop.withTool(
        { name: 'get_weather' },
        ({ city }: { city: string }) => ({ city, forecast: 'sunny', celsius: 21 }),
        JSON.parse(call.function.arguments),
      );
      const second = await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [...messages, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) }],
        tools: weatherTools,
      });
      expect(second.choices[0].message.content).toBe(weatherAnswer);
      // An agent that reports its calls' usage again, as agent frameworks do.
      trace.getActiveSpan()!.setAttributes({ 'gen_ai.usage.input_tokens': 40, 'gen_ai.usage.output_tokens': 16 });
      return second.choices[0].message.content;
    });
    await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'a sunny day' });
    await expect(openai.chat.completions.create({ model: failingModel, messages: [{ role: 'user', content: 'Fail' }] })).rejects.toThrow();
    return { answered: true };
  });
  await traceloop.forceFlush();
  const traces = await server.graphql('{ traces(first: 5) { edges { node { traceId } } } }');
  expect(traces.data.traces.edges).toHaveLength(1);
  view = await traceView(server, traces.data.traces.edges[0].node.traceId, 7);
});

afterAll(async () => {
  await api?.close();
  await server?.close();
});

const cost = (prompt: number, completion: number) => (prompt * 0.15 + completion * 0.6) / 1e6; // gpt-4o-mini

describe('OpenLLMetry', () => {
  it('shows the workflow with its input and output, the user and session of its association properties', () => {
    const [root] = view.spans;
    expect(root).toMatchObject({
      name: 'support.workflow',
      spankind: 'WORKFLOW',
      user_id: 'ada',
      session_id: 'chat-42',
      content: { inputs: null, outputs: { answered: true }, internals: { metadata: { user_id: 'ada', session_id: 'chat-42' } } },
    });
    expect(view.graphql).toMatchObject({ userId: 'ada', sessionId: 'chat-42' });
    // Every span carries them: the model calls too.
    expect(ofKind(view, 'LLM').every((span) => span.user_id === 'ada' && span.session_id === 'chat-42')).toBe(true);
  });

  it('shows each model call with its model, tokens, cost and conversation', async () => {
    const [chat, streamed] = ofKind(view, 'LLM');
    expect(chat).toMatchObject({ name: 'chat gpt-4o-mini', model: 'gpt-4o-mini', metadata: { usage: chatUsage } });
    expect(chat.metadata.cost).toBeCloseTo(cost(chatUsage.prompt_tokens, chatUsage.completion_tokens), 12);
    const details = await spanDetails(server, view.traceId, chat.id);
    expect(details.inputs?.messages).toEqual([{ role: 'user', text: 'Hello there', toolCalls: [], toolCallId: null, rest: null }]);
    expect(details.outputs?.messages).toMatchObject([{ role: 'assistant', text: 'You said: Hello there' }]);
    // Streamed: OpenLLMetry counts the tokens itself (it estimates them, whatever the API reported).
    expect(streamed.model).toBe('gpt-4o-mini');
    expect(streamed.metadata.usage.prompt_tokens).toBeGreaterThan(0);
    expect(streamed.metadata.usage.completion_tokens).toBeGreaterThan(0);
    expect((await spanDetails(server, view.traceId, streamed.id)).outputs?.messages).toMatchObject([
      { role: 'assistant', text: 'You said: Stream me a greeting' },
    ]);
  });

  it('shows the agent, its tool call, the tool with its arguments and result, and the answer', async () => {
    const [agent] = ofKind(view, 'AGENT');
    expect(agent).toMatchObject({ name: 'weather-agent.agent', content: { outputs: { output: weatherAnswer } } });
    const [, , call, answer] = ofKind(view, 'LLM');
    expect(call.content.outputs.messages[0].tool_calls).toEqual([
      { id: 'call_weather_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
    expect(call.content.internals.tools[0]).toMatchObject({ function: { name: 'get_weather' } });
    const [tool] = ofKind(view, 'TOOL');
    expect(tool).toMatchObject({
      name: 'get_weather.tool',
      parent_span_id: agent.id,
      content: { inputs: { arguments: { city: 'Paris' } }, outputs: { result: { city: 'Paris', forecast: 'sunny', celsius: 21 } } },
    });
    const conversation = (await spanDetails(server, view.traceId, answer.id)).inputs!.messages;
    expect(conversation.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(answer.content.outputs.messages[0].content).toBe(weatherAnswer);
  });

  it("counts each model call once in the trace's totals", async () => {
    // The agent's usage repeats its two calls': kept apart, out of the sums.
    const [agent] = ofKind(view, 'AGENT');
    expect((await spanDetails(server, view.traceId, agent.id)).span.content.internals.usage_of_descendants).toEqual({
      prompt_tokens: 40,
      completion_tokens: 16,
      total_tokens: 56,
    });
    expect(agent.metadata.usage).toEqual({ prompt_tokens: null, completion_tokens: null, total_tokens: null });
    // The root shows the trace's sums where it reported none: the others' own figures are the calls'.
    const own = ownSums(view.spans.slice(1));
    expect(view.graphql.tokens).toEqual({ promptTokens: own.prompt, completionTokens: own.completion, totalTokens: own.total });
    // Four model calls; the workflow and the agent report no usage of their own.
    expect(ofKind(view, 'LLM')).toHaveLength(4);
    expect(ofKind(view, 'WORKFLOW')[0].metadata.usage.total_tokens).toBe(own.total);
    expect(view.graphql.cost).toBeCloseTo(
      ofKind(view, 'LLM').reduce((sum, span) => sum + (span.metadata.cost ?? 0), 0),
      12,
    );
  });

  it('sends no span for an embedding or a failed call (OpenLLMetry 0.27), and the rest of the trace is whole', () => {
    // Its OpenAI instrumentation wraps chat, completions, responses and images, not embeddings, and
    // ends a call's span only when the call succeeds (docs/instrumentation.md#openllmetry).
    expect(api.requests.filter((request) => request.path === '/v1/embeddings')).toHaveLength(1);
    expect(api.requests.filter((request) => request.body?.model === failingModel)).toHaveLength(1);
    expect(view.spans.filter((span) => span.spankind === 'EMBEDDING' || span.status === 'ERROR')).toEqual([]);
    expect(view.graphql.errorCount).toBe(0);
  });
});
