// The real OpenTelemetry JS SDK, pointed at a test server: a tracer whose spans go through one of
// the official OTLP exporters (HTTP protobuf, HTTP JSON, gRPC), flushed on demand.
import { ROOT_CONTEXT, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';

export type ExporterKind = 'proto' | 'json' | 'grpc';

export interface TestTracer {
  tracer: Tracer;
  /** Exports every ended span and waits for the server's answers. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
  /** The context whose active span is `span`: pass it to startSpan to make a child. */
  under(span: Span): Context;
}

export interface TestTracerOptions {
  compression?: 'gzip' | 'none';
  /** Spans per export request (512 unless given). */
  maxExportBatchSize?: number;
  /** Ended spans kept until a flush (the SDK's 2,048 unless given; more are dropped). */
  maxQueueSize?: number;
  /** Export requests in flight at once (the exporter's default unless given). */
  concurrencyLimit?: number;
  /** Milliseconds one export may take, request and batch (the SDK's defaults unless given). */
  timeoutMillis?: number;
}

export function testTracer(kind: ExporterKind, url: string, resource: Attributes = {}, options: TestTracerOptions = {}): TestTracer {
  const compression = options.compression === 'gzip' ? ('gzip' as never) : undefined;
  const config = {
    url,
    ...(compression ? { compression } : {}),
    ...(options.concurrencyLimit !== undefined ? { concurrencyLimit: options.concurrencyLimit } : {}),
    ...(options.timeoutMillis !== undefined ? { timeoutMillis: options.timeoutMillis } : {}),
  };
  const exporter: SpanExporter = kind === 'proto' ? new ProtoExporter(config) : kind === 'json' ? new JsonExporter(config) : new GrpcExporter(config);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'assay-tests', ...resource }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        maxExportBatchSize: options.maxExportBatchSize ?? 512,
        scheduledDelayMillis: 60_000,
        ...(options.maxQueueSize !== undefined ? { maxQueueSize: options.maxQueueSize } : {}),
        ...(options.timeoutMillis !== undefined ? { exportTimeoutMillis: options.timeoutMillis } : {}),
      }),
    ],
  });
  return {
    tracer: provider.getTracer('assay-test-instrumentation', '1.2.3'),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
    under: (span) => trace.setSpan(ROOT_CONTEXT, span),
  };
}
