// OTLP/HTTP answers (http-receiver.ts) to hand-made requests: the response in the request's
// encoding, partial success naming rejected spans, the 400, 413 and 415 exporters act on, gzip
// bodies and re-sends, and Langfuse's path.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../../test/helpers/server.js';
import { testTracer } from '../../../../test/helpers/otel.js';
import { ExportTraceServiceRequest, ExportTraceServiceResponse, RpcStatus } from './messages.js';

const MAX_BODY = 300_000;
const server = useTestServer({ OTLP_GRPC_PORT: '0', MAX_BODY_BYTES: String(MAX_BODY) });

const traceTree = async (traceId: string) => {
  const response = await server.request('GET', `/observability/traces/${traceId}`);
  expect(response.status).toBe(200);
  return response.body;
};

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
