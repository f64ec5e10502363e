// bench/ingest: 100,000 spans (~1 KB of attributes each, traces of 50 spans) sent as OTLP/protobuf
// batches of 500 by a client in its own process, through the whole path (HTTP, decode, mapping,
// write queue, SQLite). Baseline, measured in the same run: the same rows (as the mapping makes
// them) inserted with raw better-sqlite3 prepared statements in one transaction into an empty
// database of the same schema. Run: npx tsx bench/ingest.ts [spans] [concurrency]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createAssay } from '../src/server.js';
import { loadConfig } from '../src/shared/config.js';
import { jsonText } from '../src/shared/sql.js';
import { nanosToDate, secondsBetween } from '../src/observability/time.js';
import { decodeProtobuf } from '../src/observability/otlp/decode.js';
import { otlpSpanRecord, resourceJson, scopeJson } from '../src/observability/otlp/map.js';
import { ExportTraceServiceRequest } from '../src/observability/otlp/proto.js';
import { seconds } from './support/measure.js';

/** Peak resident memory of this process (the server) so far, in MB. */
const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

const SPANS = Number(process.argv[2] ?? 100_000);
const CONCURRENCY = Number(process.argv[3] ?? 4);
const BATCH = 500;
const TRACE = 50;
const client = fileURLToPath(new URL('./support/otlp-client.ts', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'assay-bench-ingest-'));
const assay = await createAssay(loadConfig({ DATABASE_URL: `file:${join(dir, 'bench.db')}`, LOG_LEVEL: 'warn', OTLP_GRPC_PORT: '0' }));
await assay.server.listen({ port: 0, host: '127.0.0.1' });
const url = `http://127.0.0.1:${(assay.server.server.address() as { port: number }).port}/v1/traces`;

function runClient(spans: number): Promise<{ seconds: number; requests: number; retries: number; bytes: number; p50: number; p99: number; max: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', client, url, String(spans), String(BATCH), String(TRACE), String(CONCURRENCY)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`client exited ${code}`))));
  });
}

const run = await runClient(SPANS);
const stored = await assay.db.span.count();
const traces = await assay.db.trace.count();
if (stored !== SPANS || traces !== SPANS / TRACE) throw new Error(`stored ${stored} spans in ${traces} traces`);
const rss = peakRssMb();
await assay.close();

// Baseline: the same rows, raw prepared inserts in one transaction, in a fresh database.
const baseDb = new Database(join(dir, 'baseline.db'));
baseDb.pragma('journal_mode = WAL');
const migrations = join(fileURLToPath(new URL('../prisma/migrations', import.meta.url)));
for (const name of readdirSync(migrations).filter((entry) => /^\d{4}_/.test(entry)).sort()) baseDb.exec(readFileSync(join(migrations, name, 'migration.sql'), 'utf8'));
baseDb.prepare(`INSERT INTO "Project" ("id", "name", "updatedAt") VALUES ('p', 'p', '2024-01-01')`).run();
// Rows exactly as the mapping produces them, built before timing.
const rows: unknown[][] = [];
{
  const filler = 'x'.repeat(120);
  for (let i = 0; i < SPANS; i += BATCH) {
    const spans = [];
    for (let k = i; k < Math.min(SPANS, i + BATCH); k++) {
      const trace = Math.floor(k / TRACE);
      const start = 1_714_564_800_000_000_000n + BigInt(k) * 1_000_000n;
      spans.push({
        traceId: Buffer.from((trace + 1).toString(16).padStart(32, '0'), 'hex'),
        spanId: Buffer.from((k + 1).toString(16).padStart(16, '0'), 'hex'),
        name: 'ChatCompletion',
        startTimeUnixNano: start.toString(),
        endTimeUnixNano: (start + 500_000n).toString(),
        attributes: [
          ['openinference.span.kind', 'LLM'], ['llm.model_name', 'gpt-4o-mini'], ['llm.input_messages.0.message.content', `question ${k} ${filler}`],
          ['llm.output_messages.0.message.content', `answer ${k} ${filler}`], ['input.value', `{"question":"question ${k} ${filler}"}`],
          ['output.value', `answer ${k} ${filler}`], ['metadata', `{"run":${k},"note":"${filler.slice(0, 80)}"}`],
        ].map(([key, value]) => ({ key, value: { stringValue: value } })),
      });
    }
    const body = ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject({ resourceSpans: [{ scopeSpans: [{ spans }] }] })).finish();
    for (const group of decodeProtobuf(body)) {
      for (const decoded of group.spans) {
        if (!('span' in decoded)) continue;
        const r = otlpSpanRecord(decoded.span, group.resource, resourceJson(group.resource), scopeJson(group.scope));
        rows.push([
          'p', r.traceId, r.spanId, r.parentSpanId, r.name, r.spanKind, r.statusCode, null, r.startTimeUnixNano, r.endTimeUnixNano,
          nanosToDate(r.startTimeUnixNano).toISOString(), nanosToDate(r.endTimeUnixNano).toISOString(), secondsBetween(r.startTimeUnixNano, r.endTimeUnixNano),
          jsonText(r.inputs), jsonText(r.outputs), jsonText(r.internals), jsonText(r.config), r.model, r.promptTokens ?? null,
          jsonText(r.attributes), jsonText(r.resource), jsonText(r.scope), new Date().toISOString(),
        ]);
      }
    }
  }
}
const insert = baseDb.prepare(`INSERT INTO "Span" ("projectId","traceId","spanId","parentSpanId","name","spanKind","statusCode","statusMessage",
  "startTimeUnixNano","endTimeUnixNano","startTime","endTime","latency","inputs","outputs","internals","config","model","promptTokens",
  "attributes","resource","scope","createdAt") VALUES (${Array.from({ length: 23 }, () => '?').join(',')})`);
const baseStart = process.hrtime.bigint();
baseDb.transaction(() => {
  for (const row of rows) insert.run(...row);
})();
const baseline = seconds(baseStart);
baseDb.close();
rmSync(dir, { recursive: true, force: true });

const rate = SPANS / run.seconds;
console.log(`bench/ingest: ${SPANS} spans, traces of ${TRACE}, OTLP/protobuf batches of ${BATCH}, ${CONCURRENCY} requests in flight (${(run.bytes / 1e6).toFixed(1)} MB sent)`);
console.log(`  end to end: ${run.seconds.toFixed(2)} s = ${Math.round(rate)} spans/s; request p50 ${run.p50.toFixed(0)} ms, p99 ${run.p99.toFixed(0)} ms, max ${run.max.toFixed(0)} ms; 503 retries ${run.retries}`);
console.log(`  server peak RSS: ${rss.toFixed(0)} MB`);
console.log(`  baseline (raw better-sqlite3, same rows, one transaction): ${baseline.toFixed(2)} s = ${Math.round(SPANS / baseline)} spans/s`);
console.log(`  ratio end to end / baseline: ${(run.seconds / baseline).toFixed(2)}`);
