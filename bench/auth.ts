// bench/auth: what API keys cost (docs/access.md#cost). Two services side by side in one run, as
// `npm start` runs them: one with auth off, one with auth on and an ASSAY_INIT_API_KEY. Each gets
// the same work in alternating rounds, so machine noise falls on both:
// - ingest: bench/ingest's client (OTLP/protobuf, batches of 500 spans), with the key on the
//   service that needs it;
// - reads: small GETs (GET /apps, one app) with a few requests in flight, where the per-request
//   cost of finding the key (one HMAC, one indexed read) weighs the most.
// Printed: wall time and service CPU of each, and the ratios auth on / auth off (aim ≤ 1.05).
// Run: npx tsx bench/auth.ts [spans per round] [reads per round] [rounds]
import { cpuSeconds, runOtlpClient, seconds, startService, type Service } from './support/measure.js';

const SPANS = Number(process.argv[2] ?? 50_000);
const READS = Number(process.argv[3] ?? 5_000);
const ROUNDS = Number(process.argv[4] ?? 3);
const CONCURRENCY = 4;
const KEY = 'bench-init-key-0123456789abcdefghij';

interface Mode {
  name: 'off' | 'on';
  service: Service;
  headers: Record<string, string>;
  ingest: { seconds: number; cpu: number };
  reads: { seconds: number; cpu: number };
}

async function mode(name: Mode['name']): Promise<Mode> {
  const env: Record<string, string> = name === 'on' ? { ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY } : {};
  const service = await startService({ OTLP_GRPC_PORT: '0', ...env });
  const headers: Record<string, string> = name === 'on' ? { authorization: `Bearer ${KEY}` } : {};
  const created = await fetch(`${service.baseUrl}/apps`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ app_name: 'bench' }),
  });
  if (created.status !== 200) throw new Error(`POST /apps answered ${created.status}`);
  return { name, service, headers, ingest: { seconds: 0, cpu: 0 }, reads: { seconds: 0, cpu: 0 } };
}

async function reads(target: Mode): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next++ < READS) {
      const response = await fetch(`${target.service.baseUrl}/apps?app_name=bench`, { headers: target.headers });
      if (response.status !== 200) throw new Error(`GET /apps answered ${response.status}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function measure(target: Mode, part: 'ingest' | 'reads', work: () => Promise<unknown>): Promise<void> {
  const cpu = cpuSeconds(target.service.child.pid!);
  const start = process.hrtime.bigint();
  await work();
  target[part].seconds += seconds(start);
  target[part].cpu += cpuSeconds(target.service.child.pid!) - cpu;
}

const modes = [await mode('off'), await mode('on')];
// A warm-up for both: JIT, caches, the first pages of the database.
for (const target of modes) await reads(target);
// Ingest first, then reads, so no read meets the background work (checkpoints) of an ingest.
for (const part of ['ingest', 'reads'] as const) {
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always meets a warmer or busier machine.
    for (const target of round % 2 === 0 ? modes : [...modes].reverse()) {
      const env: Record<string, string> = target.headers.authorization ? { BENCH_AUTHORIZATION: target.headers.authorization } : {};
      const work = () =>
        part === 'ingest'
          ? runOtlpClient(`${target.service.baseUrl}/v1/traces`, { spans: SPANS, batch: 500, trace: 50, concurrency: CONCURRENCY }, env)
          : reads(target);
      await measure(target, part, work);
    }
  }
}
for (const target of modes) await target.service.stop();

const [off, on] = modes;
const line = (part: 'ingest' | 'reads', unit: string, count: number) => {
  const rate = (target: Mode) => Math.round(count / target[part].seconds);
  return (
    `  ${part}: off ${rate(off)} ${unit}/s (${off[part].cpu.toFixed(2)} s CPU), on ${rate(on)} ${unit}/s (${on[part].cpu.toFixed(2)} s CPU); ` +
    `ratio on/off: time ${(on[part].seconds / off[part].seconds).toFixed(3)}, CPU ${(on[part].cpu / off[part].cpu).toFixed(3)} (aim ≤ 1.05)`
  );
};
console.log(`bench/auth: ${ROUNDS} rounds of ${SPANS} spans (OTLP/protobuf, batches of 500) and ${READS} GET /apps, ${CONCURRENCY} in flight`);
console.log(line('ingest', 'spans', SPANS * ROUNDS));
console.log(line('reads', 'requests', READS * ROUNDS));
