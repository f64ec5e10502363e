// Vercel AI SDK 7 with @ai-sdk/otel (OpenTelemetry GenAI conventions) against an OpenAI-compatible
// API on loopback, its traces exported to Assay: chat, streamed chat, a tool loop, an embedding and
// a failed call, read back through REST, GraphQL and the UI's span details (docs/instrumentation.md#vercel-ai-sdk).
import { createOpenAI } from '@ai-sdk/openai';
import { OpenTelemetry } from '@ai-sdk/otel';
import { embed, generateText, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { expectToolLoop, ofKind, spanDetails, viewsByRoot, type TraceView } from './helpers/assay-views.js';
import { chatUsage, embeddingUsage, failingModel, failureMessage, weatherAnswer, weatherQuestion, weatherTool } from './helpers/openai-compatible.js';
import { startClientTest, type ClientTestBed } from './helpers/otel-sdk.js';

let bed: ClientTestBed;
let server: TestServer;
const views: Record<string, TraceView> = {};

beforeAll(async () => {
  bed = await startClientTest((baseUrl) => ({ url: `${baseUrl}/v1/traces`, serviceName: 'ai-sdk-7-app' }));
  ({ server } = bed);
  const { api, sdk } = bed;
  const openai = createOpenAI({ baseURL: api.url, apiKey: 'test-key' });
  // What the set-up in docs/instrumentation.md does: the integration, and the session and user
  // put on every span through its enrichSpan hook.
  const telemetry = {
    integrations: [
      new OpenTelemetry({
        tracer: sdk.provider.getTracer('ai'),
        embedding: true,
        enrichSpan: () => ({ 'session.id': 'chat-42', 'user.id': 'ada' }),
      }),
    ],
  };

  await generateText({ model: openai.chat('gpt-4o-mini'), prompt: 'Hello there', telemetry: { ...telemetry, functionId: 'chat' } });
  const streamed = streamText({ model: openai.chat('gpt-4o-mini'), prompt: 'Stream me a greeting', telemetry: { ...telemetry, functionId: 'stream' } });
  await streamed.text;
  const withTool = await generateText({
    model: openai.chat('gpt-4o-mini'),
    ...weatherQuestion,
    tools: { get_weather: tool(weatherTool) },
    stopWhen: stepCountIs(3),
    telemetry: { ...telemetry, functionId: 'weather-agent' },
  });
  expect(withTool.text).toBe(weatherAnswer);
  await embed({ model: openai.embedding('text-embedding-3-small'), value: 'a sunny day', telemetry: { ...telemetry, functionId: 'embed' } });
  await expect(
    generateText({ model: openai.chat(failingModel), prompt: 'Fail', maxRetries: 0, telemetry: { ...telemetry, functionId: 'fail' } }),
  ).rejects.toThrow();
  await sdk.flush();

  Object.assign(views, await viewsByRoot(server, sdk.spans(), ['chat', 'stream', 'agent', 'embedding', 'failed']));
});

afterAll(() => bed?.close());

describe('AI SDK 7 with @ai-sdk/otel', () => {
  it('shows a chat: the agent span, the model call with its kind, model, tokens, priced cost and conversation', async () => {
    const view = views.chat;
    const [root] = view.spans;
    expect(root).toMatchObject({ name: 'invoke_agent gpt-4o-mini', spankind: 'AGENT', session_id: 'chat-42', user_id: 'ada', status: 'UNSET' });
    expect(ofKind(view, 'CHAIN').map((span) => span.name)).toEqual(['step 1']);
    const [call] = ofKind(view, 'LLM');
    expect(call).toMatchObject({ name: 'chat gpt-4o-mini', model: 'gpt-4o-mini', session_id: 'chat-42', user_id: 'ada' });
    expect(call.metadata.usage).toEqual({ prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 });
    expect(call.metadata.cost).toBeGreaterThan(0);
    const details = await spanDetails(server, view.traceId, call.id);
    expect(details.span).toMatchObject({ spanKind: 'LLM', model: 'gpt-4o-mini', costSource: 'computed', sessionId: 'chat-42', userId: 'ada' });
    expect(details.inputs?.messages).toMatchObject([{ role: 'user', text: 'Hello there', rest: null }]);
    expect(details.outputs?.messages).toMatchObject([{ role: 'assistant', text: 'You said: Hello there', rest: { finish_reason: 'stop' } }]);
    expect(view.graphql).toMatchObject({
      tokens: { promptTokens: 20, completionTokens: 8, totalTokens: 28 },
      sessionId: 'chat-42',
      userId: 'ada',
      errorCount: 0,
    });
    expect(view.graphql.cost).toBeCloseTo(call.metadata.cost!, 12);
  });

  it('shows a streamed chat with the whole answer and the usage of its last chunk', async () => {
    const view = views.stream;
    const [call] = ofKind(view, 'LLM');
    expect(call.metadata.usage).toEqual({
      prompt_tokens: chatUsage.prompt_tokens,
      completion_tokens: chatUsage.completion_tokens,
      total_tokens: chatUsage.total_tokens,
    });
    const details = await spanDetails(server, view.traceId, call.id);
    expect(details.outputs?.messages.map((message) => message.text)).toEqual(['You said: Stream me a greeting']);
    expect(view.graphql.tokens.totalTokens).toBe(28);
  });

  it('shows a tool loop: both model calls, the tool span with its arguments and result, the calls as a conversation, each counted once', async () => {
    const view = views.agent;
    await expectToolLoop(server, view, 'execute_tool get_weather', ['user', 'assistant', 'tool']);
    const [call] = ofKind(view, 'LLM');
    const first = await spanDetails(server, view.traceId, call.id);
    expect(first.inputs?.system).toBe('You answer weather questions.');
    expect(first.span.content.internals.tools).toMatchObject([{ name: 'get_weather', description: 'The weather in a city' }]);
  });

  it('shows an embedding: its kind, model, text, tokens and priced cost, counted once', () => {
    const view = views.embedding;
    const embeddings = ofKind(view, 'EMBEDDING');
    expect(embeddings).toHaveLength(2);
    const call = embeddings.find((span) => span.parent_span_id !== null)!;
    expect(call).toMatchObject({ model: 'text-embedding-3-small', content: { inputs: { texts: ['a sunny day'] } } });
    expect(call.metadata.usage.prompt_tokens).toBe(embeddingUsage.prompt_tokens);
    expect(call.metadata.cost).toBeGreaterThan(0);
    expect(view.graphql.tokens.promptTokens).toBe(embeddingUsage.prompt_tokens);
    expect(view.graphql.cost).toBeCloseTo(call.metadata.cost!, 12);
  });

  it('shows a failed call: error status and the provider message on every span, the exception kept', async () => {
    const view = views.failed;
    expect(view.graphql.errorCount).toBe(3);
    const [call] = ofKind(view, 'LLM');
    expect(call).toMatchObject({ status: 'ERROR', status_message: failureMessage, model: failingModel });
    const details = await spanDetails(server, view.traceId, call.id);
    expect(details.span).toMatchObject({ status: 'ERROR', statusMessage: failureMessage });
    expect(details.span.content.internals.exception).toMatchObject({ type: 'AI_APICallError', message: failureMessage });
    expect(view.spans[0]).toMatchObject({ spankind: 'AGENT', status: 'ERROR', status_message: failureMessage });
  });
});
