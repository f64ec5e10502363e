// OpenTelemetry GenAI spans (the current and older forms, and messages as events) through the real
// HTTP JSON exporter, mapped onto the Span (span-mapping.ts, span-content.ts), their cost and
// tokens rolled up to the trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/helpers/server.js';
import { testTracer } from '../../../../test/helpers/otel.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ OTLP_GRPC_PORT: '0' });
});

afterAll(async () => {
  await server.close();
});

const T = 1_714_564_800_000; // 2024-05-01T12:00:00Z in ms
const ms = (offset: number) => new Date(T + offset);

const traceTree = async (traceId: string) => {
  const response = await server.request('GET', `/observability/traces/${traceId}`);
  expect(response.status).toBe(200);
  return response.body;
};

describe('OTel GenAI spans through the HTTP JSON exporter', () => {
  let traceId: string;
  let newForm: string;
  let oldForm: string;
  let eventForm: string;
  let embedding: string;

  beforeAll(async () => {
    const otel = testTracer('json', `${server.baseUrl}/otlp/v1/traces`, { 'deployment.environment': 'production', 'user.id': 'resource-user' });
    const { tracer } = otel;
    const root = tracer.startSpan('invoke_agent travel', {
      startTime: ms(0),
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'travel', 'gen_ai.conversation.id': 'conv-1' },
    });
    const chat = tracer.startSpan(
      'chat gpt-4o',
      {
        startTime: ms(10),
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.response.model': 'gpt-4o-2024-08-06',
          'gen_ai.request.temperature': 0.5,
          'gen_ai.request.max_tokens': 200,
          'gen_ai.request.stop_sequences': ['END'],
          'gen_ai.usage.input_tokens': 2000,
          'gen_ai.usage.output_tokens': 100,
          'gen_ai.usage.cache_read.input_tokens': 1000,
          'gen_ai.system_instructions': '[{"type":"text","content":"Be brief."}]',
          'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}]',
          'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"text","content":"Sunny."}],"finish_reason":"stop"}]',
          'gen_ai.response.finish_reasons': ['stop'],
          'gen_ai.response.id': 'chatcmpl-1',
        },
      },
      otel.under(root),
    );
    chat.end(ms(510));
    const legacy = tracer.startSpan(
      'openai.chat',
      {
        startTime: ms(520),
        attributes: {
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-3.5-turbo',
          'gen_ai.prompt.0.role': 'user',
          'gen_ai.prompt.0.content': 'Hello',
          'gen_ai.completion.0.role': 'assistant',
          'gen_ai.completion.0.content': 'Hi there',
          'gen_ai.completion.0.finish_reason': 'stop',
          'gen_ai.usage.prompt_tokens': 10,
          'gen_ai.usage.completion_tokens': 5,
          'llm.cost.total': 0.125,
        },
      },
      otel.under(root),
    );
    legacy.end(ms(600));
    const events = tracer.startSpan(
      'chat claude',
      {
        startTime: ms(610),
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'anthropic', 'gen_ai.request.model': 'claude-3-5-sonnet-20241022' },
      },
      otel.under(root),
    );
    events.addEvent('gen_ai.system.message', { content: 'Be kind.' }, ms(611));
    events.addEvent('gen_ai.user.message', { content: 'Tell me a joke' }, ms(612));
    events.addEvent('gen_ai.choice', { index: 0, finish_reason: 'end_turn', message: '{"role":"assistant","content":"Why did…"}' }, ms(690));
    events.end(ms(700));
    const embed = tracer.startSpan(
      'embeddings text-embedding-3-small',
      {
        startTime: ms(710),
        attributes: { 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small', 'gen_ai.usage.input_tokens': 1_000_000 },
      },
      otel.under(root),
    );
    embed.end(ms(720));
    root.end(ms(800));
    await otel.flush();
    await otel.shutdown();
    traceId = root.spanContext().traceId;
    newForm = chat.spanContext().spanId;
    oldForm = legacy.spanContext().spanId;
    eventForm = events.spanContext().spanId;
    embedding = embed.spanContext().spanId;
  });

  const span = async (id: string) => {
    const response = await server.request('GET', `/observability/spans/${id}?type=span`);
    expect(response.status).toBe(200);
    return response.body;
  };

  it('maps the current GenAI form: messages with parts, system instructions, request config, cached-token pricing', async () => {
    expect(await span(newForm)).toMatchObject({
      spankind: 'LLM',
      parent_span_id: (await traceTree(traceId)).id,
      environment: 'production',
      user_id: 'resource-user',
      content: {
        inputs: {
          messages: [{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }], content: 'Weather in Paris?' }],
          system_instructions: [{ type: 'text', content: 'Be brief.' }],
        },
        outputs: { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Sunny.' }], finish_reason: 'stop', content: 'Sunny.' }] },
        internals: { finish_reasons: ['stop'], response_id: 'chatcmpl-1' },
      },
      config: { model: 'gpt-4o', provider: 'openai', temperature: 0.5, max_tokens: 200, stop_sequences: ['END'] },
      metadata: {
        // gpt-4o since 2024-10-02 is later than the span (2024-05-01): $5/$15, no cached rate.
        cost: 0.0115,
        usage: { prompt_tokens: 2000, completion_tokens: 100, total_tokens: 2100 },
      },
    });
  });

  it('maps the older GenAI form (indexed prompt and completion attributes) and keeps a reported cost', async () => {
    expect(await span(oldForm)).toMatchObject({
      spankind: 'LLM',
      content: {
        inputs: { messages: [{ role: 'user', content: 'Hello' }] },
        outputs: { messages: [{ role: 'assistant', content: 'Hi there', finish_reason: 'stop' }] },
      },
      config: { model: 'gpt-3.5-turbo', provider: 'openai' },
      metadata: { cost: 0.125, usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
    });
  });

  it('maps messages sent as GenAI events, and embeddings', async () => {
    expect(await span(eventForm)).toMatchObject({
      spankind: 'LLM',
      content: {
        inputs: {
          messages: [
            { role: 'system', content: 'Be kind.' },
            { role: 'user', content: 'Tell me a joke' },
          ],
        },
        outputs: { messages: [{ role: 'assistant', content: 'Why did…', finish_reason: 'end_turn' }] },
      },
      config: { model: 'claude-3-5-sonnet-20241022', provider: 'anthropic' },
      metadata: { cost: null },
    });
    expect(await span(embedding)).toMatchObject({ spankind: 'EMBEDDING', metadata: { cost: 0.02 } });
  });

  it('rolls cost and tokens up to the trace, and takes the session from gen_ai.conversation.id', async () => {
    const { data } = await server.graphql(
      `query ($id: String!) { trace(traceId: $id) { spanKind cost sessionId spanCount tokens { promptTokens completionTokens totalTokens } } }`,
      {
        id: traceId,
      },
    );
    expect(data.trace).toEqual({
      spanKind: 'AGENT',
      cost: 0.0115 + 0.125 + 0.02,
      sessionId: 'conv-1',
      spanCount: 5,
      tokens: { promptTokens: 1_002_010, completionTokens: 105, totalTokens: 1_002_115 },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Hand-made requests: the failure answers and partial success.
