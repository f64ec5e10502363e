// OpenTelemetry's own OpenAI instrumentation (@opentelemetry/instrumentation-openai) with the real
// `openai` client against a local OpenAI-compatible server: its spans through the trace exporter,
// its prompts and answers as OTLP log records through each log exporter (HTTP protobuf, HTTP JSON,
// gRPC), joined by Assay whichever arrives first (docs/instrumentation.md#opentelemetry-openai-instrumentation).
import { metrics } from '@opentelemetry/api';
import { OTLPLogExporter as GrpcLogExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import * as openaiModule from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type FakeEndpoint } from '../../../../test/helpers/endpoints.js';
import {
  chatUsage,
  embeddingUsage,
  failingModel,
  failureMessage,
  startOpenAICompatible,
  weatherAnswer,
} from '../../../../test/clients/helpers/openai-compatible.js';
import { startServer, type TestServer } from '../../../../test/helpers/server.js';

let server: TestServer;
let model: FakeEndpoint;
let grpcPort: number;

beforeAll(async () => {
  grpcPort = await freePort();
  server = await startServer({ OTLP_GRPC_PORT: String(grpcPort) });
  model = await startOpenAICompatible();
});

afterAll(async () => {
  await model.close();
  await server.close();
});

/** The instrumentation on the `openai` module, its spans and log records exported to Assay. */
function instrumented(logExporter: LogRecordExporter, environment: string) {
  const resource = resourceFromAttributes({ 'service.name': 'openai-app', 'deployment.environment.name': environment });
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${server.baseUrl}/v1/traces` }), scheduledDelayMillis: 60_000 })],
  });
  const loggerProvider = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor({ exporter: logExporter, scheduledDelayMillis: 60_000 })] });
  const instrumentation = new OpenAIInstrumentation({ captureMessageContent: true });
  instrumentation.setTracerProvider(tracerProvider);
  instrumentation.setLoggerProvider(loggerProvider);
  // Makes its metric instruments (its constructor's are lost to its class fields); registerInstrumentations does this too.
  instrumentation.setMeterProvider(metrics.getMeterProvider());
  // Patched by hand: vitest loads `openai` as an ES module, which the require hook never sees.
  const [definition] = instrumentation.getModuleDefinitions();
  definition.patch!(openaiModule);
  const client = new openaiModule.OpenAI({ apiKey: 'sk-test', baseURL: model.url });
  return {
    client,
    flushLogs: () => loggerProvider.forceFlush(),
    flushSpans: () => tracerProvider.forceFlush(),
    shutdown: async () => {
      definition.unpatch!(openaiModule);
      instrumentation.disable();
      await Promise.all([tracerProvider.shutdown(), loggerProvider.shutdown()]);
    },
  };
}

const SPAN = `spanId traceId name spanKind status statusMessage model content { inputs outputs internals }
  metadata { cost usage { promptTokens completionTokens totalTokens } } events`;

/** The traces of one environment (one per model call here), by their root span's name and order. */
async function tracesOf(environment: string) {
  const response = await server.graphql(
    `query($environment: String) { traces(first: 20, environment: $environment, sortBy: START_TIME, sortDirection: ASC) {
       edges { node { traceId spanCount errorCount cost tokens { promptTokens completionTokens totalTokens } root { ${SPAN} } } } } }`,
    { environment },
  );
  expect(response.errors).toBeUndefined();
  return response.data.traces.edges.map((edge: any) => edge.node);
}

const chatCost = (20 * 0.15 + 8 * 0.6) / 1e6; // gpt-4o-mini: $0.15/M in, $0.60/M out
/** The tool call the API makes when offered tools for a weather question. */
const toolCall = { id: 'call_weather_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
const answer = (question: string) => `You said: ${question}`;

describe('OpenTelemetry OpenAI instrumentation, log records before spans (HTTP protobuf)', () => {
  let traces: any[];

  beforeAll(async () => {
    const app = instrumented(new ProtoLogExporter({ url: `${server.baseUrl}/v1/logs` }), 'proto');
    const { client } = app;
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
      ],
    });
    let streamed = '';
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Capital of France, streamed?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const part of stream) streamed += part.choices[0]?.delta?.content ?? '';
    expect(streamed).toBe(answer('Capital of France, streamed?'));
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const question = { role: 'user' as const, content: 'Weather in Paris?' };
    const call = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], tools });
    const toolCall = call.choices[0].message.tool_calls![0];
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [question, call.choices[0].message, { role: 'tool', tool_call_id: toolCall.id, content: '21 °C' }],
      tools,
    });
    await client.embeddings.create({ model: 'text-embedding-3-small', input: 'Paris' });
    await expect(client.chat.completions.create({ model: failingModel, messages: [{ role: 'user', content: 'Hello?' }] })).rejects.toThrow(/400/);
    // The records reach Assay before their spans: each is kept until its span comes.
    await app.flushLogs();
    expect(await server.assay.db.span.count()).toBe(0);
    expect(await server.assay.db.spanLogRecord.count()).toBeGreaterThanOrEqual(9);
    await app.flushSpans();
    await app.shutdown();
    traces = await tracesOf('proto');
  });

  it('shows each call as a span of its kind, with its model, tokens and cost', () => {
    expect(traces.map((trace) => [trace.root.name, trace.root.spanKind, trace.root.model])).toEqual([
      ['chat gpt-4o-mini', 'LLM', 'gpt-4o-mini'],
      ['chat gpt-4o-mini', 'LLM', 'gpt-4o-mini'],
      ['chat gpt-4o-mini', 'LLM', 'gpt-4o-mini'],
      ['chat gpt-4o-mini', 'LLM', 'gpt-4o-mini'],
      ['embeddings text-embedding-3-small', 'EMBEDDING', 'text-embedding-3-small'],
      [`chat ${failingModel}`, 'LLM', failingModel],
    ]);
    for (const trace of traces.slice(0, 4)) {
      expect(trace.root.metadata.usage).toEqual({ promptTokens: 20, completionTokens: 8, totalTokens: 28 });
      expect(trace.root.metadata.cost).toBeCloseTo(chatCost, 12);
      // One model call per trace, counted once.
      expect(trace.tokens).toEqual({
        promptTokens: chatUsage.prompt_tokens,
        completionTokens: chatUsage.completion_tokens,
        totalTokens: chatUsage.total_tokens,
      });
      expect(trace.cost).toBeCloseTo(chatCost, 12);
    }
    expect(traces[4].root.metadata.usage).toEqual({
      promptTokens: embeddingUsage.prompt_tokens,
      completionTokens: null,
      totalTokens: embeddingUsage.total_tokens,
    });
    expect(traces[4].root.metadata.cost).toBeCloseTo((embeddingUsage.prompt_tokens * 0.02) / 1e6, 12);
  });

  it('shows the conversation from the log records: roles, text, finish reasons', () => {
    const [chat, streamed] = traces;
    expect(chat.root.content.inputs).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
      ],
    });
    expect(chat.root.content.outputs).toEqual({ messages: [{ role: 'assistant', content: answer('Capital of France?'), finish_reason: 'stop' }] });
    expect(streamed.root.content.inputs).toEqual({ messages: [{ role: 'user', content: 'Capital of France, streamed?' }] });
    expect(streamed.root.content.outputs).toEqual({
      messages: [{ role: 'assistant', content: answer('Capital of France, streamed?'), finish_reason: 'stop' }],
    });
    expect(chat.root.events.map((event: any) => event.name)).toEqual(['gen_ai.system.message', 'gen_ai.user.message', 'gen_ai.choice']);
  });

  it('shows the tool call and, in the next call, its result', () => {
    const [, , call, answer] = traces;
    expect(call.root.content.outputs).toEqual({ messages: [{ role: 'assistant', tool_calls: [toolCall], finish_reason: 'tool_calls' }] });
    expect(answer.root.content.inputs).toEqual({
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', tool_calls: [toolCall] },
        { role: 'tool', tool_call_id: toolCall.id, content: '21 °C' },
      ],
    });
    expect(answer.root.content.outputs).toEqual({ messages: [{ role: 'assistant', content: weatherAnswer, finish_reason: 'stop' }] });
  });

  it('shows the failed call as an error with its message, and what was asked', async () => {
    const failed = traces[5];
    expect(failed.root.status).toBe('ERROR');
    expect(failed.root.statusMessage).toContain(failureMessage);
    expect(failed.errorCount).toBe(1);
    expect(failed.root.content.inputs).toEqual({ messages: [{ role: 'user', content: 'Hello?' }] });
    expect(failed.root.content.outputs).toBeNull();
    // REST reads the same span.
    const rest = (await server.request('GET', `/observability/traces/${failed.traceId}`)).body;
    expect(rest).toMatchObject({
      spankind: 'LLM',
      status: 'ERROR',
      status_message: expect.stringContaining('does not exist'),
      content: { inputs: { messages: [{ role: 'user', content: 'Hello?' }] } },
    });
  });

  it('answers the same through REST for a chat span', async () => {
    const rest = (await server.request('GET', `/observability/traces/${traces[0].traceId}`)).body;
    expect(rest).toMatchObject({
      spankind: 'LLM',
      model: 'gpt-4o-mini',
      environment: 'proto',
      metadata: { usage: chatUsage },
      content: { outputs: { messages: [{ role: 'assistant', content: answer('Capital of France?') }] } },
    });
    expect(rest.metadata.cost).toBeCloseTo(chatCost, 12);
  });
});

describe('OpenTelemetry OpenAI instrumentation, spans before log records', () => {
  for (const [kind, exporter] of [
    ['json', () => new JsonLogExporter({ url: `${server.baseUrl}/v1/logs` })],
    ['grpc', () => new GrpcLogExporter({ url: `http://127.0.0.1:${grpcPort}` })],
  ] as const) {
    it(`joins the records the ${kind} log exporter sends after the spans`, async () => {
      const app = instrumented(exporter(), kind);
      await app.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Capital of France? (${kind})` }] });
      await app.flushSpans();
      const [before] = await tracesOf(kind);
      expect(before.root.content.inputs).toBeNull();
      await app.flushLogs();
      await app.shutdown();
      const [after] = await tracesOf(kind);
      expect(after.root.content).toMatchObject({
        inputs: { messages: [{ role: 'user', content: `Capital of France? (${kind})` }] },
        outputs: { messages: [{ role: 'assistant', content: answer(`Capital of France? (${kind})`), finish_reason: 'stop' }] },
      });
      expect(after.root.model).toBe('gpt-4o-mini');
    });
  }
});
