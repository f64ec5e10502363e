// The client of bench/ingest, in its own process: encodes all OTLP/protobuf batches first, then
// posts them with a few requests in flight, and prints one JSON line with its timings.
// Usage (spawned by bench/ingest.ts): node --import tsx bench/support/otlp-client.ts <url> <spans> <batch> <traceSize> <concurrency>
import { ExportTraceServiceRequest } from '../../src/observability/otlp/proto.js';

const [url, totalArg, batchArg, traceArg, concurrencyArg] = process.argv.slice(2);
const TOTAL = Number(totalArg);
const BATCH = Number(batchArg);
const TRACE = Number(traceArg);
const CONCURRENCY = Number(concurrencyArg);

const filler = 'x'.repeat(120);
const hex = (n: number, bytes: number) => Buffer.from(n.toString(16).padStart(bytes * 2, '0'), 'hex');
const t0 = 1_714_564_800_000_000_000n;

/** ~1 KB of attributes, shaped like an OpenInference LLM span. */
function span(i: number) {
  const trace = Math.floor(i / TRACE);
  const inTrace = i % TRACE;
  const start = t0 + BigInt(i) * 1_000_000n;
  return {
    traceId: hex(trace + 1, 16),
    spanId: hex(i + 1, 8),
    parentSpanId: inTrace === 0 ? undefined : hex(trace * TRACE + 1, 8),
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

const bodies: Buffer[] = [];
for (let first = 0; first < TOTAL; first += BATCH) {
  const spans = Array.from({ length: Math.min(BATCH, TOTAL - first) }, (_, k) => span(first + k));
  const message = ExportTraceServiceRequest.fromObject({
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }],
  });
  bodies.push(Buffer.from(ExportTraceServiceRequest.encode(message).finish()));
}
const bytes = bodies.reduce((sum, body) => sum + body.length, 0);

const latencies: number[] = [];
let retries = 0;
let next = 0;
const started = process.hrtime.bigint();
async function worker() {
  while (next < bodies.length) {
    const body = bodies[next++]!;
    for (;;) {
      const t = process.hrtime.bigint();
      const response = await fetch(url!, { method: 'POST', body: new Uint8Array(body), headers: { 'content-type': 'application/x-protobuf' } });
      await response.arrayBuffer();
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      if (response.status === 200) break;
      if (response.status !== 503 && response.status !== 429) throw new Error(`status ${response.status}`);
      retries++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
latencies.sort((a, b) => a - b);
const pick = (p: number) => latencies[Math.max(0, Math.ceil(p * latencies.length) - 1)]!;
console.log(JSON.stringify({ seconds, requests: latencies.length, retries, bytes, p50: pick(0.5), p99: pick(0.99), max: latencies.at(-1) }));
