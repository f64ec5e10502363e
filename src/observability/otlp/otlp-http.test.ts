// OTLP/HTTP with the real OpenTelemetry SDK exporters (protobuf and JSON): spans shaped like the
// OpenInference and OTel GenAI instrumentations produce, read back through REST and GraphQL field
// by field; then the answers exporters act on (400, 413, 415, partial success) and re-sends.
import { gzipSync } from 'node:zlib';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/helpers/server.js';
import { ExportTraceServiceRequest, ExportTraceServiceResponse, RpcStatus } from './proto.js';
import { testTracer } from '../../../test/helpers/otel.js';
import { globalId } from '../../shared/graphql/ids.js';

let server: TestServer;
const MAX_BODY = 300_000;

beforeAll(async () => {
  server = await startServer({ OTLP_GRPC_PORT: '0', MAX_BODY_BYTES: String(MAX_BODY) });
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

const spanFields = `spanId traceId parentSpanId name spanKind status statusMessage model cachedTokens costSource
  startTime endTime latency environment userId sessionId appId
  content { inputs outputs internals } metadata { cost latency usage { promptTokens completionTokens totalTokens } }
  config variant { variantId variantName revision } attributes events links resource scope`;

describe('OpenInference spans through the HTTP protobuf exporter', () => {
  let traceId: string;
  let rootId: string;
  let llmId: string;
  let toolId: string;

  beforeAll(async () => {
    const otel = testTracer('proto', `${server.baseUrl}/v1/traces`, { 'deployment.environment.name': 'staging' });
    const { tracer } = otel;
    const root = tracer.startSpan('agent run', {
      startTime: ms(0),
      attributes: {
        'openinference.span.kind': 'CHAIN',
        'input.value': '{"question":"What is the capital of France?"}',
        'input.mime_type': 'application/json',
        'output.value': 'Paris',
        'user.id': 'user-42',
        'session.id': 'session-7',
        metadata: '{"experiment":"a1"}',
        'tag.tags': ['geo', 'demo'],
        'assay.variant.id': 'variant-1',
        'assay.variant.name': 'baseline',
        'assay.variant.revision': 3,
        'assay.app.id': 'app-9',
      },
    });
    const llm = tracer.startSpan(
      'ChatCompletion',
      {
        startTime: ms(100),
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o-mini-2024-07-18',
          'llm.provider': 'openai',
          'llm.invocation_parameters': '{"temperature":0.2,"max_tokens":256}',
          'llm.input_messages.0.message.role': 'system',
          'llm.input_messages.0.message.content': 'You answer geography questions.',
          'llm.input_messages.1.message.role': 'user',
          'llm.input_messages.1.message.content': 'What is the capital of France?',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': 'Paris',
          'llm.token_count.prompt': 1000,
          'llm.token_count.completion': 500,
          'llm.token_count.total': 1500,
          'llm.tools.0.tool.json_schema': '{"type":"function","function":{"name":"lookup"}}',
          'llm.prompt_template.template': 'Q: {question}',
          'llm.prompt_template.variables': '{"question":"What is the capital of France?"}',
          'input.value': '{"messages":[]}',
        },
      },
      otel.under(root),
    );
    llm.end(ms(900));
    const tool = tracer.startSpan(
      'lookup',
      { startTime: ms(950), attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'lookup', 'tool.parameters': '{"city":"Paris"}' } },
      otel.under(root),
    );
    tool.recordException(new TypeError('lookup failed'), ms(960));
    tool.setStatus({ code: SpanStatusCode.ERROR, message: 'lookup failed' });
    tool.end(ms(970));
    const retriever = tracer.startSpan(
      'retrieve',
      {
        startTime: ms(980),
        attributes: {
          'openinference.span.kind': 'RETRIEVER',
          'input.value': 'capital of France',
          'retrieval.documents.0.document.id': 'd1',
          'retrieval.documents.0.document.content': 'Paris is the capital of France.',
          'retrieval.documents.0.document.score': 0.9,
          'retrieval.documents.1.document.id': 'd2',
          'retrieval.documents.1.document.content': 'France is in Europe.',
        },
      },
      otel.under(root),
    );
    retriever.end(ms(990));
    root.setStatus({ code: SpanStatusCode.OK });
    root.end(ms(1000));
    await otel.flush();
    await otel.shutdown();
    traceId = root.spanContext().traceId;
    rootId = root.spanContext().spanId;
    llmId = llm.spanContext().spanId;
    toolId = tool.spanContext().spanId;
  });

  it('stores the trace under the ids the SDK generated, as lower-case hex', async () => {
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const tree = await traceTree(traceId);
    expect(tree.id).toBe(rootId);
    expect(tree.trace_id).toBe(traceId);
    expect(tree.children.map((child: any) => child.name)).toEqual(['ChatCompletion', 'lookup', 'retrieve']);
  });

  it('maps the root CHAIN span: kind, status, content, user, session, environment, variant', async () => {
    const tree = await traceTree(traceId);
    expect(tree).toMatchObject({
      name: 'agent run',
      spankind: 'CHAIN',
      status: 'OK',
      parent_span_id: null,
      created_at: '2024-05-01T12:00:00.000Z',
      environment: 'staging',
      user_id: 'user-42',
      variant: { variant_id: 'variant-1', variant_name: 'baseline', revision: 3 },
      content: {
        inputs: { question: 'What is the capital of France?' },
        outputs: { output: 'Paris' },
        internals: { metadata: { experiment: 'a1' }, tags: ['geo', 'demo'] },
      },
      session_id: 'session-7',
      status_message: null,
      model: null,
      config: null,
      // The root made no model call and reported no cost or usage: it shows the trace's sums (the LLM call's).
      metadata: {
        cost: 0.00045,
        usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
        latency: 1,
        start_time: '2024-05-01T12:00:00.000Z',
        end_time: '2024-05-01T12:00:01.000Z',
      },
    });
  });

  it('maps the LLM span: messages, config from invocation parameters, usage, and a cost from the price table', async () => {
    const llm = (await traceTree(traceId)).children[0];
    expect(llm).toEqual({
      id: llmId,
      name: 'ChatCompletion',
      project_id: expect.any(String),
      parent_span_id: rootId,
      created_at: '2024-05-01T12:00:00.100Z',
      variant: { variant_id: null, variant_name: null, revision: null },
      environment: 'staging',
      spankind: 'LLM',
      status: 'UNSET',
      status_message: null,
      metadata: {
        // gpt-4o-mini: 1000 × $0.15/M + 500 × $0.60/M
        cost: 0.00045,
        latency: 0.8,
        usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
        start_time: '2024-05-01T12:00:00.100Z',
        end_time: '2024-05-01T12:00:00.900Z',
      },
      trace_id: traceId,
      user_id: null,
      session_id: null,
      model: 'gpt-4o-mini-2024-07-18',
      content: {
        inputs: {
          messages: [
            { role: 'system', content: 'You answer geography questions.' },
            { role: 'user', content: 'What is the capital of France?' },
          ],
        },
        outputs: { messages: [{ role: 'assistant', content: 'Paris' }] },
        internals: {
          prompt_template: { template: 'Q: {question}', variables: { question: 'What is the capital of France?' } },
          tools: [{ json_schema: { type: 'function', function: { name: 'lookup' } } }],
        },
      },
      config: { model: 'gpt-4o-mini-2024-07-18', provider: 'openai', temperature: 0.2, max_tokens: 256 },
      children: [],
    });
  });

  it('maps the failed TOOL span and the RETRIEVER documents', async () => {
    const [, tool, retriever] = (await traceTree(traceId)).children;
    expect(tool).toMatchObject({
      id: toolId,
      spankind: 'TOOL',
      status: 'ERROR',
      status_message: 'lookup failed',
      content: {
        inputs: { arguments: { city: 'Paris' } },
        outputs: null,
        internals: { tool: { name: 'lookup' }, exception: { type: 'TypeError', message: 'lookup failed', stacktrace: expect.stringContaining('TypeError') } },
      },
    });
    expect(retriever).toMatchObject({
      spankind: 'RETRIEVER',
      content: {
        inputs: { input: 'capital of France' },
        outputs: {
          documents: [
            { id: 'd1', content: 'Paris is the capital of France.', score: 0.9 },
            { id: 'd2', content: 'France is in Europe.' },
          ],
        },
      },
    });
  });

  it('reads every field back through GraphQL, the raw attributes, events, resource and scope kept', async () => {
    const { data, errors } = await server.graphql(
      `query ($id: String!) { trace(traceId: $id) {
        traceId name spanKind status spanCount errorCount cost tokens { promptTokens completionTokens totalTokens }
        latency environment userId sessionId appId variantId variantName
        roots { spanId } spans(first: 10) { edges { node { ${spanFields} } } } } }`,
      { id: traceId },
    );
    expect(errors).toBeUndefined();
    expect(data.trace).toMatchObject({
      traceId: traceId,
      name: 'agent run',
      spanKind: 'CHAIN',
      status: 'ERROR', // a span failed
      spanCount: 4,
      errorCount: 1,
      cost: 0.00045,
      tokens: { promptTokens: 1000, completionTokens: 500, totalTokens: 1500 },
      latency: 1,
      environment: 'staging',
      userId: 'user-42',
      sessionId: 'session-7',
      appId: globalId('App', 'app-9'),
      variantId: globalId('Variant', 'variant-1'),
      variantName: 'baseline',
      roots: [{ spanId: rootId }],
    });
    const spans = data.trace.spans.edges.map((edge: any) => edge.node);
    const llm = spans.find((span: any) => span.spanId === llmId);
    expect(llm).toMatchObject({
      model: 'gpt-4o-mini-2024-07-18',
      costSource: 'computed',
      cachedTokens: null,
      startTime: '2024-05-01T12:00:00.100Z',
      latency: 0.8,
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.token_count.prompt': 1000,
        'llm.input_messages.1.message.content': 'What is the capital of France?',
        'llm.invocation_parameters': '{"temperature":0.2,"max_tokens":256}',
      },
      events: null,
      links: null,
      resource: { attributes: { 'service.name': 'assay-tests', 'deployment.environment.name': 'staging' } },
      scope: { name: 'assay-test-instrumentation', version: '1.2.3', attributes: {} },
    });
    const tool = spans.find((span: any) => span.spanId === toolId);
    expect(tool.statusMessage).toBe('lookup failed');
    expect(tool.events).toEqual([
      {
        name: 'exception',
        time: '2024-05-01T12:00:00.960Z',
        time_unix_nano: '1714564800960000000',
        attributes: { 'exception.type': 'TypeError', 'exception.message': 'lookup failed', 'exception.stacktrace': expect.any(String) },
      },
    ]);
    const root = spans.find((span: any) => span.spanId === rootId);
    expect(root.attributes['tag.tags']).toEqual(['geo', 'demo']);
    expect(root.attributes['assay.variant.revision']).toBe(3);
  });
});

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

const hexId = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');

function jsonSpan(trace: number, span: number, extra: Record<string, unknown> = {}) {
  return {
    traceId: hexId(trace, 16),
    spanId: hexId(span, 8),
    name: `span ${span}`,
    kind: 1,
    startTimeUnixNano: '1714564800000000000',
    endTimeUnixNano: '1714564801000000000',
    attributes: [{ key: 'openinference.span.kind', value: { stringValue: 'TOOL' } }],
    ...extra,
  };
}

const jsonBody = (spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'manual' }, spans }] }] });

function protoBody(spans: Record<string, unknown>[]): Buffer {
  const message = ExportTraceServiceRequest.fromObject({ resourceSpans: [{ scopeSpans: [{ scope: { name: 'manual' }, spans }] }] });
  return Buffer.from(ExportTraceServiceRequest.encode(message).finish());
}

async function post(body: Buffer | string, headers: Record<string, string>, path = '/v1/traces') {
  const response = await fetch(server.baseUrl + path, { method: 'POST', body: typeof body === 'string' ? body : new Uint8Array(body), headers });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

const protoHeaders = { 'content-type': 'application/x-protobuf' };
const jsonHeaders = { 'content-type': 'application/json' };

describe('OTLP/HTTP answers', () => {
  it('answers an empty ExportTraceServiceResponse in the request encoding', async () => {
    const proto = await post(
      protoBody([{ traceId: Buffer.from(hexId(1, 16), 'hex'), spanId: Buffer.from(hexId(1, 8), 'hex'), name: 'p', startTimeUnixNano: 1, endTimeUnixNano: 2 }]),
      protoHeaders,
    );
    expect(proto.status).toBe(200);
    expect(proto.headers.get('content-type')).toBe('application/x-protobuf');
    expect(ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(proto.body))).toEqual({});

    const json = await post(JSON.stringify(jsonBody([jsonSpan(2, 1)])), jsonHeaders, '/api/otlp/v1/traces');
    expect(json.status).toBe(200);
    expect(JSON.parse(json.body.toString())).toEqual({});
    expect((await server.request('GET', `/observability/traces/${hexId(2, 16)}`)).body.spankind).toBe('TOOL');
  });

  it('names rejected spans in partial_success and stores the others (JSON)', async () => {
    const body = jsonBody([
      jsonSpan(3, 1),
      jsonSpan(3, 2, { traceId: 'not-hex' }),
      jsonSpan(3, 3, { endTimeUnixNano: '1714564799000000000' }),
      jsonSpan(3, 0),
      jsonSpan(3, 5, { parentSpanId: hexId(1, 8), startTimeUnixNano: 1714564800500000000 }),
    ]);
    const response = await post(JSON.stringify(body), jsonHeaders);
    expect(response.status).toBe(200);
    const answer = JSON.parse(response.body.toString());
    expect(answer.partialSuccess.rejectedSpans).toBe('3');
    expect(answer.partialSuccess.errorMessage).toContain('3 spans rejected');
    expect(answer.partialSuccess.errorMessage).toContain(`span ${hexId(2, 8)}: trace_id must be 32 hex digits`);
    expect(answer.partialSuccess.errorMessage).toContain(`span ${hexId(3, 8)} of trace ${hexId(3, 16)}: end_time_unix_nano is before start_time_unix_nano`);
    expect(answer.partialSuccess.errorMessage).toContain('span_id must be 8 bytes, not all zero');
    const stored = await server.assay.db.span.findMany({ where: { traceId: hexId(3, 16) }, orderBy: { spanId: 'asc' } });
    expect(stored.map((span) => span.spanId)).toEqual([hexId(1, 8), hexId(5, 8)]);
    expect(stored[1].parentSpanId).toBe(hexId(1, 8));
  });

  it('names rejected spans in partial_success (protobuf)', async () => {
    const response = await post(
      protoBody([
        {
          traceId: Buffer.from(hexId(4, 16), 'hex'),
          spanId: Buffer.from(hexId(1, 8), 'hex'),
          name: 'ok',
          startTimeUnixNano: 1714564800000000000n.toString(),
          endTimeUnixNano: '1714564800000000001',
        },
        { traceId: Buffer.from(hexId(4, 16), 'hex'), spanId: Buffer.alloc(8), name: 'zero id', startTimeUnixNano: 1, endTimeUnixNano: 2 },
        { traceId: Buffer.from(hexId(4, 16), 'hex'), spanId: Buffer.from(hexId(3, 8), 'hex'), name: 'no times' },
      ]),
      protoHeaders,
    );
    expect(response.status).toBe(200);
    const answer = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(response.body), { longs: String });
    expect(answer.partialSuccess.rejectedSpans).toBe('2');
    expect(answer.partialSuccess.errorMessage).toContain('span_id must be 8 bytes, not all zero');
    expect(answer.partialSuccess.errorMessage).toContain(`span ${hexId(3, 8)} of trace ${hexId(4, 16)}: start_time_unix_nano is missing`);
    expect(await server.assay.db.span.count({ where: { traceId: hexId(4, 16) } })).toBe(1);
  });

  it('rejects a protobuf span without trace_id or span_id (proto3 leaves empty bytes out) and stores the others', async () => {
    // The issue's own request: one span carrying nothing but a name.
    const bare = await post(Buffer.from('0a120a00120e0a070a0573636f706512032a0178', 'hex'), protoHeaders);
    expect(bare.status).toBe(200);
    const bareAnswer = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(bare.body), { longs: String });
    expect(bareAnswer.partialSuccess).toEqual({
      rejectedSpans: '1',
      errorMessage: expect.stringContaining('span #0 of resource_spans[0].scope_spans[0]: trace_id must be 16 bytes'),
    });

    const response = await post(
      protoBody([
        { traceId: Buffer.from(hexId(16, 16), 'hex'), spanId: Buffer.from(hexId(1, 8), 'hex'), name: 'ok', startTimeUnixNano: 1, endTimeUnixNano: 2 },
        { name: 'no ids', startTimeUnixNano: 1, endTimeUnixNano: 2 },
        { traceId: Buffer.from(hexId(16, 16), 'hex'), name: 'no span id', startTimeUnixNano: 1, endTimeUnixNano: 2 },
        { spanId: Buffer.from(hexId(4, 8), 'hex'), name: 'no trace id', startTimeUnixNano: 1, endTimeUnixNano: 2 },
        // A link without ids is kept as it came: it names nothing the span needs.
        {
          traceId: Buffer.from(hexId(16, 16), 'hex'),
          spanId: Buffer.from(hexId(5, 8), 'hex'),
          name: 'bare link',
          startTimeUnixNano: 1,
          endTimeUnixNano: 2,
          links: [{}],
        },
      ]),
      protoHeaders,
    );
    expect(response.status).toBe(200);
    const answer = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(response.body), { longs: String });
    expect(answer.partialSuccess.rejectedSpans).toBe('3');
    expect(answer.partialSuccess.errorMessage).toContain('span #1 of resource_spans[0].scope_spans[0]: trace_id must be 16 bytes');
    expect(answer.partialSuccess.errorMessage).toContain('span #2 of resource_spans[0].scope_spans[0]: span_id must be 8 bytes');
    expect(answer.partialSuccess.errorMessage).toContain(`span ${hexId(4, 8)}: trace_id must be 16 bytes`);
    const stored = await server.assay.db.span.findMany({ where: { traceId: hexId(16, 16) }, orderBy: { spanId: 'asc' } });
    expect(stored.map((span) => span.spanId)).toEqual([hexId(1, 8), hexId(5, 8)]);
  });

  it('answers 400 with a google.rpc.Status to a body that is not protobuf, or not JSON', async () => {
    const proto = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), protoHeaders);
    expect(proto.status).toBe(400);
    const status = RpcStatus.toObject(RpcStatus.decode(proto.body));
    expect(status.code).toBe(3);
    expect(status.message).toContain('not an OTLP ExportTraceServiceRequest');

    const json = await post('{"resourceSpans": [', jsonHeaders);
    expect(json.status).toBe(400);
    expect(JSON.parse(json.body.toString())).toMatchObject({ code: 3, message: expect.stringContaining('not valid JSON') });

    const shape = await post('{"resourceSpans": {"a": 1}}', jsonHeaders);
    expect(shape.status).toBe(400);
    expect(JSON.parse(shape.body.toString()).message).toBe('resourceSpans must be an array');

    const gz = await post(Buffer.from('not gzip'), { ...jsonHeaders, 'content-encoding': 'gzip' });
    expect(gz.status).toBe(400);
  });

  it('answers 415 to other content types and encodings', async () => {
    const text = await post('hello', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(JSON.parse(text.body.toString())).toMatchObject({ code: 3 });
    const brotli = await post(JSON.stringify(jsonBody([])), { ...jsonHeaders, 'content-encoding': 'br' });
    expect(brotli.status).toBe(415);
  });

  it('answers 413 to a body over MAX_BODY_BYTES, compressed or not', async () => {
    const big = JSON.stringify(jsonBody([jsonSpan(5, 1, { name: 'x'.repeat(MAX_BODY) })]));
    expect((await post(big, jsonHeaders)).status).toBe(413);
    const bomb = gzipSync(Buffer.from(big));
    expect(bomb.length).toBeLessThan(MAX_BODY);
    const response = await post(bomb, { ...jsonHeaders, 'content-encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body.toString()).message).toContain('decompressed body exceeds');
    expect(await server.assay.db.span.count({ where: { traceId: hexId(5, 16) } })).toBe(0);
  });

  it('takes gzip bodies, and stores a re-sent batch once', async () => {
    const body = gzipSync(
      protoBody([
        {
          traceId: Buffer.from(hexId(6, 16), 'hex'),
          spanId: Buffer.from(hexId(1, 8), 'hex'),
          name: 'a',
          startTimeUnixNano: '1714564800000000000',
          endTimeUnixNano: '1714564801000000000',
        },
        {
          traceId: Buffer.from(hexId(6, 16), 'hex'),
          spanId: Buffer.from(hexId(2, 8), 'hex'),
          parentSpanId: Buffer.from(hexId(1, 8), 'hex'),
          name: 'b',
          startTimeUnixNano: '1714564800000000000',
          endTimeUnixNano: '1714564801000000000',
        },
      ]),
    );
    for (let i = 0; i < 3; i++) expect((await post(body, { ...protoHeaders, 'content-encoding': 'gzip' })).status).toBe(200);
    expect(await server.assay.db.span.count({ where: { traceId: hexId(6, 16) } })).toBe(2);
    expect((await server.assay.db.trace.findFirst({ where: { traceId: hexId(6, 16) } }))?.spanCount).toBe(2);
  });

  it('exports through the SDK with gzip compression', async () => {
    const otel = testTracer('proto', `${server.baseUrl}/v1/traces`, {}, { compression: 'gzip' });
    const span = otel.tracer.startSpan('gzipped', { attributes: { 'openinference.span.kind': 'AGENT' } });
    span.end();
    await otel.flush();
    await otel.shutdown();
    expect((await traceTree(span.spanContext().traceId)).spankind).toBe('AGENT');
  });

  it("serves Langfuse's path, so an app set up for Langfuse exports to Assay unchanged", async () => {
    // Langfuse's setting is OTEL_EXPORTER_OTLP_ENDPOINT=<host>/api/public/otel; exporters add /v1/traces.
    const otel = testTracer('proto', `${server.baseUrl}/api/public/otel/v1/traces`, { 'service.name': 'langfuse-app' });
    const span = otel.tracer.startSpan('langfuse generation', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' } });
    span.end();
    await otel.flush();
    await otel.shutdown();
    const stored = await server.request('GET', `/observability/spans/${span.spanContext().spanId}?type=span`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ spankind: 'LLM', trace_id: span.spanContext().traceId });
  });
});
