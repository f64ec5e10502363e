// The client of bench/ingest, in its own process: encodes all OTLP/protobuf batches first, then
// posts them with a few requests in flight, and prints one JSON line with its timings.
// Usage (spawned by bench/ingest.ts): node --import tsx bench/support/otlp-client.ts <url> <spans> <batch> <traceSize> <concurrency>
// BENCH_AUTHORIZATION, when set, is sent as the Authorization header (bench/auth.ts).
import { otlpBodies } from './otlp-spans.js';

const [url, totalArg, batchArg, traceArg, concurrencyArg] = process.argv.slice(2);
const TOTAL = Number(totalArg);
const BATCH = Number(batchArg);
const TRACE = Number(traceArg);
const CONCURRENCY = Number(concurrencyArg);

const bodies = otlpBodies(TOTAL, BATCH, TRACE);
const headers: Record<string, string> = { 'content-type': 'application/x-protobuf' };
if (process.env.BENCH_AUTHORIZATION) headers.authorization = process.env.BENCH_AUTHORIZATION;
const bytes = bodies.reduce((sum, body) => sum + body.length, 0);

const latencies: number[] = [];
let retries = 0;
let next = 0;
const started = process.hrtime.bigint();
async function worker() {
  while (next < bodies.length) {
    const body = bodies[next++];
    for (;;) {
      const t = process.hrtime.bigint();
      const response = await fetch(url, { method: 'POST', body: new Uint8Array(body), headers });
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
const pick = (p: number) => latencies[Math.max(0, Math.ceil(p * latencies.length) - 1)];
console.log(JSON.stringify({ seconds, requests: latencies.length, retries, bytes, p50: pick(0.5), p99: pick(0.99), max: latencies.at(-1) }));
