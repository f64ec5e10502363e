// An app sending its traces to Assay with OpenTelemetry (README, "Instrumenting an app"); the
// tour test runs it. Every address comes from the standard variables:
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:8000 OTEL_SERVICE_NAME=capitals npx tsx docs/examples/instrument.ts
// npm install @opentelemetry/api @opentelemetry/sdk-trace @opentelemetry/resources @opentelemetry/exporter-trace-otlp-proto
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

const provider = new TracerProvider({
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
  resource: defaultResource().merge(detectResources({ detectors: [envDetector] })),
  // OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces) or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as is)
  spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
});
trace.setGlobalTracerProvider(provider);

// One model call, described with OpenTelemetry's GenAI attributes: Assay reads its kind, model,
// messages and token usage (and prices it) from them.
const span = trace.getTracer('capitals').startSpan('chat gpt-4o-mini', {
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Capital of France?' }] }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Paris' }] }]),
    'gen_ai.usage.input_tokens': 12,
    'gen_ai.usage.output_tokens': 1,
  },
});
span.end();
console.log(span.spanContext().traceId);
await provider.shutdown(); // exports what is still queued
