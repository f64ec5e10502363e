// Vercel AI SDK 6 (the `ai.*` attributes AI SDK 4–6 write) against an OpenAI-compatible API on
// loopback, its traces exported to Assay: chat, streamed chat, a tool loop, an embedding and a
// failed call, read back through REST, GraphQL and the UI's span details (docs/instrumentation.md#vercel-ai-sdk).
import { createOpenAI } from 'ai-sdk-openai-v3';
import { embedMany, generateText, stepCountIs, streamText, tool } from 'ai-v6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { expectToolLoop, ofKind, spanDetails, viewsByRoot, type TraceView } from './helpers/assay-views.js';
import { chatUsage, embeddingUsage, failingModel, failureMessage, weatherAnswer, weatherQuestion, weatherTool } from './helpers/openai-compatible.js';
import { startClientTest, type ClientTestBed } from './helpers/otel-sdk.js';

let bed: ClientTestBed;
let server: TestServer;
const views: Record<string, TraceView> = {};

beforeAll(async () => {
  bed = await startClientTest((baseUrl) => ({ url: `${baseUrl}/v1/traces`, serviceName: 'ai-sdk-6-app' }));
  ({ server } = bed);
  const { api, sdk } = bed;
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
    ...weatherQuestion,
    tools: { get_weather: tool(weatherTool) },
    stopWhen: stepCountIs(3),
    experimental_telemetry: telemetry('weather-agent'),
  });
  expect(withTool.text).toBe(weatherAnswer);
  await embedMany({ model: openai.embedding('text-embedding-3-small'), values: ['a sunny day', 'a rainy day'], experimental_telemetry: telemetry('embed') });
  await expect(generateText({ model: openai.chat(failingModel), prompt: 'Fail', maxRetries: 0, experimental_telemetry: telemetry('fail') })).rejects.toThrow();
  await sdk.flush();

  Object.assign(views, await viewsByRoot(server, sdk.spans(), ['chat', 'stream', 'agent', 'embedding', 'failed']));
});

afterAll(() => bed?.close());

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
    expect(details.inputs?.messages).toMatchObject([{ role: 'user', text: 'Hello there', rest: null }]);
    expect(details.outputs?.messages).toMatchObject([{ role: 'assistant', text: 'You said: Hello there', rest: { finish_reason: 'stop' } }]);
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
    await expectToolLoop(server, views.agent, 'ai.toolCall', ['system', 'user', 'assistant', 'tool']);
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
