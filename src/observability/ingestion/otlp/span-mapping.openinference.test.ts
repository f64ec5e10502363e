// OpenInference spans through the real OpenTelemetry HTTP protobuf exporter, mapped onto the Span
// (span-mapping.ts, span-content.ts) and read back through REST and GraphQL field by field.
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/helpers/server.js';
import { testTracer } from '../../../../test/helpers/otel.js';
import { globalId } from '../../../shared/graphql/ids.js';

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
