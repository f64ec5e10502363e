// Vercel AI SDK 6 (the `ai.*` attributes AI SDK 4–6 write) against an OpenAI-compatible API on
// loopback, its traces exported to Assay: chat, streamed chat, a tool loop, an embedding and a
// failed call, read back through REST, GraphQL and the UI's span details (docs/instrumentation.md#vercel-ai-sdk).
import { createOpenAI } from 'ai-sdk-openai-v3';
import { embedMany, generateText, stepCountIs, streamText, tool } from 'ai-v6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../helpers/server.js';
import type { FakeEndpoint } from '../helpers/endpoints.js';
import { ofKind, spanDetails, traceView, type TraceView } from './helpers/assay-views.js';
import { chatUsage, embeddingUsage, failingModel, failureMessage, startOpenAICompatible, weatherAnswer } from './helpers/openai-compatible.js';
import { clientSdk, type ClientSdk } from './helpers/otel-sdk.js';

let server: TestServer;
let api: FakeEndpoint;
let sdk: ClientSdk;
const views: Record<string, TraceView> = {};

beforeAll(async () => {
  server = await startServer({ OTLP_GRPC_PORT: '0' });
  api = await startOpenAICompatible();
  sdk = clientSdk(`${server.baseUrl}/v1/traces`, { serviceName: 'ai-sdk-6-app' });
  const openai = createOpenAI({ baseURL: api.url, apiKey: 'test-key' });
  const telemetry = (functionId: string) => ({
    isEnabled: true,
    functionId,
    tracer: sdk.provider.getTracer('ai'),
    metadata: { sessionId: 'chat-6', userId: 'grace', feature: 'tests' },
  });

  await generateText({ model: openai.chat('gpt-4o-mini'), prompt: 'Hello there', experimental_telemetry: telemetry('chat') });
  const streamed = streamText({ model: openai.chat('gpt-4o-mini'), prompt: 'Stream me a greeting', experimental_telemetry: telemetry('stream') });
  await streamed.text;
  const withTool = await generateText({
    model: openai.chat('gpt-4o-mini'),
    system: 'You answer weather questions.',
    prompt: 'What is the weather in Paris?',
    tools: {
      get_weather: tool({
        description: 'The weather in a city',
        inputSchema: z.object({ city: z.string() }),
        execute: ({ city }) => ({ city, forecast: 'sunny', celsius: 21 }),
      }),
    },
    stopWhen: stepCountIs(3),
    experimental_telemetry: telemetry('weather-agent'),
  });
  expect(withTool.text).toBe(weatherAnswer);
  await embedMany({ model: openai.embedding('text-embedding-3-small'), values: ['a sunny day', 'a rainy day'], experimental_telemetry: telemetry('embed') });
  await expect(generateText({ model: openai.chat(failingModel), prompt: 'Fail', maxRetries: 0, experimental_telemetry: telemetry('fail') })).rejects.toThrow();
  await sdk.flush();

  const spans = sdk.spans();
  const roots = spans.filter((span) => !span.parentSpanContext).sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  expect(roots).toHaveLength(5);
  const names = ['chat', 'stream', 'agent', 'embedding', 'failed'];
  for (const [index, root] of roots.entries()) {
    const traceId = root.spanContext().traceId;
    views[names[index]] = await traceView(server, traceId, spans.filter((span) => span.spanContext().traceId === traceId).length);
  }
});

afterAll(async () => {
  await sdk?.shutdown();
  await api?.close();
  await server?.close();
});

describe('AI SDK 6 (ai.* attributes)', () => {
  it('shows a chat: the operation span, the model call with its kind, model, tokens, priced cost, conversation, session and user', async () => {
    const view = views.chat;
    expect(view.spans.map((span) => [span.name, span.spankind])).toEqual([
      ['ai.generateText', 'AGENT'],
      ['ai.generateText.doGenerate', 'LLM'],
    ]);
    const [call] = ofKind(view, 'LLM');
    expect(call).toMatchObject({ model: 'gpt-4o-mini', session_id: 'chat-6', user_id: 'grace' });
    expect(call.metadata.usage).toEqual({ prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 });
    expect(call.metadata.cost).toBeGreaterThan(0);
    const details = await spanDetails(server, view.traceId, call.id);
    expect(details.inputs?.messages).toEqual([{ role: 'user', text: 'Hello there', rest: null }]);
    expect(details.outputs?.messages).toEqual([{ role: 'assistant', text: 'You said: Hello there', rest: { finish_reason: 'stop' } }]);
    expect(details.span.content.internals.metadata).toMatchObject({ feature: 'tests' });
    expect(view.graphql).toMatchObject({ tokens: { promptTokens: 20, completionTokens: 8, totalTokens: 28 }, sessionId: 'chat-6', userId: 'grace' });
    expect(view.graphql.cost).toBeCloseTo(call.metadata.cost!, 12);
  });

  it('shows a streamed chat with the whole answer and its usage', async () => {
    const view = views.stream;
    const [call] = ofKind(view, 'LLM');
    expect(call.name).toBe('ai.streamText.doStream');
    expect(call.metadata.usage.total_tokens).toBe(chatUsage.total_tokens);
    const details = await spanDetails(server, view.traceId, call.id);
    expect(details.outputs?.messages.map((message) => message.text)).toEqual(['You said: Stream me a greeting']);
    expect(view.graphql.tokens.totalTokens).toBe(chatUsage.total_tokens);
  });

  it('shows a tool loop: the tool call and its result in the conversation and on the tool span, each call counted once', async () => {
    const view = views.agent;
    const calls = ofKind(view, 'LLM');
    expect(calls).toHaveLength(2);
    const [toolSpan] = ofKind(view, 'TOOL');
    expect(toolSpan).toMatchObject({
      name: 'ai.toolCall',
      content: {
        inputs: { arguments: { city: 'Paris' } },
        outputs: { result: { city: 'Paris', forecast: 'sunny', celsius: 21 } },
        internals: { tool: { name: 'get_weather', call_id: 'call_weather_1' } },
      },
    });
    const first = await spanDetails(server, view.traceId, calls[0].id);
    expect(first.outputs?.messages[0]).toMatchObject({
      role: 'assistant',
      text: null,
      rest: { tool_calls: [{ id: 'call_weather_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    });
    const second = await spanDetails(server, view.traceId, calls[1].id);
    expect(second.inputs?.messages.map((message) => [message.role, message.text])).toEqual([
      ['system', 'You answer weather questions.'],
      ['user', 'What is the weather in Paris?'],
      ['assistant', null],
      ['tool', '{"city":"Paris","forecast":"sunny","celsius":21}'],
    ]);
    expect(second.outputs?.messages[0].text).toBe(weatherAnswer);
    const root = await spanDetails(server, view.traceId, view.spans[0].id);
    expect(root.span.content.internals.usage_of_descendants).toMatchObject({ prompt_tokens: 40, completion_tokens: 16, total_tokens: 56 });
    expect(view.graphql.tokens).toEqual({ promptTokens: 40, completionTokens: 16, totalTokens: 56 });
    expect(view.graphql.cost).toBeCloseTo(calls[0].metadata.cost! + calls[1].metadata.cost!, 12);
  });

  it('shows embeddings: kind, model, texts, tokens and priced cost, counted once', () => {
    const view = views.embedding;
    expect(view.spans.map((span) => [span.name, span.spankind])).toEqual([
      ['ai.embedMany', 'EMBEDDING'],
      ['ai.embedMany.doEmbed', 'EMBEDDING'],
    ]);
    const call = view.spans[1];
    expect(call).toMatchObject({ model: 'text-embedding-3-small', content: { inputs: { texts: ['a sunny day', 'a rainy day'] } } });
    expect(call.metadata.usage.prompt_tokens).toBe(embeddingUsage.prompt_tokens);
    expect(call.metadata.cost).toBeGreaterThan(0);
    expect(view.graphql.tokens.promptTokens).toBe(embeddingUsage.prompt_tokens);
    expect(view.graphql.cost).toBeCloseTo(call.metadata.cost!, 12);
  });

  it('shows a failed call: error status and the provider message, the exception kept', async () => {
    const view = views.failed;
    expect(view.graphql.errorCount).toBe(2);
    const [call] = ofKind(view, 'LLM');
    const details = await spanDetails(server, view.traceId, call.id);
    expect(details.span).toMatchObject({ status: 'ERROR', statusMessage: failureMessage, model: failingModel });
    expect(details.span.content.internals.exception).toMatchObject({ type: 'AI_APICallError', message: failureMessage });
  });
});
