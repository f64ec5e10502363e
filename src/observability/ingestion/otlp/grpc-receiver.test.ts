// OTLP/gRPC (grpc-receiver.ts) with the real SDK gRPC exporter, and raw messages no SDK would send:
// traces and logs, partial success, and messages over the size limit.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../../test/helpers/endpoints.js';
import { useTestServer } from '../../../../test/helpers/server.js';
import { testTracer } from '../../../../test/helpers/otel.js';
import { WalSync } from '../../../shared/wal-sync.js';
import { ExportLogsServiceRequest, ExportLogsServiceResponse, ExportTraceServiceRequest, ExportTraceServiceResponse } from './messages.js';

let grpcPort: number;
const server = useTestServer(async () => {
  grpcPort = await freePort();
  return { OTLP_GRPC_PORT: String(grpcPort) };
});

describe('OTLP/gRPC', () => {
  it('stores spans sent by the SDK gRPC exporter with the same mapping', async () => {
    const fsyncs = () => (server.assay.services.walSync instanceof WalSync ? server.assay.services.walSync.completed : null);
    const fsyncsBefore = fsyncs();
    const otel = testTracer('grpc', `http://127.0.0.1:${grpcPort}`, { 'deployment.environment.name': 'grpc-env' });
    const root = otel.tracer.startSpan('workflow', { attributes: { 'ag.type.node': 'workflow', 'user.id': 'u-1' } });
    const llm = otel.tracer.startSpan(
      'chat',
      {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4.1-mini',
          'gen_ai.usage.input_tokens': 100,
          'gen_ai.usage.output_tokens': 10,
        },
      },
      otel.under(root),
    );
    llm.end();
    root.end();
    await otel.flush();
    await otel.shutdown();
    // The export was answered only once its commit was on disk (SQLite: after an fsync of the WAL;
    // PostgreSQL: its COMMIT waited).
    if (fsyncsBefore !== null) expect(fsyncs()).toBeGreaterThan(fsyncsBefore);
    const tree = (await server.request('GET', `/observability/traces/${root.spanContext().traceId}`)).body;
    expect(tree).toMatchObject({ spankind: 'WORKFLOW', environment: 'grpc-env', user_id: 'u-1' });
    expect(tree.children[0]).toMatchObject({
      id: llm.spanContext().spanId,
      spankind: 'LLM',
      metadata: { usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } },
    });
    // gpt-4.1-mini: 100 × $0.40/M + 10 × $1.60/M
    expect(tree.children[0].metadata.cost).toBeCloseTo(0.000056, 12);
  });

  it('answers INVALID_ARGUMENT to a message that is not an ExportTraceServiceRequest', async () => {
    const { grpc, call, close } = await rawExport();
    const bad = await call(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]));
    expect(bad.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    const empty = await call(Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.create({})).finish()));
    expect(empty.error).toBeNull();
    close();
  });

  it('rejects a span without trace_id or span_id in partial_success and stores the others', async () => {
    const { call, close } = await rawExport();
    const trace = Buffer.from('0f'.repeat(16), 'hex');
    const message = ExportTraceServiceRequest.fromObject({
      resourceSpans: [
        {
          scopeSpans: [
            {
              scope: { name: 'raw' },
              spans: [
                { traceId: trace, spanId: Buffer.from('01'.repeat(8), 'hex'), name: 'ok', startTimeUnixNano: 1, endTimeUnixNano: 2 },
                { name: 'no ids', startTimeUnixNano: 1, endTimeUnixNano: 2 },
                { traceId: trace, name: 'no span id', startTimeUnixNano: 1, endTimeUnixNano: 2 },
              ],
            },
          ],
        },
      ],
    });
    const answer = await call(Buffer.from(ExportTraceServiceRequest.encode(message).finish()));
    close();
    expect(answer.error).toBeNull();
    const response = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(answer.response!), { longs: String });
    expect(response.partialSuccess.rejectedSpans).toBe('2');
    expect(response.partialSuccess.errorMessage).toContain('span #1 of resource_spans[0].scope_spans[0]: trace_id must be 16 bytes');
    expect(response.partialSuccess.errorMessage).toContain('span #2 of resource_spans[0].scope_spans[0]: span_id must be 8 bytes');
    const stored = await server.assay.db.span.findMany({ where: { traceId: trace.toString('hex') } });
    expect(stored.map((span) => span.spanId)).toEqual(['01'.repeat(8)]);
  });
});

describe('OTLP/gRPC messages over MAX_BODY_BYTES', () => {
  // 11 MB of text that gzip cannot shrink much, and as much that it can (under the limit sent,
  // over it once decompressed).
  const noise = (bytes: number) => randomBytes(bytes / 2).toString('hex');
  for (const [compression, text] of [
    ['none', () => noise(11 * 1024 * 1024)],
    ['gzip', () => 'a'.repeat(11 * 1024 * 1024)],
  ] as const) {
    it(`answers RESOURCE_EXHAUSTED with a message to the SDK exporter (compression ${compression}), and the next export goes through`, async () => {
      const otel = testTracer('grpc', `http://127.0.0.1:${grpcPort}`, {}, { compression });
      otel.tracer.startSpan('huge', { attributes: { payload: text() } }).end();
      // The batch processor rejects with the exporters' errors: here the gRPC status, not retried.
      const errors = await otel.flush().then(
        () => [],
        (error: unknown) => error as { code: number; details: string }[],
      );
      expect(errors).toHaveLength(1);
      expect(errors[0].code).toBe(8); // RESOURCE_EXHAUSTED
      expect(errors[0].details).toMatch(/^Received message (larger than max \(\d+ vs 10485760\)|that decompresses to a size larger than 10485760)$/);
      const small = otel.tracer.startSpan('small after huge');
      small.end();
      await otel.flush();
      await otel.shutdown();
      expect(await server.assay.db.span.count({ where: { traceId: small.spanContext().traceId } })).toBe(1);
    }, 30_000);
  }

  it('answers RESOURCE_EXHAUSTED to an oversized LogsService message too', async () => {
    const { grpc, call, close } = await rawExport('logs');
    const answer = await call(Buffer.alloc(11 * 1024 * 1024, 0));
    close();
    expect(answer.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(answer.error?.details).toMatch(/larger than max/);
  });
});

describe('OTLP/gRPC logs', () => {
  it('stores records naming a span and answers the others in partial_success', async () => {
    const { call, close } = await rawExport('logs');
    const trace = Buffer.from('0e'.repeat(16), 'hex');
    const message = ExportLogsServiceRequest.fromObject({
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                { traceId: trace, spanId: Buffer.from('01'.repeat(8), 'hex'), timeUnixNano: 1, body: { stringValue: 'kept' } },
                { timeUnixNano: 2, body: { stringValue: 'no span' } },
              ],
            },
          ],
        },
      ],
    });
    const answer = await call(Buffer.from(ExportLogsServiceRequest.encode(message).finish()));
    close();
    expect(answer.error).toBeNull();
    const response = ExportLogsServiceResponse.toObject(ExportLogsServiceResponse.decode(answer.response!), { longs: String });
    expect(response.partialSuccess.rejectedLogRecords).toBe('1');
    expect(response.partialSuccess.errorMessage).toContain('log record #1 of resource_logs[0].scope_logs[0]: names no span');
    expect(await server.assay.db.spanLogRecord.count({ where: { traceId: trace.toString('hex') } })).toBe(1);
  });
});

/** A client sending raw bytes to Export (of TraceService or LogsService), to send what no SDK would. */
async function rawExport(signal: 'trace' | 'logs' = 'trace') {
  const grpc = await import('@grpc/grpc-js');
  const client = new grpc.Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
  const call = (body: Buffer) =>
    new Promise<{ error: any; response?: Buffer }>((resolve) =>
      client.makeUnaryRequest(
        signal === 'logs' ? '/opentelemetry.proto.collector.logs.v1.LogsService/Export' : '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        (value: Buffer) => value,
        (value: Buffer) => value,
        body,
        (error, response) => resolve({ error, response }),
      ),
    );
  return { grpc, call, close: () => client.close() };
}
