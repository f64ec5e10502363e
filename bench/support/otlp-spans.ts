// The spans of bench/ingest, shared by its client (which sends them) and its baseline (which
// inserts the rows they map to), so both handle exactly the same data: ~1 KB of attributes per
// span, shaped like an OpenInference LLM span, in traces of `traceSize` spans.
import { ExportTraceServiceRequest } from '../../src/observability/ingestion/otlp/messages.js';

const filler = 'x'.repeat(120);
const hex = (n: number, bytes: number) => Buffer.from(n.toString(16).padStart(bytes * 2, '0'), 'hex');
const t0 = 1_714_564_800_000_000_000n;

function span(i: number, traceSize: number) {
  const trace = Math.floor(i / traceSize);
  const inTrace = i % traceSize;
  const start = t0 + BigInt(i) * 1_000_000n;
  return {
    traceId: hex(trace + 1, 16),
    spanId: hex(i + 1, 8),
    parentSpanId: inTrace === 0 ? undefined : hex(trace * traceSize + 1, 8),
    name: inTrace === 0 ? 'agent' : 'ChatCompletion',
    kind: 1,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (start + 500_000n).toString(),
    attributes: [
      ['openinference.span.kind', { stringValue: inTrace === 0 ? 'CHAIN' : 'LLM' }],
      ['llm.model_name', { stringValue: 'gpt-4o-mini' }],
      ['llm.invocation_parameters', { stringValue: '{"temperature":0.2,"max_tokens":256}' }],
      ['llm.input_messages.0.message.role', { stringValue: 'user' }],
      ['llm.input_messages.0.message.content', { stringValue: `question ${i} ${filler}` }],
      ['llm.output_messages.0.message.role', { stringValue: 'assistant' }],
      ['llm.output_messages.0.message.content', { stringValue: `answer ${i} ${filler}` }],
      ['input.value', { stringValue: `{"question":"question ${i} ${filler}"}` }],
      ['output.value', { stringValue: `answer ${i} ${filler}` }],
      ['llm.token_count.prompt', { intValue: 100 + (i % 50) }],
      ['llm.token_count.completion', { intValue: 20 }],
      ['user.id', { stringValue: `user-${trace % 100}` }],
      ['session.id', { stringValue: `session-${trace % 1000}` }],
      ['metadata', { stringValue: `{"run":${i},"note":"${filler.slice(0, 80)}"}` }],
    ].map(([key, value]) => ({ key, value })),
  };
}

/** `total` spans as OTLP/protobuf request bodies of `batch` spans each. */
export function otlpBodies(total: number, batch: number, traceSize: number): Buffer[] {
  const bodies: Buffer[] = [];
  for (let first = 0; first < total; first += batch) {
    const spans = Array.from({ length: Math.min(batch, total - first) }, (_, k) => span(first + k, traceSize));
    const message = ExportTraceServiceRequest.fromObject({
      resourceSpans: [
        { resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] },
      ],
    });
    bodies.push(Buffer.from(ExportTraceServiceRequest.encode(message).finish()));
  }
  return bodies;
}
